//! File trees, the way backup tools handle them: copy a tree with N threads pulling files from a
//! shared queue, read it back, verify it against its source, delete it.
//!
//! One walker thread streams the tree (creating destination directories before sending their
//! files, so workers never race a missing parent) into a bounded channel; the workers take files
//! from it. Nothing grows with the file count except the list of directories, whose metadata is
//! restored after their contents. Sources are only ever opened read-only, without following
//! symlinks; destinations are created exclusively.

pub mod scan;
mod uring_copy;
pub mod walk;

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::interrupt;
use crate::platform;
use crate::stats::{LatencyHistogram, ThroughputSeries};
use crate::units::format_bytes;
use walk::{Found, walk};

/// Up to this many example paths are kept for each kind of problem.
const EXAMPLES: usize = 10;
/// Files handed to a worker at once (all from one directory); also the io_uring batch.
const BATCH: usize = uring_copy::MAX_BATCH;
/// Read/write buffer of each worker: big enough to stream large files efficiently.
const BUFFER: usize = 1 << 20;

/// A count of problems with a few examples.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Listed {
    pub count: u64,
    pub examples: Vec<String>,
}

impl Listed {
    fn add(&mut self, what: String) {
        self.count += 1;
        if self.examples.len() < EXAMPLES {
            self.examples.push(what);
        }
    }

    fn merge(&mut self, other: Listed) {
        self.count += other.count;
        for e in other.examples {
            if self.examples.len() < EXAMPLES {
                self.examples.push(e);
            }
        }
    }
}

/// What to do with the tree at `root`.
#[derive(Debug, Clone)]
pub enum Task {
    /// Copy into `dst` (which must exist and be empty), keeping mode and times. With
    /// `durable_each`, every file is fsync'd before its thread takes the next ("write cache
    /// off"); otherwise one syncfs at the end makes the whole copy durable ("cache on").
    /// With `uring`, small files go through io_uring in batches (see `uring_copy`).
    Copy {
        dst: PathBuf,
        durable_each: bool,
        uring: bool,
    },
    /// Read every file to the end.
    Read,
    /// Compare every file's blake3 with the file at the same place under `source`.
    Verify { source: PathBuf },
    /// Delete every file and directory under root (not root itself), then syncfs.
    Delete,
}

/// What a task did. `elapsed` runs from the start of the walk to the end of the final flush.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub files: u64,
    pub bytes: u64,
    pub dirs: u64,
    pub symlinks: u64,
    pub special: Listed,
    pub unreadable: Listed,
    pub mismatches: Listed,
    pub latency: LatencyHistogram,
    pub series: ThroughputSeries,
    pub elapsed: Duration,
    /// CPU time of the whole process meanwhile.
    pub cpu: Duration,
}

/// Files and bytes done so far, for progress.
#[derive(Debug, Default)]
pub struct Live {
    pub files: AtomicU64,
    pub bytes: AtomicU64,
}

/// Per-worker results, merged at the end.
struct WorkerResult {
    files: u64,
    bytes: u64,
    unreadable: Listed,
    mismatches: Listed,
    latency: LatencyHistogram,
    series: ThroughputSeries,
}

/// Why a file could not be handled.
enum FileError {
    /// The source could not be read: counted and listed, the task goes on.
    Source(io::Error),
    /// The destination failed: the task stops.
    Destination(io::Error),
}

/// Runs `task` over the tree at `root` with `threads` workers. `tick` is called about ten times
/// a second with the live counters (for progress).
pub fn run(
    task: &Task,
    root: &Path,
    threads: usize,
    series_interval: Duration,
    what: &str,
    tick: &mut dyn FnMut(&Live),
) -> Result<Outcome> {
    // Read the umask while this is the only thread that could be creating files.
    platform::umask();
    let start = Instant::now();
    let cpu_start = platform::process_cpu_time();
    let live = Live::default();
    let stop = AtomicBool::new(false);
    let fatal: Mutex<Option<Error>> = Mutex::new(None);
    let fail = |e: Error| {
        stop.store(true, Ordering::SeqCst);
        let mut slot = fatal.lock().expect("fatal lock");
        slot.get_or_insert(e);
    };
    let (sender, receiver) = crossbeam_channel::bounded::<Vec<PathBuf>>(64);

    let (walked, workers) = std::thread::scope(|scope| {
        let walker = scope.spawn(|| {
            let mut walked = Walked::default();
            let mut batch: Vec<PathBuf> = Vec::with_capacity(BATCH);
            let result = walk(root, |found| {
                if stop.load(Ordering::Relaxed) {
                    return false;
                }
                match walked.visit(task, root, found) {
                    Ok(Some(file)) => {
                        // A batch holds files of one directory, so threads mostly work in
                        // different directories instead of queueing on one directory's lock.
                        let other_dir = batch
                            .last()
                            .is_some_and(|last| last.parent() != file.parent());
                        let full = other_dir || batch.len() == BATCH;
                        let sent = !full || sender.send(std::mem::take(&mut batch)).is_ok();
                        batch.push(file);
                        sent
                    }
                    Ok(None) => true,
                    Err(e) => {
                        fail(e);
                        false
                    }
                }
            });
            if let Err(e) = result {
                fail(Error::io(format!("reading {}", root.display()), e));
            }
            if !batch.is_empty() {
                let _ = sender.send(batch);
            }
            drop(sender);
            walked
        });
        let handles: Vec<_> = (0..threads.max(1))
            .map(|_| {
                let receiver = receiver.clone();
                let (live, stop, fail) = (&live, &stop, &fail);
                scope.spawn(move || {
                    worker(
                        task,
                        root,
                        &receiver,
                        start,
                        series_interval,
                        live,
                        stop,
                        fail,
                    )
                })
            })
            .collect();
        drop(receiver);
        while !(walker.is_finished() && handles.iter().all(|h| h.is_finished())) {
            std::thread::sleep(Duration::from_millis(50));
            tick(&live);
            if let Err(e) = interrupt::check() {
                fail(e);
            }
        }
        let walked = walker.join().expect("walker thread");
        let workers: Vec<WorkerResult> = handles
            .into_iter()
            .map(|h| h.join().expect("worker thread"))
            .collect();
        (walked, workers)
    });
    if let Some(e) = fatal.into_inner().expect("fatal lock") {
        let done_files: u64 = workers.iter().map(|w| w.files).sum();
        let done_bytes: u64 = workers.iter().map(|w| w.bytes).sum();
        return Err(match e {
            Error::DestinationFull { during } => Error::DestinationFull {
                during: format!(
                    "{what}: {during}, after {done_files} files / {}",
                    format_bytes(done_bytes)
                ),
            },
            other => other,
        });
    }
    finish(task, root, &walked)?;
    let mut outcome = Outcome {
        files: 0,
        bytes: 0,
        dirs: walked.dirs.len() as u64,
        symlinks: walked.symlinks,
        special: walked.special,
        unreadable: walked.unreadable,
        mismatches: Listed::default(),
        latency: LatencyHistogram::default(),
        series: ThroughputSeries::new(series_interval),
        elapsed: Duration::ZERO,
        cpu: Duration::ZERO,
    };
    for w in workers {
        outcome.files += w.files;
        outcome.bytes += w.bytes;
        outcome.unreadable.merge(w.unreadable);
        outcome.mismatches.merge(w.mismatches);
        outcome.latency += &w.latency;
        outcome.series += &w.series;
    }
    outcome.elapsed = start.elapsed();
    outcome.cpu = platform::process_cpu_time().saturating_sub(cpu_start);
    Ok(outcome)
}

/// What the walker saw besides files.
#[derive(Default)]
struct Walked {
    /// Directories in the order found (parents first), with their source metadata.
    dirs: Vec<(PathBuf, fs::Metadata)>,
    symlinks: u64,
    special: Listed,
    unreadable: Listed,
}

impl Walked {
    /// Handles one entry; returns a file to queue for the workers.
    fn visit(&mut self, task: &Task, root: &Path, found: Found) -> Result<Option<PathBuf>> {
        match found {
            Found::Dir(rel, meta) => {
                if let Task::Copy { dst, .. } = task {
                    // Owner-writable until its files are in; the real mode is set at the end.
                    let path = dst.join(&rel);
                    fs::create_dir(&path)
                        .map_err(|e| Error::io(format!("creating {}", path.display()), e))?;
                }
                self.dirs.push((rel, meta));
                Ok(None)
            }
            Found::File(rel) => Ok(Some(rel)),
            Found::Symlink(rel) => {
                self.symlinks += 1;
                match task {
                    Task::Copy { dst, .. } => {
                        // The link is copied as a link; its target is never followed.
                        let target = fs::read_link(root.join(&rel));
                        match target {
                            Ok(target) => {
                                let path = dst.join(&rel);
                                std::os::unix::fs::symlink(&target, &path).map_err(|e| {
                                    Error::io(format!("creating {}", path.display()), e)
                                })?;
                            }
                            Err(e) => self.unreadable.add(format!("{}: {e}", rel.display())),
                        }
                        Ok(None)
                    }
                    Task::Delete => Ok(Some(rel)),
                    Task::Read | Task::Verify { .. } => Ok(None),
                }
            }
            Found::Special(rel) => {
                self.special.add(rel.display().to_string());
                Ok(None)
            }
            Found::Unreadable(rel, e) => {
                self.unreadable.add(format!("{}: {e}", rel.display()));
                Ok(None)
            }
        }
    }
}

/// After the files: directory metadata for a copy, directory removal for a delete, and the
/// final flush, all inside the timing.
fn finish(task: &Task, root: &Path, walked: &Walked) -> Result<()> {
    match task {
        Task::Copy {
            dst, durable_each, ..
        } => {
            // Deepest first, so setting a directory's times is the last change inside it.
            for (rel, meta) in walked.dirs.iter().rev() {
                let path = dst.join(rel);
                let dir = File::open(&path)
                    .map_err(|e| Error::io(format!("opening {}", path.display()), e))?;
                keep_metadata(&dir, meta)
                    .map_err(|e| Error::io(format!("setting times of {}", path.display()), e))?;
                if *durable_each {
                    dir.sync_all()
                        .map_err(|e| Error::io(format!("syncing {}", path.display()), e))?;
                }
            }
            flush(dst)
        }
        Task::Delete => {
            for (rel, _) in walked.dirs.iter().rev() {
                let path = root.join(rel);
                fs::remove_dir(&path)
                    .map_err(|e| Error::io(format!("removing {}", path.display()), e))?;
            }
            flush(root)
        }
        Task::Read | Task::Verify { .. } => Ok(()),
    }
}

/// syncfs on the filesystem holding `dir`.
pub fn flush(dir: &Path) -> Result<()> {
    let file = File::open(dir).map_err(|e| Error::io(format!("opening {}", dir.display()), e))?;
    platform::syncfs(file.as_fd()).map_err(|e| Error::io(format!("flushing {}", dir.display()), e))
}

fn keep_metadata(file: &File, meta: &fs::Metadata) -> io::Result<()> {
    file.set_permissions(fs::Permissions::from_mode(
        meta.permissions().mode() & 0o7777,
    ))?;
    file.set_times(
        fs::FileTimes::new()
            .set_modified(meta.modified()?)
            .set_accessed(meta.accessed()?),
    )
}

#[allow(clippy::too_many_arguments)]
fn worker(
    task: &Task,
    root: &Path,
    queue: &crossbeam_channel::Receiver<Vec<PathBuf>>,
    start: Instant,
    series_interval: Duration,
    live: &Live,
    stop: &AtomicBool,
    fail: &(dyn Fn(Error) + Sync),
) -> WorkerResult {
    let mut result = WorkerResult {
        files: 0,
        bytes: 0,
        unreadable: Listed::default(),
        mismatches: Listed::default(),
        latency: LatencyHistogram::default(),
        series: ThroughputSeries::new(series_interval),
    };
    let mut buffer = vec![0u8; BUFFER];
    let pipe = match task {
        Task::Copy { .. } => platform::SplicePipe::new().ok(),
        _ => None,
    };
    let mut other = vec![
        0u8;
        if matches!(task, Task::Verify { .. }) {
            BUFFER
        } else {
            0
        }
    ];
    let mut uring = match task {
        Task::Copy { uring: true, .. } => uring_copy::UringCopier::new().ok(),
        _ => None,
    };
    'batches: for batch in queue.iter() {
        // Small files of a copy go through io_uring in one go; the latency of each is its
        // batch's. None: the file takes the ordinary path below.
        let batched: Vec<Option<(Result<u64, FileError>, Duration)>> = match (task, uring.as_mut())
        {
            (
                Task::Copy {
                    dst, durable_each, ..
                },
                Some(copier),
            ) if batch.len() <= uring_copy::MAX_BATCH => {
                let paths: Vec<(PathBuf, PathBuf)> = batch
                    .iter()
                    .map(|rel| (root.join(rel), dst.join(rel)))
                    .collect();
                let pairs: Vec<(&Path, &Path)> = paths
                    .iter()
                    .map(|(s, d)| (s.as_path(), d.as_path()))
                    .collect();
                let began = Instant::now();
                let outcomes = copier.copy_batch(&pairs, *durable_each, platform::umask());
                let took = began.elapsed();
                outcomes
                    .into_iter()
                    .map(|c| match c {
                        uring_copy::Copied::Done(n) => Some((Ok(n), took)),
                        uring_copy::Copied::TooBig => None,
                        uring_copy::Copied::Source(e) => Some((Err(FileError::Source(e)), took)),
                        uring_copy::Copied::Destination(e) => {
                            Some((Err(FileError::Destination(e)), took))
                        }
                    })
                    .collect()
            }
            _ => batch.iter().map(|_| None).collect(),
        };
        for (rel, pre) in batch.iter().zip(batched) {
            if stop.load(Ordering::Relaxed) {
                break 'batches;
            }
            let (done, latency) = match pre {
                Some(pre) => pre,
                None => {
                    let began = Instant::now();
                    let done = handle(
                        task,
                        root,
                        rel,
                        &mut buffer,
                        &mut other,
                        pipe.as_ref(),
                        &mut result,
                    );
                    (done, began.elapsed())
                }
            };
            let now = Instant::now();
            match done {
                Ok(bytes) => {
                    result.files += 1;
                    result.bytes += bytes;
                    result.latency.record(latency);
                    result.series.record(now - start, bytes);
                    live.files.fetch_add(1, Ordering::Relaxed);
                    live.bytes.fetch_add(bytes, Ordering::Relaxed);
                }
                Err(FileError::Source(e)) => {
                    result.unreadable.add(format!("{}: {e}", rel.display()))
                }
                Err(FileError::Destination(e)) => {
                    fail(Error::io(format!("writing {}", rel.display()), e));
                    break 'batches;
                }
            }
        }
    }
    result
}

/// Does the task's work on one file the ordinary way (system calls from this thread).
fn handle(
    task: &Task,
    root: &Path,
    rel: &Path,
    buffer: &mut [u8],
    other: &mut [u8],
    pipe: Option<&platform::SplicePipe>,
    result: &mut WorkerResult,
) -> Result<u64, FileError> {
    match task {
        Task::Copy {
            dst, durable_each, ..
        } => copy_file(&root.join(rel), &dst.join(rel), buffer, pipe, *durable_each),
        Task::Read => read_file(&root.join(rel), buffer).map_err(FileError::Source),
        Task::Verify { source } => {
            match (
                hash_file(&root.join(rel), buffer),
                hash_file(&source.join(rel), other),
            ) {
                (Ok((a, n)), Ok((b, _))) => {
                    if a != b {
                        result.mismatches.add(rel.display().to_string());
                    }
                    Ok(n)
                }
                (Err(e), _) => {
                    result.mismatches.add(format!("{}: {e}", rel.display()));
                    Ok(0)
                }
                (_, Err(e)) => Err(FileError::Source(e)),
            }
        }
        Task::Delete => fs::remove_file(root.join(rel))
            .map(|()| 0)
            .map_err(FileError::Destination),
    }
}

/// Copies one file, keeping mode and times; returns the bytes copied. Data moves through the
/// kernel (`pipe`) where the filesystems allow, through `buffer` otherwise.
fn copy_file(
    src: &Path,
    dst: &Path,
    buffer: &mut [u8],
    pipe: Option<&platform::SplicePipe>,
    durable: bool,
) -> Result<u64, FileError> {
    let mut source = open_read(src).map_err(FileError::Source)?;
    let meta = source.metadata().map_err(FileError::Source)?;
    let mode = meta.permissions().mode() & 0o7777;
    let mut target = OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(platform::O_NOFOLLOW)
        .mode(mode)
        .open(dst)
        .map_err(FileError::Destination)?;
    let size = meta.len();
    let spliced = match pipe.map(|p| p.copy(source.as_fd(), target.as_fd(), size)) {
        Some(Ok(n)) => Ok(Some(n)),
        None | Some(Err(platform::SpliceError::Unsupported)) => Ok(None),
        Some(Err(platform::SpliceError::Destination(e))) => Err(FileError::Destination(e)),
        Some(Err(platform::SpliceError::Source(e))) => Err(FileError::Source(e)),
    };
    let copied = match spliced {
        Ok(Some(n)) => Ok(n),
        Ok(None) => copy_through(&mut source, &mut target, buffer, size),
        Err(e) => Err(e),
    };
    let copied = match copied {
        Ok(n) => n,
        Err(FileError::Source(e)) => {
            // An unreadable source leaves no partial copy behind.
            drop(target);
            let _ = fs::remove_file(dst);
            return Err(FileError::Source(e));
        }
        Err(e) => return Err(e),
    };
    // The create mode went through the umask; set it only when that changed it.
    if mode & !platform::umask() != mode {
        target
            .set_permissions(fs::Permissions::from_mode(mode))
            .map_err(FileError::Destination)?;
    }
    let times = fs::FileTimes::new()
        .set_modified(meta.modified().map_err(FileError::Source)?)
        .set_accessed(meta.accessed().map_err(FileError::Source)?);
    target.set_times(times).map_err(FileError::Destination)?;
    if durable {
        target.sync_all().map_err(FileError::Destination)?;
    }
    Ok(copied)
}

/// Copies `size` bytes (the size when opened; less if the file shrank) through `buffer`.
fn copy_through(
    source: &mut File,
    target: &mut File,
    buffer: &mut [u8],
    size: u64,
) -> Result<u64, FileError> {
    let mut copied = 0u64;
    while copied < size {
        let want = (size - copied).min(buffer.len() as u64) as usize;
        let n = match source.read(&mut buffer[..want]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(FileError::Source(e)),
        };
        target
            .write_all(&buffer[..n])
            .map_err(FileError::Destination)?;
        copied += n as u64;
    }
    Ok(copied)
}

fn open_read(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(platform::O_NOFOLLOW)
        .open(path)
}

fn read_file(path: &Path, buffer: &mut [u8]) -> io::Result<u64> {
    let mut file = open_read(path)?;
    let mut total = 0u64;
    loop {
        match file.read(buffer) {
            Ok(0) => return Ok(total),
            Ok(n) => total += n as u64,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
}

fn hash_file(path: &Path, buffer: &mut [u8]) -> io::Result<(blake3::Hash, u64)> {
    let mut file = open_read(path)?;
    let mut hasher = blake3::Hasher::new();
    let mut total = 0u64;
    loop {
        match file.read(buffer) {
            Ok(0) => return Ok((hasher.finalize(), total)),
            Ok(n) => {
                hasher.update(&buffer[..n]);
                total += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
}

/// Drops every file of the tree from the page cache; returns the fraction of the first files'
/// pages still resident afterwards (None if nothing could be checked).
pub fn evict(root: &Path) -> Result<Option<f64>> {
    let mut checked = 0u32;
    let (mut resident, mut sampled) = (0.0, 0u32);
    let mut problem = None;
    walk(root, |found| {
        if let Found::File(rel) = found {
            match open_read(&root.join(&rel)) {
                Ok(file) => {
                    let _ = platform::evict(file.as_fd());
                    if checked < 64 {
                        checked += 1;
                        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
                        if len > 0
                            && let Ok(fraction) = platform::resident_fraction(file.as_fd(), len)
                        {
                            resident += fraction;
                            sampled += 1;
                        }
                    }
                }
                Err(e) => problem = Some(e),
            }
        }
        true
    })
    .map_err(|e| Error::io(format!("reading {}", root.display()), e))?;
    if let Some(e) = problem {
        return Err(Error::io(
            format!("evicting files under {}", root.display()),
            e,
        ));
    }
    Ok((sampled > 0).then(|| resident / sampled as f64))
}

#[cfg(test)]
mod tests;
