//! What the measurements of one run share: the context every test is given ([`Ctx`]: the
//! scratch, the engines, the access method, the programs' launcher, ...) and what one
//! repetition measured ([`Measured`]).

use std::rc::Rc;
use std::time::Duration;

use crate::engine::{Capabilities, Engine, EngineFactory, EngineKind};
use crate::error::{Error, Result};
use crate::platform::confine::Launcher;
use crate::probe::Chain;
use crate::results::{Details, FileSetInfo, Method, Repetition, Warning};
use crate::scratch::Scratch;
use crate::stats::LatencyHistogram;
use crate::workload::{DataStamper, Variant};

use crate::runner::access::Access;
use crate::runner::hook::RepetitionHook;
use crate::runner::sources;
use crate::runner::untimed;

/// What one repetition measured.
pub(super) struct Measured {
    pub(super) repetition: Repetition,
    pub(super) latency: LatencyHistogram,
    pub(super) method: Method,
    pub(super) engine: EngineKind,
    pub(super) warnings: Vec<Warning>,
    pub(super) file_set: Option<FileSetInfo>,
    /// Restored data that differs from its source: reported as a failure, not a slow run.
    pub(super) integrity_error: Option<String>,
    /// Figures beyond the rate (sustained, throttled).
    pub(super) details: Option<Details>,
}

/// State shared by the measurements of one run.
pub(super) struct Ctx<'a> {
    pub(super) scratch: &'a Scratch,
    pub(super) engines: &'a EngineFactory,
    pub(super) access: &'a Access,
    pub(super) stamper: &'a mut DataStamper,
    pub(super) series_interval: Duration,
    pub(super) seed: u64,
    pub(super) sources: sources::Sources,
    /// The chain probed before the run (the throttled test reads the device's scheduler in it).
    pub(super) chain: Option<&'a Chain>,
    /// Around each repetition: nothing alone, the other clients' barrier under MPI.
    pub(super) hook: &'a dyn RepetitionHook,
    /// The untimed work, timed as the tests do it.
    pub(super) ledger: Rc<untimed::Ledger>,
    /// How rsync is started on the destination (confined to the scratch), or why it is not.
    pub(super) programs: &'a Programs,
    /// On a share, what it makes durable, bytes/s: the test file's first part with its flush
    /// (`block::prepare_test_file`). A block write repetition writes no more than this makes
    /// durable in its time, so a server that holds writes in memory is not left flushing for
    /// many times the block duration.
    pub(super) durable_write: Option<f64>,
}

impl Ctx<'_> {
    /// Whether `variant` runs here: the engine does real I/O where it needs a device, and the
    /// program it starts may run on this destination.
    pub(super) fn can_run(&self, variant: &Variant) -> bool {
        can_run(self.engines.capabilities(), variant)
            && (self.programs.is_ok() || variant.workload.program().is_none())
    }

    /// How a variant's program is started; an error where it may not run (never planned so).
    pub(super) fn launcher(&self) -> Result<&Launcher> {
        self.programs
            .as_ref()
            .map_err(|why| Error::Usage(why.clone()))
    }

    pub(super) fn build_engine(&self, depth: usize) -> Result<Box<dyn Engine>> {
        self.engines
            .build(depth)
            .map_err(|e| Error::io("setting up the I/O engine", e))
    }

    /// Removes a file of the scratch directory through an engine, untimed and best effort (what
    /// a failed or finished test leaves behind).
    pub(super) fn remove_file(&self, name: &str) {
        if let Ok(mut engine) = self.engines.build(1) {
            let _ = engine.unlink(self.scratch.fd(), name);
        }
    }
}

/// Whether an engine with these capabilities can run the variant (the file-set tests run on the
/// null engine's virtual tree; see `TestId::needs_real_device`).
pub(super) fn can_run(capabilities: Capabilities, variant: &Variant) -> bool {
    capabilities.real_io || !variant.test.needs_real_device()
}

/// How the programs a run starts on the destination are started, or why they may not be.
pub(super) type Programs = std::result::Result<Launcher, String>;
