//! `estimate --measure-source`: how fast the source gives its files up, from a random sample of
//! them read from a cold cache. The sample is bounded (at most [`MAX_FILES`] files, [`BUDGET`]
//! of reading); each sampled file's clean pages are dropped from the page cache first
//! (`posix_fadvise(DONTNEED)`, which never writes) so the read reaches the disk, as a first
//! backup's does. Files are opened read-only; nothing on the source is changed.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::interrupt;
use crate::platform;
use crate::platform::AsHandleRef;

/// The most files sampled.
pub const MAX_FILES: usize = 200;
/// The most time spent reading the sample.
pub const BUDGET: Duration = Duration::from_secs(3);

/// One sampled file: its size and the seconds from open to the last byte read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Read1 {
    pub bytes: u64,
    pub seconds: f64,
}

/// Picks up to [`MAX_FILES`] regular files of the tree at `root` at random (reservoir
/// sampling over a walk that follows no symlink and stays on `root`'s filesystem) and reads
/// each from a cold cache, until [`BUDGET`] is spent.
pub fn sample(root: &Path) -> Result<Vec<Read1>> {
    let device = fs::symlink_metadata(root)
        .map_err(|e| Error::io(format!("reading {}", root.display()), e))
        .map(|meta| platform::device_of(&meta))?;
    let mut rng = fastrand::Rng::with_seed(0x50_75_72_63_65);
    let mut reservoir: Vec<PathBuf> = Vec::new();
    let mut seen = 0usize;
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        // Unreadable directories are the survey's to report; the sample skips them.
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(meta) = entry.metadata() else { continue };
            if platform::device_of(&meta) != device {
                continue;
            }
            if meta.is_dir() {
                pending.push(entry.path());
            } else if meta.is_file() {
                seen += 1;
                if reservoir.len() < MAX_FILES {
                    reservoir.push(entry.path());
                } else {
                    let slot = rng.usize(..seen);
                    if slot < MAX_FILES {
                        reservoir[slot] = entry.path();
                    }
                }
            }
        }
        interrupt::check()?;
    }
    let start = Instant::now();
    let mut buffer = vec![0u8; 1 << 20];
    let mut reads = Vec::new();
    for path in reservoir {
        if start.elapsed() > BUDGET {
            break;
        }
        let t0 = Instant::now();
        let Ok(mut file) = fs::File::open(&path) else {
            continue;
        };
        // A failed eviction leaves the file cached: a faster read, so an optimistic source.
        let _ = platform::evict(file.handle_ref());
        let mut bytes = 0u64;
        loop {
            match file.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => bytes += n as u64,
                Err(_) => break,
            }
        }
        reads.push(Read1 {
            bytes,
            seconds: t0.elapsed().as_secs_f64(),
        });
    }
    Ok(reads)
}
