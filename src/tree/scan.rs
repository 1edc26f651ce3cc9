//! A fast, read-only survey of a tree for `destbench estimate`: how many files of which sizes,
//! without reading a byte of their contents.
//!
//! Several threads share a stack of directories still to list; each lists one directory and
//! `lstat`s its entries (through the directory entry, so `statx` relative to the open directory).
//! Only the size histogram, the counters and the pending directories are kept: memory grows with
//! the number of directories waiting to be listed, never with the number of files, so a
//! million-file tree is surveyed in a few megabytes. Symlinks are never followed; a directory that
//! cannot be listed is counted and a few are named, and the survey goes on.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::interrupt;
use crate::workload::fileset::FileSizes;

use super::Listed;

/// File-size classes the survey counts, by upper bound (exclusive); the last one is open. The
/// bounds are powers of 16 from 4 KiB so each class spans a factor of 16 in size: narrow enough
/// to show where the time goes, few enough to read at a glance.
pub const CLASS_BOUNDS: [u64; 5] = [4 << 10, 64 << 10, 1 << 20, 16 << 20, 256 << 20];

/// The block size of `block_bytes`: ext4's, xfs's and btrfs's default.
pub const BLOCK: u64 = 4096;

/// Files and bytes per size class: what the estimate needs of a tree, and all it keeps.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct SizeHistogram {
    /// `CLASS_BOUNDS.len() + 1` classes: below the first bound, between bounds, and above.
    pub files: [u64; CLASS_BOUNDS.len() + 1],
    pub bytes: [u64; CLASS_BOUNDS.len() + 1],
    /// The sizes rounded up to whole 4 KiB blocks: what a block device writes (the estimate
    /// prices the difference, the slack, as the destination measures it).
    pub block_bytes: [u64; CLASS_BOUNDS.len() + 1],
}

impl SizeHistogram {
    pub fn add(&mut self, size: u64) {
        let class = CLASS_BOUNDS
            .iter()
            .position(|&bound| size < bound)
            .unwrap_or(CLASS_BOUNDS.len());
        self.files[class] += 1;
        self.bytes[class] += size;
        self.block_bytes[class] += size.div_ceil(BLOCK) * BLOCK;
    }

    pub fn merge(&mut self, other: &SizeHistogram) {
        for class in 0..self.files.len() {
            self.files[class] += other.files[class];
            self.bytes[class] += other.bytes[class];
            self.block_bytes[class] += other.block_bytes[class];
        }
    }

    pub fn total_files(&self) -> u64 {
        self.files.iter().sum()
    }

    pub fn total_bytes(&self) -> u64 {
        self.bytes.iter().sum()
    }

    /// The class's bounds in bytes: `(low, high)`, `high` None for the open last class.
    pub fn class_range(class: usize) -> (u64, Option<u64>) {
        let low = if class == 0 {
            0
        } else {
            CLASS_BOUNDS[class - 1]
        };
        (low, CLASS_BOUNDS.get(class).copied())
    }
}

/// What the survey found.
#[derive(Debug, Clone, Default)]
pub struct Survey {
    pub histogram: SizeHistogram,
    /// The sizes' percentiles, for the run document's description of a `--source` set.
    pub sizes: FileSizes,
    /// Directories listed (the root included).
    pub dirs: u64,
    pub symlinks: u64,
    /// Sockets, FIFOs, devices: a backup skips them.
    pub special: u64,
    /// Directories or entries that could not be read: not counted in the histogram.
    pub unreadable: Listed,
    pub elapsed: Duration,
}

impl Survey {
    fn merge(&mut self, other: Survey) {
        self.histogram.merge(&other.histogram);
        self.sizes.merge(&other.sizes);
        self.dirs += other.dirs;
        self.symlinks += other.symlinks;
        self.special += other.special;
        self.unreadable.merge(other.unreadable);
    }
}

/// Directories still to list and how many threads are listing one (the survey ends when both
/// are zero).
struct Queue {
    pending: Vec<PathBuf>,
    busy: usize,
    stopped: bool,
}

/// Surveys the tree at `root` with `threads` threads. Fails only when `root` itself cannot be
/// listed or on interruption.
pub fn survey(root: &Path, threads: usize) -> Result<Survey> {
    let start = Instant::now();
    fs::read_dir(root).map_err(|e| Error::Destination {
        path: root.to_path_buf(),
        problem: format!("cannot be read: {e}"),
    })?;
    let queue = Mutex::new(Queue {
        pending: vec![root.to_path_buf()],
        busy: 0,
        stopped: false,
    });
    let wake = Condvar::new();
    let parts: Vec<Survey> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.max(1))
            .map(|_| scope.spawn(|| lister(root, &queue, &wake)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    interrupt::check()?;
    let mut total = Survey::default();
    for part in parts {
        total.merge(part);
    }
    total.elapsed = start.elapsed();
    Ok(total)
}

fn lister(root: &Path, queue: &Mutex<Queue>, wake: &Condvar) -> Survey {
    let mut mine = Survey::default();
    let lock = || queue.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        let dir = {
            let mut q = lock();
            loop {
                if q.stopped {
                    return mine;
                }
                if let Some(dir) = q.pending.pop() {
                    q.busy += 1;
                    break dir;
                }
                if q.busy == 0 {
                    q.stopped = true;
                    wake.notify_all();
                    return mine;
                }
                q = wake.wait(q).unwrap_or_else(|e| e.into_inner());
            }
        };
        let found = list(root, &dir, &mut mine);
        let mut q = lock();
        q.busy -= 1;
        if interrupt::check().is_err() {
            q.stopped = true;
        }
        q.pending.extend(found);
        wake.notify_all();
    }
}

/// Lists one directory into `survey`; returns its subdirectories.
fn list(root: &Path, dir: &Path, survey: &mut Survey) -> Vec<PathBuf> {
    let shown = |p: &Path| p.strip_prefix(root).unwrap_or(p).display().to_string();
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            survey.unreadable.add(format!("{}: {e}", shown(dir)));
            return Vec::new();
        }
    };
    survey.dirs += 1;
    let mut subdirs = Vec::new();
    for entry in entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                survey.unreadable.add(format!("{}: {e}", shown(dir)));
                continue;
            }
        };
        // The entry's type comes from the directory listing (no stat); only regular files
        // need one, for their size.
        match entry.file_type() {
            Ok(t) if t.is_dir() => subdirs.push(entry.path()),
            Ok(t) if t.is_symlink() => survey.symlinks += 1,
            Ok(t) if t.is_file() => match entry.metadata() {
                Ok(meta) => {
                    survey.histogram.add(meta.len());
                    survey.sizes.record(meta.len());
                }
                Err(e) => survey
                    .unreadable
                    .add(format!("{}: {e}", shown(&entry.path()))),
            },
            Ok(_) => survey.special += 1,
            Err(e) => survey
                .unreadable
                .add(format!("{}: {e}", shown(&entry.path()))),
        }
    }
    subdirs
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn classes_split_at_their_bounds() {
        let mut h = SizeHistogram::default();
        for size in [0, 4095, 4096, (1 << 20) - 1, 1 << 20, 300 << 20] {
            h.add(size);
        }
        assert_eq!(h.files, [2, 1, 1, 1, 0, 1]);
        assert_eq!(
            h.total_bytes(),
            4095 + 4096 + (1 << 20) - 1 + (1 << 20) + (300 << 20)
        );
        assert_eq!(SizeHistogram::class_range(0), (0, Some(4096)));
        assert_eq!(SizeHistogram::class_range(5), (256 << 20, None));
    }

    #[test]
    fn counts_every_file_once_and_never_follows_symlinks() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("big"), vec![0u8; 100_000]).unwrap();
        let mut expected = SizeHistogram::default();
        for d in 0..20 {
            let dir = root.path().join(format!("d{d}/e"));
            fs::create_dir_all(&dir).unwrap();
            for f in 0..d {
                let size = d * 1000 + f;
                fs::write(dir.join(format!("f{f}")), vec![1u8; size]).unwrap();
                expected.add(size as u64);
            }
        }
        std::os::unix::fs::symlink(outside.path(), root.path().join("link")).unwrap();
        for threads in [1, 4] {
            let s = survey(root.path(), threads).unwrap();
            assert_eq!(s.histogram, expected, "{threads} threads");
            assert_eq!((s.dirs, s.symlinks, s.unreadable.count), (41, 1, 0));
        }
    }

    #[test]
    fn an_unreadable_directory_is_counted_not_fatal() {
        if crate::platform::is_root() {
            // Root reads directories whatever their mode; the integration tests cover this
            // with a directory made unreadable to root as well.
            return;
        }
        let root = tempfile::tempdir().unwrap();
        let closed = root.path().join("closed");
        fs::create_dir(&closed).unwrap();
        fs::write(closed.join("hidden"), b"x").unwrap();
        fs::write(root.path().join("seen"), b"xy").unwrap();
        fs::set_permissions(&closed, fs::Permissions::from_mode(0o000)).unwrap();
        let s = survey(root.path(), 2).unwrap();
        fs::set_permissions(&closed, fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(s.histogram.total_files(), 1);
        assert_eq!(s.unreadable.count, 1);
        assert!(s.unreadable.examples[0].starts_with("closed"));
    }
}
