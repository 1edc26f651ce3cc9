//! Tools of the fault matrix: a victim directory that must come through a run untouched (listed,
//! hashed with blake3, watched with inotify for changes and with fanotify for opens and reads,
//! which name the process: other processes of a shared machine may walk into the swapped
//! symlinks, only destbench's opens count), and a swapper thread that keeps replacing the
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
    /// inotify: creations, deletions, writes, attribute changes (by anyone).
    watch: OwnedFd,
    /// fanotify: opens and reads, with the process that made them.
    opens: OwnedFd,
}

/// What happened to the victim during a case.
pub struct Touched {
    /// Creations, deletions, writes and attribute changes.
    pub changes: u64,
    /// Opens and reads by the given processes (destbench's).
    pub ours: u64,
    /// Opens and reads by any other process (not counted against destbench).
    pub others: u64,
    /// Whether its listing and hashes are still those it started with.
    pub same: bool,
}

/// A fanotify group reporting opens and reads of `dirs` and their entries, by process.
fn fanotify_on(dirs: &[PathBuf]) -> OwnedFd {
    use std::os::fd::FromRawFd;
    use std::os::unix::ffi::OsStrExt;
    // SAFETY: fanotify_init takes only flags; a non-negative result is a new descriptor that
    // nothing else owns.
    let fd = unsafe {
        libc::fanotify_init(
            libc::FAN_CLASS_NOTIF | libc::FAN_CLOEXEC | libc::FAN_NONBLOCK | libc::FAN_REPORT_FID,
            libc::O_RDONLY as u32,
        )
    };
    assert!(
        fd >= 0,
        "fanotify_init: {}",
        std::io::Error::last_os_error()
    );
    // SAFETY: `fd` was just returned by fanotify_init and is owned here only.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let mask = libc::FAN_OPEN | libc::FAN_ACCESS | libc::FAN_ONDIR | libc::FAN_EVENT_ON_CHILD;
    for dir in dirs {
        let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).unwrap();
        // SAFETY: a valid fanotify descriptor and a NUL-terminated path that outlives the call.
        let rc = unsafe {
            libc::fanotify_mark(
                std::os::fd::AsRawFd::as_raw_fd(&fd),
                libc::FAN_MARK_ADD,
                mask,
                libc::AT_FDCWD,
                path.as_ptr(),
            )
        };
        assert_eq!(rc, 0, "fanotify_mark: {}", std::io::Error::last_os_error());
    }
    fd
}

/// The processes behind the events queued on the fanotify group `fd`.
fn opener_pids(fd: &OwnedFd) -> Vec<u32> {
    let mut pids = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    while let Ok(n) = rustix::io::read(fd, &mut buf) {
        let mut at = 0;
        // fanotify_event_metadata: event_len u32, vers u8, reserved u8, metadata_len u16,
        // mask u64, fd i32, pid i32; then FID records up to event_len.
        while at + 24 <= n {
            let len = u32::from_ne_bytes(buf[at..at + 4].try_into().unwrap()) as usize;
            let pid = i32::from_ne_bytes(buf[at + 20..at + 24].try_into().unwrap());
            pids.push(pid as u32);
            at += len.max(24);
        }
        if n == 0 {
            break;
        }
    }
    pids
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
        let flags = WatchFlags::MODIFY
            | WatchFlags::ATTRIB
            | WatchFlags::CREATE
            | WatchFlags::DELETE
            | WatchFlags::MOVE
            | WatchFlags::DELETE_SELF;
        let dirs: Vec<PathBuf> = ["", "d00000", "d00001"]
            .iter()
            .map(|sub| dir.path().join(sub))
            .collect();
        for d in &dirs {
            inotify::add_watch(&watch, d, flags).unwrap();
        }
        let opens = fanotify_on(&dirs);
        // The watch proves itself: a read of our own must be reported, with our pid.
        std::fs::read(dirs[1].join("victim000")).unwrap();
        let seen = opener_pids(&opens);
        assert!(
            seen.contains(&std::process::id()),
            "fanotify did not report a read of the victim: {seen:?}"
        );
        Victim {
            dir,
            before,
            watch,
            opens,
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// What was done to the victim since it was made; `ours` are destbench's processes. Every
    /// event is named on stderr.
    pub fn touched(&self, ours: &[u32]) -> Touched {
        let mut buf = [MaybeUninit::<u8>::uninit(); 8192];
        let mut reader = inotify::Reader::new(&self.watch, &mut buf);
        let mut changes = 0;
        while let Ok(event) = reader.next() {
            eprintln!(
                "victim changed: watch {} {:?} {:?}",
                event.wd(),
                event.events(),
                event.file_name()
            );
            changes += 1;
        }
        let (mut mine, mut others) = (0, 0);
        for pid in opener_pids(&self.opens) {
            let ours = ours.contains(&pid);
            eprintln!("victim opened or read by pid {pid} (destbench: {ours})");
            if ours { mine += 1 } else { others += 1 }
        }
        Touched {
            changes,
            ours: mine,
            others,
            same: listing(self.path()) == self.before,
        }
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
