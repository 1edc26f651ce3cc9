//! Tools of the fault matrix: a victim directory that must come through a run untouched (listed,
//! hashed with blake3 and watched with inotify), and a swapper thread that keeps replacing the
//! scratch directory's subdirectories with symlinks to the victim while destbench runs, as another
//! user of a shared NAS share could.

use std::collections::BTreeMap;
use std::mem::MaybeUninit;
use std::os::fd::OwnedFd;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;

use rustix::fs::inotify::{self, CreateFlags, WatchFlags};

/// A directory of files and subdirectories destbench must never write, read or delete.
pub struct Victim {
    dir: tempfile::TempDir,
    before: BTreeMap<String, String>,
    watch: OwnedFd,
}

/// Every entry under `dir` by relative path: its kind, and a blake3 of a file's content.
fn listing(dir: &Path) -> BTreeMap<String, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                out.insert(rel, "dir".into());
                walk(root, &path, out);
            } else if meta.is_file() {
                let hash = blake3::hash(&std::fs::read(&path).unwrap());
                out.insert(rel, format!("file {}", hash.to_hex()));
            } else {
                out.insert(rel, format!("other {:o}", meta.permissions().mode()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

impl Victim {
    /// 40 files in the victim and in two subdirectories, listed and hashed, then watched.
    pub fn new() -> Victim {
        let dir = tempfile::Builder::new()
            .prefix("destbench-victim-")
            .tempdir()
            .unwrap();
        for sub in ["", "d00000", "d00001"] {
            let at = dir.path().join(sub);
            std::fs::create_dir_all(&at).unwrap();
            for i in 0..40 {
                std::fs::write(at.join(format!("victim{i:03}")), format!("{sub} {i}")).unwrap();
            }
        }
        let before = listing(dir.path());
        let watch = inotify::init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK).unwrap();
        let flags = WatchFlags::OPEN
            | WatchFlags::ACCESS
            | WatchFlags::MODIFY
            | WatchFlags::ATTRIB
            | WatchFlags::CREATE
            | WatchFlags::DELETE
            | WatchFlags::MOVE
            | WatchFlags::DELETE_SELF;
        for sub in ["", "d00000", "d00001"] {
            inotify::add_watch(&watch, dir.path().join(sub), flags).unwrap();
        }
        Victim { dir, before, watch }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Events inotify saw on the victim since it was made (opens, reads, writes, creations,
    /// deletions; each named on stderr), and whether its listing and hashes are still those it
    /// started with.
    pub fn touched(&self) -> (u64, bool) {
        let mut buf = [MaybeUninit::<u8>::uninit(); 8192];
        let mut reader = inotify::Reader::new(&self.watch, &mut buf);
        let mut events = 0;
        while let Ok(event) = reader.next() {
            eprintln!(
                "victim event: watch {} {:?} {:?}",
                event.wd(),
                event.events(),
                event.file_name()
            );
            events += 1;
        }
        (events, listing(self.path()) == self.before)
    }
}

/// A thread swapping directories of every scratch directory it finds for symlinks to `victim`,
/// and back, until stopped.
pub struct Swapper {
    stop: Arc<AtomicBool>,
    attempts: Arc<AtomicU64>,
    thread: Option<JoinHandle<()>>,
}

/// The directories to swap: the scratch's subdirectories and theirs, never our own `.aside`.
fn candidates(destination: &Path) -> Vec<PathBuf> {
    let dirs_in = |dir: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .map(|rd| {
                rd.flatten()
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                    .map(|e| e.path())
                    .filter(|p| !p.to_string_lossy().ends_with(".aside"))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut found = Vec::new();
    for scratch in dirs_in(destination).into_iter().filter(|p| {
        p.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with(".destbench-")
    }) {
        for sub in dirs_in(&scratch) {
            found.extend(dirs_in(&sub).into_iter().take(4));
            found.push(sub);
        }
    }
    found
}

impl Swapper {
    /// Swaps in the scratch directories found in any of `places`.
    pub fn start(places: &[&Path], victim: &Path) -> Swapper {
        let stop = Arc::new(AtomicBool::new(false));
        let attempts = Arc::new(AtomicU64::new(0));
        let places: Vec<PathBuf> = places.iter().map(|p| p.to_path_buf()).collect();
        let victim = victim.to_path_buf();
        let thread = {
            let (stop, attempts) = (stop.clone(), attempts.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    for dir in places.iter().flat_map(|p| candidates(p)) {
                        let mut aside = dir.clone().into_os_string();
                        aside.push(".aside");
                        if std::fs::rename(&dir, &aside).is_err() {
                            continue;
                        }
                        if std::os::unix::fs::symlink(&victim, &dir).is_ok() {
                            attempts.fetch_add(1, Ordering::Relaxed);
                            std::thread::yield_now();
                            let _ = std::fs::remove_file(&dir);
                        }
                        let _ = std::fs::rename(&aside, &dir);
                    }
                    std::thread::yield_now();
                }
            })
        };
        Swapper {
            stop,
            attempts,
            thread: Some(thread),
        }
    }

    pub fn attempts(&self) -> u64 {
        self.attempts.load(Ordering::Relaxed)
    }

    /// Stops the thread; the number of swaps it made.
    pub fn stop(mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.join().unwrap();
        }
        self.attempts()
    }
}
