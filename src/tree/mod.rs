//! File trees, the way backup tools handle them: copy a tree with N threads pulling files from a
//! shared queue, read it back, verify it against its source, delete it.
//!
//! Every operation on the tree a task is about goes through the run's tree engine
//! ([`crate::engine::tree`]): real engines run the task on threads (`threads`), the `null` engine
//! on virtual lanes with exact timings (`lanes`). A dispatcher (`dispatch`) streams the tree through
//! the one ordered walk (`walk`), creating destination directories before handing out their
//! files, so workers never race a missing parent; nothing
//! grows with the file count except the list of directories, whose metadata is restored after
//! their contents. Sources are only ever opened read-only, relative to their directory and
//! without following symlinks; destinations are created exclusively.
//!
//! `survey` is the other way through a tree: counts only, no order, its threads listing
//! directories side by side (`destbench estimate` and a `--source`'s sizes); `size_classes` is what
//! it keeps.

pub mod dir_sample;
mod dispatch;
mod file;
mod fine_sizes;
mod lanes;
mod program;
pub mod size_classes;
mod skipped;
pub mod survey;
mod threads;
pub mod walk;

use std::ffi::OsStr;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::engine::tree::{CopyError, Dir, EntryKind, Root, TreeEngine};
use crate::engine::{EngineFactory, EngineKind};
use crate::error::{Error, Result};
use crate::platform::{self, AsHandleRef, Handle};
use crate::stats::{LatencyHistogram, ThroughputSeries};
use crate::units::format_bytes;
use file::Done;
pub use program::{ProgramCopy, timed_copy};
pub use skipped::Skipped;

/// Up to this many example paths are kept for each kind of problem.
const EXAMPLES: usize = 10;
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
    Copy { dst: Root, durable_each: bool },
    /// Read every file to the end.
    Read,
    /// Compare every file's blake3 with the file at the same place under `source`.
    Verify { source: Root },
    /// Delete every file and directory under root (not root itself), then syncfs.
    Delete,
}

/// What a task did. `elapsed` runs from the start of the walk to the end of the final flush.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub files: u64,
    pub bytes: u64,
    pub dirs: u64,
    pub special: Listed,
    pub unreadable: Listed,
    /// What the task left out, by kind (the unreadable ones included).
    pub skipped: Skipped,
    pub mismatches: Listed,
    pub latency: LatencyHistogram,
    pub series: ThroughputSeries,
    pub elapsed: Duration,
    /// CPU time of the whole process meanwhile.
    pub cpu: Duration,
    /// The engine that did the task's I/O.
    pub engine: EngineKind,
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

impl WorkerResult {
    fn new(series_interval: Duration) -> Self {
        WorkerResult {
            files: 0,
            bytes: 0,
            unreadable: Listed::default(),
            mismatches: Listed::default(),
            latency: LatencyHistogram::default(),
            series: ThroughputSeries::new(series_interval),
        }
    }

    /// Counts one file that took `latency` and ended `at` (from the start of the task). An
    /// unreadable source is listed and the task goes on; a failing destination stops it.
    fn record(
        &mut self,
        rel: &Path,
        done: std::result::Result<Done, CopyError>,
        latency: Duration,
        at: Duration,
        live: &Live,
    ) -> Result<()> {
        let bytes = match done {
            Ok(Done::Bytes(bytes)) => bytes,
            Ok(Done::Mismatch(what, bytes)) => {
                self.mismatches.add(what);
                bytes
            }
            Err(CopyError::Source(e)) => {
                self.unreadable.add(format!("{}: {e}", rel.display()));
                return Ok(());
            }
            Err(CopyError::Destination(e)) => {
                return Err(Error::io(format!("writing {}", rel.display()), e));
            }
        };
        self.files += 1;
        self.bytes += bytes;
        self.latency.record(latency);
        self.series
            .record_span(at.saturating_sub(latency), at, bytes);
        live.files.fetch_add(1, Ordering::Relaxed);
        live.bytes.fetch_add(bytes, Ordering::Relaxed);
        Ok(())
    }
}

/// A task to run, as the threads and the lanes both take it.
struct Job<'a> {
    task: &'a Task,
    root: &'a Root,
    engines: &'a EngineFactory,
    threads: usize,
    series_interval: Duration,
}

impl Job<'_> {
    /// The engines of one worker.
    fn worker_engines(&self) -> file::Engines {
        file::Engines::new(self.task, self.engines.build_tree())
    }
}

/// What the workers of a task did, however they ran.
struct Ran {
    walked: dispatch::Walked,
    workers: Vec<WorkerResult>,
    /// The first error that stopped the task.
    fatal: Option<Error>,
    engine: EngineKind,
}

/// Runs `task` over the tree at `root` with `threads` workers, the tree's I/O through `engines`.
/// `tick` is called now and then with the live counters (for progress).
pub fn run(
    task: &Task,
    root: &Root,
    engines: &EngineFactory,
    threads: usize,
    series_interval: Duration,
    what: &str,
    tick: &mut dyn FnMut(&Live),
) -> Result<Outcome> {
    // Read the umask while this is the only thread that could be creating files.
    platform::umask();
    let cpu_start = platform::process_cpu_time();
    let job = Job {
        task,
        root,
        engines,
        threads: threads.max(1),
        series_interval,
    };
    let (ran, elapsed) = if engines.capabilities().real_io {
        threads::run(&job, tick)?
    } else {
        lanes::run(&job, tick)?
    };
    let Ran {
        walked,
        workers,
        fatal,
        engine,
    } = ran;
    if let Some(e) = fatal {
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
    let mut outcome = Outcome {
        files: 0,
        bytes: 0,
        dirs: walked.dirs.len() as u64,
        special: walked.special,
        unreadable: walked.unreadable,
        skipped: walked.skipped,
        mismatches: Listed::default(),
        latency: LatencyHistogram::default(),
        series: ThroughputSeries::new(series_interval),
        elapsed,
        cpu: Duration::ZERO,
        engine,
    };
    for w in workers {
        outcome.files += w.files;
        outcome.bytes += w.bytes;
        outcome.skipped.unreadable += w.unreadable.count;
        outcome.unreadable.merge(w.unreadable);
        outcome.mismatches.merge(w.mismatches);
        outcome.latency += &w.latency;
        outcome.series += &w.series;
    }
    outcome.cpu = platform::process_cpu_time().saturating_sub(cpu_start);
    Ok(outcome)
}

/// Drops every file of the tree from the page cache; returns the fraction of the first files'
/// pages still resident afterwards (None if nothing could be checked).
pub fn evict(root: &Root, engines: &EngineFactory) -> Result<Option<f64>> {
    let reading = |e| Error::io(format!("reading {}", root.path().display()), e);
    let mut engine = engines.build_tree();
    let dir = engine.open_root(root).map_err(reading)?;
    let mut walk = walk::Walk::new(engine.as_mut(), dir, None).map_err(reading)?;
    let (mut checked, mut resident, mut sampled) = (0u32, 0.0, 0u32);
    let mut problem = None;
    while let Some(found) = walk.next(engine.as_mut()) {
        let walk::Found::File(place) = found else {
            continue;
        };
        match engine.open(&place.dir, &place.name) {
            Ok(file) => {
                let fraction = engine.evict(file);
                if checked < 64 {
                    checked += 1;
                    if let Ok(Some(fraction)) = fraction {
                        resident += fraction;
                        sampled += 1;
                    }
                }
                let _ = engine.close(file);
            }
            Err(e) => problem = Some(e),
        }
    }
    if let Some(e) = problem {
        return Err(Error::io(
            format!("evicting files under {}", root.path().display()),
            e,
        ));
    }
    Ok((sampled > 0).then(|| resident / sampled as f64))
}

/// Refuses a tree on a kernel pseudo-filesystem (`/proc`, `/sys`...): nothing there is data to
/// back up, and some of its files block or never end.
pub fn refuse_pseudo(root: &Path, dir: &Handle) -> Result<()> {
    match platform::pseudo_filesystem(dir.handle_ref()) {
        Ok(Some(kind)) => Err(Error::Destination {
            path: root.to_path_buf(),
            problem: format!(
                "is on the kernel's {kind} filesystem, not a folder of files to back up"
            ),
        }),
        _ => Ok(()),
    }
}

/// Makes the directory `name` in `parent`, through the run's engine.
pub fn make_dir(parent: &Root, name: &str, engines: &EngineFactory) -> Result<Root> {
    let made = parent.join(name);
    let mut engine = engines.build_tree();
    engine
        .open_root(parent)
        .and_then(|dir| engine.mkdir(&dir, name.as_ref()))
        .map_err(|e| Error::io(format!("creating {}", made.path().display()), e))?;
    Ok(made)
}

/// Removes the directory `name` in `parent` and everything in it, untimed, through the run's
/// engine (best effort: what cannot be removed stays), then syncs the filesystem, so the removal
/// (its journal, its discards) is over before whatever is timed next. Every directory is opened
/// from its parent's handle without following a symlink: a directory swapped for a link is
/// unlinked as a link, never entered.
pub fn remove_all(parent: &Root, name: &str, engines: &EngineFactory) {
    fn remove(engine: &mut dyn TreeEngine, parent: &Dir, name: &OsStr) {
        if let Ok(dir) = engine.open_dir(parent, name) {
            for entry in engine.list(&dir).unwrap_or_default() {
                if entry.kind == EntryKind::Dir {
                    remove(engine, &dir, &entry.name);
                } else {
                    let _ = engine.unlink(&dir, &entry.name);
                }
            }
        }
        if engine.rmdir(parent, name).is_err() {
            // A symlink (or file) put where the directory was: it goes, what it points at stays.
            let _ = engine.unlink(parent, name);
        }
    }
    let mut engine = engines.build_tree();
    if let Ok(dir) = engine.open_root(parent) {
        remove(engine.as_mut(), &dir, name.as_ref());
        let _ = engine.syncfs(&dir);
    }
}

/// Copies with Unix modes, FIFOs and symlinks to /etc: Unix semantics, run on Unix.
#[cfg(all(test, unix))]
mod tests;
