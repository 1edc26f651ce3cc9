//! A fast, read-only survey of a tree for `destbench estimate`: how many files of which sizes,
//! without reading a byte of their contents.
//!
//! Several threads share a stack of directories still to list; each lists one directory and
//! `lstat`s its entries (through the directory entry, so `statx` relative to the open directory).
//! Only the size histogram, the counters, the pending directories and a bounded sample of
//! directories (`dir_sample`) are kept: memory grows with the number of directories waiting to
//! be listed, never with the number of files, so a million-file tree is surveyed in a few
//! megabytes. Symlinks are never followed and every directory is opened from its parent's
//! handle (`O_NOFOLLOW`), so a tree changed under the survey cannot lead it elsewhere; it stays
//! on the root's filesystem unless asked to cross (as `find -xdev`); a directory that cannot be
//! listed is counted and a few are named, and the survey goes on.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::engine::tree::EntryKind;
use crate::error::{Error, Result};
use crate::interrupt;
use crate::platform::AsHandleRef;
use crate::platform::{self, FileKind, Handle};
use crate::workload::fileset::FileSizes;

use super::dir_sample::DirSample;
use super::size_classes::SizeHistogram;
use super::{Listed, Skipped, refuse_pseudo};

/// What the survey found.
#[derive(Debug, Clone, Default)]
pub struct Survey {
    /// Every file once, a file with several names (hard links) at its first.
    pub histogram: SizeHistogram,
    /// The other names of files with several names in the tree, by the file's size: `cp -a`
    /// makes each a link (no data), `rsync -a` without `-H` copies each again.
    pub hard_links: SizeHistogram,
    /// Files with more than one name, by (device, inode): their size and the names seen. Only
    /// while surveying; `survey` folds them into `histogram` and `hard_links`.
    linked: HashMap<(u64, u64), (u64, u64)>,
    /// The sizes' percentiles, for the run document's description of a `--source` set.
    pub sizes: FileSizes,
    /// Directories listed (the root included).
    pub dirs: u64,
    /// A sample of the directories with their files' sizes: how the tree groups its files.
    pub dir_sample: DirSample,
    pub symlinks: u64,
    /// Sockets, FIFOs, devices: a backup skips them.
    pub special: u64,
    /// Directories or entries that could not be read: not counted in the histogram.
    pub unreadable: Listed,
    /// Everything left out, by kind.
    pub skipped: Skipped,
    pub elapsed: Duration,
}

impl Survey {
    /// Counts `what`, which could not be opened or read, and names it among the first few.
    fn cannot_read(&mut self, what: &Path, e: std::io::Error) {
        self.skipped.unreadable += 1;
        self.unreadable.add(format!("{}: {e}", what.display()));
    }

    fn merge(&mut self, other: Survey) {
        self.histogram.merge(&other.histogram);
        self.hard_links.merge(&other.hard_links);
        for (inode, (size, names)) in other.linked {
            self.linked.entry(inode).or_insert((size, 0)).1 += names;
        }
        self.sizes.merge(&other.sizes);
        self.dirs += other.dirs;
        self.dir_sample.merge(other.dir_sample);
        self.symlinks += other.symlinks;
        self.special += other.special;
        self.unreadable.merge(other.unreadable);
        self.skipped.merge(&other.skipped);
    }
}

/// A directory still to list: its name in a parent already open, and its path for messages.
struct Pending {
    parent: Arc<Handle>,
    name: OsString,
    rel: PathBuf,
}

/// Directories still to list and how many threads are listing one (the survey ends when both
/// are zero).
struct Queue {
    /// The root itself (listed first), then directories found.
    root: Option<Arc<Handle>>,
    pending: Vec<Pending>,
    busy: usize,
    stopped: bool,
}

/// Surveys the tree at `root` with `threads` threads, entering other filesystems only when
/// `cross`. Fails only when `root` itself cannot be listed or on interruption.
pub fn survey(root: &Path, threads: usize, cross: bool) -> Result<Survey> {
    let start = Instant::now();
    let unreadable = |e: std::io::Error| Error::Destination {
        path: root.to_path_buf(),
        problem: format!("cannot be read: {e}"),
    };
    let root_fd = platform::open_dir(root).map_err(unreadable)?;
    refuse_pseudo(root, &root_fd)?;
    let device = platform::stat(root_fd.handle_ref())
        .map_err(unreadable)?
        .device;
    platform::read_dir(root_fd.handle_ref()).map_err(unreadable)?;
    let queue = Mutex::new(Queue {
        root: Some(Arc::new(root_fd)),
        pending: Vec::new(),
        busy: 0,
        stopped: false,
    });
    let device = (!cross).then_some(device);
    let wake = Condvar::new();
    let parts: Vec<Survey> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.max(1))
            .map(|_| scope.spawn(|| lister(device, &queue, &wake)))
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
    // A file with several names is data once; its other names are links.
    for (size, names) in std::mem::take(&mut total.linked).into_values() {
        total.histogram.add(size);
        total.sizes.record(size);
        for _ in 1..names {
            total.hard_links.add(size);
        }
    }
    total.elapsed = start.elapsed();
    Ok(total)
}

/// What a lister takes off the queue: the root, already open, or a directory to open.
enum Next {
    Root(Arc<Handle>),
    Dir(Pending),
}

fn lister(device: Option<u64>, queue: &Mutex<Queue>, wake: &Condvar) -> Survey {
    let mut mine = Survey::default();
    let lock = || queue.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        let next = {
            let mut q = lock();
            loop {
                if q.stopped {
                    return mine;
                }
                if let Some(root) = q.root.take() {
                    q.busy += 1;
                    break Next::Root(root);
                }
                if let Some(dir) = q.pending.pop() {
                    q.busy += 1;
                    break Next::Dir(dir);
                }
                if q.busy == 0 {
                    q.stopped = true;
                    wake.notify_all();
                    return mine;
                }
                q = wake.wait(q).unwrap_or_else(|e| e.into_inner());
            }
        };
        let found = match next {
            Next::Root(fd) => list(fd, Path::new(""), &mut mine),
            Next::Dir(dir) => match open(&dir, device, &mut mine) {
                Some(fd) => list(fd, &dir.rel, &mut mine),
                None => Vec::new(),
            },
        };
        let mut q = lock();
        q.busy -= 1;
        if interrupt::check().is_err() {
            q.stopped = true;
        }
        q.pending.extend(found);
        wake.notify_all();
    }
}

/// Opens a pending directory from its parent, without following a symlink; None (counted) if it
/// cannot be opened or is on another filesystem than the root's.
fn open(dir: &Pending, device: Option<u64>, survey: &mut Survey) -> Option<Arc<Handle>> {
    let fd = match platform::open_dir_in(dir.parent.handle_ref(), &dir.name) {
        Ok(fd) => fd,
        Err(e) => {
            survey.cannot_read(&dir.rel, e);
            return None;
        }
    };
    if let Some(root) = device
        && platform::stat(fd.handle_ref()).is_ok_and(|st| st.device != root)
    {
        survey.skipped.other_filesystems += 1;
        return None;
    }
    Some(Arc::new(fd))
}

/// Lists one open directory into `survey`; returns its subdirectories.
fn list(dir: Arc<Handle>, rel: &Path, survey: &mut Survey) -> Vec<Pending> {
    let entries = match platform::read_dir(dir.handle_ref()) {
        Ok(entries) => entries,
        Err(e) => {
            survey.cannot_read(rel, e);
            return Vec::new();
        }
    };
    survey.dirs += 1;
    let mut subdirs = Vec::new();
    let mut sizes = Vec::new();
    for entry in entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                survey.cannot_read(rel, e);
                break;
            }
        };
        let name = entry.name;
        // The entry's type comes from the directory listing; only regular files (and entries
        // of filesystems that leave the type out) need a stat.
        let mut kind = entry.kind;
        let mut size = None;
        let mut inode = None;
        if matches!(kind, FileKind::File | FileKind::Unknown) {
            match platform::stat_in(dir.handle_ref(), &name) {
                Ok(st) => {
                    kind = st.kind;
                    size = Some(st.size);
                    inode = (st.links > 1).then_some((st.device, st.inode));
                }
                Err(e) => {
                    survey.cannot_read(&rel.join(&name), e);
                    continue;
                }
            }
        }
        match kind {
            FileKind::Dir => subdirs.push(Pending {
                parent: dir.clone(),
                rel: rel.join(&name),
                name,
            }),
            FileKind::Symlink => {
                survey.symlinks += 1;
                survey.skipped.add(EntryKind::Symlink);
            }
            FileKind::File => {
                let size = size.unwrap_or(0);
                sizes.push(size);
                match inode {
                    // Counted once all threads are done: its other names may be anywhere.
                    Some(inode) => survey.linked.entry(inode).or_insert((size, 0)).1 += 1,
                    None => {
                        survey.histogram.add(size);
                        survey.sizes.record(size);
                    }
                }
            }
            other => {
                survey.special += 1;
                survey.skipped.add(other.into());
            }
        }
    }
    survey.dir_sample.offer(rel, sizes);
    subdirs
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

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
        crate::platform::symlink(outside.path(), &root.path().join("link")).unwrap();
        // A file of 3 names, in directories different threads may list: one file, 2 links.
        fs::write(root.path().join("d1/e/shared"), vec![2u8; 7000]).unwrap();
        fs::hard_link(
            root.path().join("d1/e/shared"),
            root.path().join("d2/e/again"),
        )
        .unwrap();
        fs::hard_link(
            root.path().join("d1/e/shared"),
            root.path().join("d9/third"),
        )
        .unwrap();
        expected.add(7000);
        let mut links = SizeHistogram::default();
        links.add(7000);
        links.add(7000);
        for threads in [1, 4] {
            let s = survey(root.path(), threads, false).unwrap();
            assert_eq!(s.histogram, expected, "{threads} threads");
            assert_eq!(s.hard_links, links, "{threads} threads");
            assert_eq!((s.dirs, s.symlinks, s.unreadable.count), (41, 1, 0));
            // Every directory sampled (41 < the sample's bound), each with its files.
            let files: u64 = s.dir_sample.dirs().map(|d| d.files).sum();
            assert_eq!((s.dir_sample.dirs().count(), files), (41, 193));
        }
    }

    /// FIFOs and sockets exist on Unix only.
    #[cfg(unix)]
    #[test]
    fn special_files_are_counted_by_kind_and_never_opened() {
        let root = tempfile::tempdir().unwrap();
        crate::platform::make_fifo(&root.path().join("fifo")).unwrap();
        let _socket = std::os::unix::net::UnixListener::bind(root.path().join("socket")).unwrap();
        crate::platform::symlink(Path::new("fifo"), &root.path().join("link")).unwrap();
        fs::write(root.path().join("file"), b"abc").unwrap();
        let s = survey(root.path(), 2, false).unwrap();
        assert_eq!(
            (s.histogram.total_files(), s.special, s.symlinks),
            (1, 2, 1)
        );
        let skipped = Skipped {
            symlinks: 1,
            fifos: 1,
            sockets: 1,
            ..Skipped::default()
        };
        assert_eq!(s.skipped, skipped);
    }

    /// Unix permission bits make the directory unreadable; Windows would need an ACL.
    #[cfg(unix)]
    #[test]
    fn an_unreadable_directory_is_counted_not_fatal() {
        use std::os::unix::fs::PermissionsExt;
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
        let s = survey(root.path(), 2, false).unwrap();
        fs::set_permissions(&closed, fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(s.histogram.total_files(), 1);
        assert_eq!(s.unreadable.count, 1);
        assert!(s.unreadable.examples[0].starts_with("closed"));
    }
}
