//! How I/O is issued: one trait, one file per backend.
//!
//! The trait is shaped like fio's `ioengine_ops`: a job `prepare`s a number of slots (queue depth,
//! each with its own aligned buffer), `submit`s requests that name a slot, and `reap`s completions.
//! File operations (open, close, evict, unlink) go through the engine too, and the file-tree tests
//! have their own engine operations ([`tree`]), so the `null` engine can stand in for the whole
//! destination and the runner can be tested with exact numbers.
//!
//! Buffer contract: a slot's buffer belongs to the engine. The caller may touch it through
//! [`Engine::buffer_mut`] only while that slot has no I/O in flight, i.e. before submitting it or
//! after its completion was reaped; the engines check this (asking for a busy slot's buffer
//! panics), so the kernel never shares memory with a `&mut`. Files may only be closed with no I/O
//! in flight on them.

mod buffer;
mod files;
mod null;
mod sync;
pub mod tree;
#[cfg(target_os = "linux")]
mod uring;

use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use buffer::AlignedBuf;
pub use files::FileTable;
pub use null::{NullEngine, NullTiming};
pub use sync::SyncEngine;
#[cfg(target_os = "linux")]
pub use uring::{UringEngine, probe as probe_uring};

/// io_uring is Linux's alone: elsewhere `auto` uses threads and `--engine uring` is refused.
#[cfg(not(target_os = "linux"))]
pub fn probe_uring() -> Result<(), String> {
    Err(format!(
        "io_uring is Linux's; this is {}",
        std::env::consts::OS
    ))
}

use crate::platform::HandleRef;
use crate::platform::OpenHow;

/// Which backend issues the I/O.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, strum::IntoStaticStr,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum EngineKind {
    /// `pread`/`pwrite` from the calling thread; worker threads for queue depths above 1.
    Sync,
    /// io_uring: one thread keeps the whole queue depth in flight.
    Uring,
    /// No I/O at all; deterministic latencies on a virtual clock (for testing).
    Null,
    /// Another program (`rsync -a`) did the I/O; destbench timed it.
    Program,
}

impl EngineKind {
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// What a backend can do, so the runner can adapt instead of assuming.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// Touches real files (false only for `null`). Without it there is nothing to evict, no page
    /// cache to drop, no space to check and no filesystem to flush, and time is virtual.
    pub real_io: bool,
    /// Keeps more than one request in flight from a single thread.
    pub asynchronous: bool,
    /// Uses worker threads to reach queue depths above one.
    pub threaded: bool,
}

impl Capabilities {
    /// What a backend of this kind can do at this queue depth.
    pub fn of(kind: EngineKind, depth: usize) -> Capabilities {
        match kind {
            EngineKind::Sync => Capabilities {
                real_io: true,
                asynchronous: false,
                threaded: depth > 1,
            },
            EngineKind::Uring | EngineKind::Program => Capabilities {
                real_io: true,
                asynchronous: true,
                threaded: false,
            },
            EngineKind::Null => Capabilities {
                real_io: false,
                asynchronous: true,
                threaded: false,
            },
        }
    }
}

/// A file opened through an engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileId(pub usize);

/// One operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Read,
    Write,
    /// `fdatasync` of the whole file (offset and length are ignored).
    Sync,
    /// The platform's full flush of the whole file (`platform::fsync`: `fsync` on Linux,
    /// F_FULLFSYNC on macOS), Time Machine's barrier.
    FullSync,
}

/// A request for one slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IoRequest {
    pub slot: usize,
    pub file: FileId,
    pub op: Op,
    pub offset: u64,
    pub len: usize,
}

/// A finished request.
#[derive(Debug)]
pub struct Completion {
    pub slot: usize,
    /// Bytes transferred, or the error.
    pub result: io::Result<usize>,
    /// From submission to the moment the engine saw it complete.
    pub latency: Duration,
}

/// An I/O backend. See the module docs for the buffer contract.
pub trait Engine {
    fn kind(&self) -> EngineKind;

    /// Monotonic time since the engine was created: the runner times everything with it, so the
    /// `null` engine's virtual clock yields exact figures.
    fn now(&self) -> Duration;

    /// Sets up `depth` slots with buffers of `buffer_len` bytes. No I/O may be in flight.
    fn prepare(&mut self, depth: usize, buffer_len: usize) -> io::Result<()>;

    /// The buffer of `slot`; only while the slot has no I/O in flight.
    fn buffer_mut(&mut self, slot: usize) -> &mut [u8];

    /// Queues a request. It may start at once (sync) or at the next `reap` (uring).
    fn submit(&mut self, request: IoRequest) -> io::Result<()>;

    /// Waits until at least `min` completions are available and appends all available ones.
    fn reap(&mut self, min: usize, out: &mut Vec<Completion>) -> io::Result<()>;

    /// Opens `name` inside `dir` (the scratch directory), never following symlinks.
    fn open(&mut self, dir: HandleRef<'_>, name: &str, how: OpenHow) -> io::Result<FileId>;

    /// Closes a file with no I/O in flight.
    fn close(&mut self, file: FileId) -> io::Result<()>;

    /// Sets a file's length (the tail of a direct write is written whole, then cut back).
    fn set_len(&mut self, file: FileId, len: u64) -> io::Result<()>;

    /// Drops the file's pages from the page cache; returns the fraction still resident
    /// afterwards, as `mincore` sees it (None when it cannot be checked).
    fn evict(&mut self, file: FileId, len: u64) -> io::Result<Option<f64>>;

    /// Removes `name` from `dir`.
    fn unlink(&mut self, dir: HandleRef<'_>, name: &str) -> io::Result<()>;

    /// Does the whole request synchronously: submit and wait for this one completion.
    /// Only valid when nothing else is in flight.
    fn run_one(&mut self, request: IoRequest) -> io::Result<Completion> {
        self.submit(request)?;
        let mut out = Vec::with_capacity(1);
        self.reap(1, &mut out)?;
        out.pop()
            .ok_or_else(|| io::Error::other("engine returned no completion"))
    }
}

/// What the user asked for with `--engine`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EngineChoice {
    /// sync at queue depth 1, io_uring above (when the kernel has it).
    #[default]
    Auto,
    Sync,
    Uring,
    Null(NullTiming),
}

impl EngineChoice {
    /// The name `--engine` gives it, as the results record it.
    pub fn name(self) -> &'static str {
        match self {
            EngineChoice::Auto => "auto",
            EngineChoice::Sync => "sync",
            EngineChoice::Uring => "uring",
            EngineChoice::Null(_) => "null",
        }
    }
}

/// Picks and builds engines for jobs, once io_uring has been probed.
pub struct EngineFactory {
    choice: EngineChoice,
    /// Why `auto` does not use io_uring here (not usable, or slow on this filesystem).
    auto_declines_uring: Option<String>,
    /// The tree every `null` tree engine of the run works on.
    virtual_tree: Arc<Mutex<tree::VirtualTree>>,
}

impl EngineFactory {
    /// Probes io_uring once. Fails when `--engine uring` was asked for and it is not usable.
    pub fn new(choice: EngineChoice) -> Result<Self, String> {
        let auto_declines_uring = match choice {
            EngineChoice::Auto | EngineChoice::Uring => probe_uring().err(),
            _ => None,
        };
        if let (EngineChoice::Uring, Some(problem)) = (choice, &auto_declines_uring) {
            return Err(format!("uring: io_uring is not usable here: {problem}"));
        }
        Ok(EngineFactory {
            choice,
            auto_declines_uring,
            virtual_tree: Arc::default(),
        })
    }

    /// `null` engines whose file trees live in `tree` (one with a capacity stands for a
    /// destination that fills up).
    #[cfg(all(test, unix))]
    pub fn null_on(timing: NullTiming, tree: tree::VirtualTree) -> Self {
        EngineFactory {
            choice: EngineChoice::Null(timing),
            auto_declines_uring: None,
            virtual_tree: Arc::new(Mutex::new(tree)),
        }
    }

    /// Engines of ordinary system calls: for what is never the destination (a backup's source).
    pub fn system() -> Self {
        EngineFactory {
            choice: EngineChoice::Sync,
            auto_declines_uring: None,
            virtual_tree: Arc::default(),
        }
    }

    /// Under `auto`, deep queues on an SMB share go to worker threads: the cifs client serves
    /// io_uring's queued direct I/O late and in bunches (see docs/engines.md).
    pub fn suit_filesystem(&mut self, filesystem: &str) {
        let slow_with_uring = matches!(filesystem, "cifs" | "smb3");
        if slow_with_uring
            && self.choice == EngineChoice::Auto
            && self.auto_declines_uring.is_none()
        {
            self.auto_declines_uring = Some(format!(
                "not on {filesystem}: its queued direct I/O came back late and in bunches"
            ));
        }
    }

    /// Why `auto` gives deep queues to worker threads instead of io_uring, if it does.
    pub fn auto_declines_uring(&self) -> Option<&str> {
        self.auto_declines_uring.as_deref()
    }

    /// Which backend a job with this queue depth gets.
    pub fn kind_for(&self, depth: usize) -> EngineKind {
        match self.choice {
            EngineChoice::Null(_) => EngineKind::Null,
            EngineChoice::Sync => EngineKind::Sync,
            EngineChoice::Uring => EngineKind::Uring,
            EngineChoice::Auto if depth > 1 && self.auto_declines_uring.is_none() => {
                EngineKind::Uring
            }
            EngineChoice::Auto => EngineKind::Sync,
        }
    }

    /// What the engines of this run can do (at queue depth 1; see [`Capabilities::of`]).
    pub fn capabilities(&self) -> Capabilities {
        Capabilities::of(self.kind_for(1), 1)
    }

    /// A fresh engine for a job with this queue depth.
    pub fn build(&self, depth: usize) -> io::Result<Box<dyn Engine>> {
        Ok(match (self.kind_for(depth), self.choice) {
            (EngineKind::Null, EngineChoice::Null(timing)) => Box::new(NullEngine::new(timing)),
            #[cfg(target_os = "linux")]
            (EngineKind::Uring, _) => Box::new(UringEngine::new(depth)?),
            _ => Box::new(SyncEngine::new()),
        })
    }

    /// A fresh file-tree engine for one thread: system calls whatever `--engine` says (io_uring
    /// copied small files no faster, for more CPU; see docs/engines.md), `null` under `null`.
    pub fn build_tree(&self) -> Box<dyn tree::TreeEngine> {
        match self.choice {
            EngineChoice::Null(timing) => {
                Box::new(tree::NullTree::new(timing, Arc::clone(&self.virtual_tree)))
            }
            _ => Box::new(tree::SystemTree::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_uses_threads_on_an_smb_share_and_keeps_an_explicit_choice() {
        let mut on_cifs = EngineFactory::new(EngineChoice::Auto).unwrap();
        on_cifs.suit_filesystem("cifs");
        assert_eq!(on_cifs.kind_for(8), EngineKind::Sync);
        assert!(on_cifs.auto_declines_uring().is_some());

        let mut on_nfs = EngineFactory::new(EngineChoice::Auto).unwrap();
        let before = on_nfs.auto_declines_uring().map(str::to_owned);
        on_nfs.suit_filesystem("nfs4");
        assert_eq!(on_nfs.auto_declines_uring().map(str::to_owned), before);

        let mut forced = EngineFactory::new(EngineChoice::Sync).unwrap();
        forced.suit_filesystem("cifs");
        assert!(forced.auto_declines_uring().is_none());
    }
}
