//! How fast a source gives its files up, from a sample of them read from a cold cache: for
//! `estimate --measure-source` and the answer's source side (`answer::your_data`).
//!
//! Bounded, so a run keeps its budget: the walk stops after [`WALK_BUDGET`] or [`MAX_LISTED`]
//! files (directories in random order, so a large tree is sampled across, not in its first
//! folders only) and picks up to [`PICKS`] files of each size class; they are read at most
//! [`PREFIX`] bytes of each, until [`ENOUGH_FILES`] files and [`ENOUGH_BYTES`] are read or
//! [`READ_BUDGET`] is spent (a file then stops where it is: its bytes so far are a sample too).
//! Files of different sizes let the fit tell a file's own cost from its bytes' rate. Each
//! class's reads are spread evenly over the sample (a class of ten files is read at every
//! tenth of it), so a disk's first moments (a burst allowance, a spin-up) fall on few reads of
//! each class, and a sample cut short has every class alike; enough bytes keep a short burst
//! from passing for the disk's rate.
//!
//! Each file's clean pages are dropped first (`platform::evict`, which never writes; at most
//! [`MAX_READS`] files, for at most [`EVICT_BUDGET`]) and checked gone
//! (`platform::resident_fraction`), so the read reaches the disk as a first backup's does; a
//! file still in memory after that (mapped by a running program) is left out.
//! Files are opened read-only; nothing on the source is changed.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::estimate::model::{CLASS_BOUNDS, class_of};
use crate::interrupt;
use crate::platform;
use crate::platform::AsHandleRef;

/// The most files picked of each size class.
pub const PICKS: usize = 3000;
/// The files and bytes read after which the sample has enough.
pub const ENOUGH_FILES: usize = 200;
pub const ENOUGH_BYTES: u64 = 32 << 20;
/// The most files the walk lists before it stops.
pub const MAX_LISTED: u64 = 60_000;
/// The most time the walk takes.
pub const WALK_BUDGET: Duration = Duration::from_secs(1);
/// The most time spent reading.
pub const READ_BUDGET: Duration = Duration::from_secs(2);
/// The most bytes read of one file, where the largest size class begins: a large file's first
/// part reads at its sequential rate.
pub const PREFIX: u64 = CLASS_BOUNDS[CLASS_BOUNDS.len() - 1];
/// The most time spent dropping the picked files' cached pages before the reads, and the most
/// files made cold.
pub const EVICT_BUDGET: Duration = Duration::from_millis(500);
pub const MAX_READS: usize = 6000;
/// Bytes asked of each read call: small enough that the budget stops a slow read in time.
const CHUNK: usize = 256 << 10;

/// One sampled file: the bytes read and the seconds from its open to its last byte.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Read1 {
    pub bytes: u64,
    pub seconds: f64,
}

/// The sampled reads, and what they are worth.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub reads: Vec<Read1>,
    /// Files left out: still in memory after their pages were dropped.
    pub still_cached: u64,
    /// Files read whose residency could not be checked (the system cannot tell).
    pub unchecked: u64,
    /// The whole sample's time, its walk included.
    pub took: Duration,
}

impl Sample {
    /// How the reads were made cold, in words; Err: why they may have come from memory.
    pub fn cold(&self) -> std::result::Result<String, String> {
        let evicted = platform::EVICTION.map_err(|why| format!("possibly cached: {why}"))?;
        if self.unchecked > 0 {
            return Err(format!(
                "possibly cached: {} of the files read could not be checked for cached pages",
                self.unchecked
            ));
        }
        let left_out = match self.still_cached {
            0 => String::new(),
            n => format!(
                "; {n} files still in memory after that (not yet written to the disk, or in use \
                 by a program) left out"
            ),
        };
        Ok(format!(
            "read cold: each file's cached pages dropped first ({evicted}) and checked gone{left_out}"
        ))
    }
}

/// Samples the tree at `root` (a walk that follows no symlink and stays on `root`'s
/// filesystem) and reads the sample from a cold cache, within the module's bounds.
pub fn sample(root: &Path) -> Result<Sample> {
    let start = Instant::now();
    let classes = pick(root, PICKS)?;
    let mut sample = Sample {
        reads: Vec::new(),
        still_cached: 0,
        unchecked: 0,
        took: Duration::ZERO,
    };
    // Every file made cold first, then all read back to back as a copy reads them: checks
    // between the reads would give the disk idle moments a copy does not (a burst allowance,
    // as a cloud volume's or the testbed's token bucket, credits them).
    let evicting = Instant::now();
    let mut cold = Vec::new();
    for path in spread_out(&classes) {
        if evicting.elapsed() > EVICT_BUDGET || cold.len() >= MAX_READS {
            break;
        }
        if made_cold(path, &mut sample) {
            cold.push(path);
        }
    }
    let reading = Instant::now();
    let mut buffer = vec![0u8; CHUNK];
    let mut bytes = 0u64;
    for path in cold {
        let enough = sample.reads.len() >= ENOUGH_FILES && bytes >= ENOUGH_BYTES;
        if enough || reading.elapsed() > READ_BUDGET {
            break;
        }
        interrupt::check()?;
        if let Some(read) = read_prefix(path, &mut buffer, reading) {
            bytes += read.bytes;
            sample.reads.push(read);
        }
    }
    sample.took = start.elapsed();
    Ok(sample)
}

/// The classes' files in the order they are read: the `i`th of a class of `n` at `(i + ½) / n`
/// of the way.
fn spread_out(classes: &[Vec<PathBuf>]) -> Vec<&PathBuf> {
    let mut order: Vec<(f64, &PathBuf)> = classes
        .iter()
        .flat_map(|class| {
            let n = class.len() as f64;
            class
                .iter()
                .enumerate()
                .map(move |(i, path)| ((i as f64 + 0.5) / n, path))
        })
        .collect();
    order.sort_by(|a, b| a.0.total_cmp(&b.0));
    order.into_iter().map(|(_, path)| path).collect()
}

/// Up to `picks` regular files of each size class, picked at random (reservoir sampling)
/// from those the bounded walk lists.
fn pick(root: &Path, picks: usize) -> Result<Vec<Vec<PathBuf>>> {
    let device = fs::symlink_metadata(root)
        .map_err(|e| Error::io(format!("reading {}", root.display()), e))
        .map(|meta| platform::device_of(&meta))?;
    let mut rng = fastrand::Rng::with_seed(0x50_75_72_63_65);
    let mut classes: Vec<Vec<PathBuf>> = vec![Vec::new(); CLASS_BOUNDS.len() + 1];
    let mut seen = vec![0usize; classes.len()];
    let mut listed = 0u64;
    let walking = Instant::now();
    let mut pending = vec![root.to_path_buf()];
    while !pending.is_empty() && listed < MAX_LISTED && walking.elapsed() < WALK_BUDGET {
        let dir = pending.swap_remove(rng.usize(..pending.len()));
        // Unreadable directories are the survey's to report; the sample skips them.
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            // Within a directory too: one of a million names on a share is a walk of its own.
            if listed >= MAX_LISTED || walking.elapsed() > WALK_BUDGET {
                break;
            }
            let Ok(meta) = entry.metadata() else { continue };
            if platform::device_of(&meta) != device {
                continue;
            }
            if meta.is_dir() {
                pending.push(entry.path());
            } else if meta.is_file() {
                listed += 1;
                let c = class_of(meta.len());
                seen[c] += 1;
                if classes[c].len() < picks {
                    classes[c].push(entry.path());
                } else {
                    let slot = rng.usize(..seen[c]);
                    if slot < picks {
                        classes[c][slot] = entry.path();
                    }
                }
            }
        }
        interrupt::check()?;
    }
    Ok(classes)
}

/// Whether `path`'s cached pages are dropped: false where it cannot be opened, or is still in
/// memory after that (counted).
fn made_cold(path: &Path, sample: &mut Sample) -> bool {
    let Ok(file) = fs::File::open(path) else {
        return false;
    };
    let len = file.metadata().map(|m| m.len().min(PREFIX)).unwrap_or(0);
    // A failed eviction leaves pages cached; the residency check below finds them.
    let _ = platform::evict(file.handle_ref());
    match platform::resident_fraction(file.handle_ref(), len) {
        Ok(f) if f > 0.0 => {
            sample.still_cached += 1;
            false
        }
        Ok(_) => true,
        Err(_) => {
            sample.unchecked += 1;
            true
        }
    }
}

/// The time to open `path` and read up to [`PREFIX`] bytes of it (as a copy opens and reads
/// each file), or until [`READ_BUDGET`] from `reading` is spent; None where it cannot be
/// opened.
fn read_prefix(path: &Path, buffer: &mut [u8], reading: Instant) -> Option<Read1> {
    let t0 = Instant::now();
    let mut file = fs::File::open(path).ok()?;
    let mut bytes = 0u64;
    while bytes < PREFIX && reading.elapsed() <= READ_BUDGET {
        let want = buffer.len().min((PREFIX - bytes) as usize);
        match file.read(&mut buffer[..want]) {
            Ok(0) | Err(_) => break,
            Ok(n) => bytes += n as u64,
        }
    }
    Some(Read1 {
        bytes,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No more than the picks of one class are kept, each file once; a class with fewer keeps
    /// them all.
    #[test]
    fn each_class_keeps_at_most_its_picks() {
        let dir = tempfile::tempdir().unwrap();
        for (count, size) in [(40, 1_000usize), (5, 100_000)] {
            for i in 0..count {
                fs::write(dir.path().join(format!("f{size}-{i}")), vec![1u8; size]).unwrap();
            }
        }
        let classes = pick(dir.path(), 10).unwrap();
        let small = &classes[class_of(1_000)];
        assert_eq!(small.len(), 10);
        let names: std::collections::BTreeSet<_> = small.iter().collect();
        assert_eq!(names.len(), 10, "{small:?}");
        assert_eq!(classes[class_of(100_000)].len(), 5);
        assert_eq!(classes.iter().map(Vec::len).sum::<usize>(), 15);
    }

    /// Files of every class are read (the large file's prefix only); nothing in the tree
    /// changes.
    #[test]
    fn the_sample_reads_each_size_class_and_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let sizes = [(10, 1_000usize), (5, 100_000), (3, 2_000_000)];
        for (count, size) in sizes {
            for i in 0..count {
                fs::write(dir.path().join(format!("f{size}-{i}")), vec![1u8; size]).unwrap();
            }
        }
        fs::create_dir(dir.path().join("big")).unwrap();
        fs::write(
            dir.path().join("big/b"),
            vec![2u8; (PREFIX + 1000) as usize],
        )
        .unwrap();
        let before = fs::metadata(dir.path().join("big/b"))
            .unwrap()
            .modified()
            .unwrap();
        let sample = sample(dir.path()).unwrap();
        let read = sample.reads.len() as u64 + sample.still_cached;
        assert_eq!(read, 10 + 5 + 3 + 1, "{sample:?}");
        let bytes: Vec<u64> = sample.reads.iter().map(|r| r.bytes).collect();
        assert!(bytes.iter().all(|b| *b <= PREFIX), "{bytes:?}");
        assert!(
            bytes.contains(&PREFIX) || sample.still_cached > 0,
            "{bytes:?}"
        );
        assert!(sample.took < WALK_BUDGET + READ_BUDGET + Duration::from_secs(1));
        let after = fs::metadata(dir.path().join("big/b"))
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(before, after);
    }
}
