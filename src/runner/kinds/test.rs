//! A test as the runner sees it: one trait, implemented once per kind of workload in that test's
//! own file (`block.rs`, `files.rs`, `sets/`, `meta.rs`, `sustained.rs`, `throttled.rs`,
//! `tm_backup.rs`), so what a test plans (space, time, the shape its result records) and what it
//! runs (prepare, measure, clean up) live side by side and cannot disagree. A new test is one file implementing
//! [`Test`], an arm in `kinds::test_for`, and its variants in `workload::suite`.

use crate::error::Result;
use crate::results::{OpKind, Unit};
use crate::settings::RunPlan;
use crate::workload::SetName;

use crate::runner::ctx::{Ctx, Measured};
use crate::runner::progress::Progress;
use crate::runner::untimed::Work;

/// What a test's result records of its I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::runner) struct Shape {
    pub block_size: u64,
    pub queue_depth: usize,
    pub op_kind: OpKind,
    pub unit: Unit,
    /// Threads issuing the work.
    pub threads: usize,
}

impl Shape {
    /// One thread issuing `block`-byte requests, `depth` in flight, rated in MB/s.
    pub fn io(block: usize, depth: usize) -> Shape {
        Shape {
            block_size: block as u64,
            queue_depth: depth,
            op_kind: OpKind::Io,
            unit: Unit::MegabytesPerSecond,
            threads: 1,
        }
    }
}

/// What one repetition works with: the run's context and plan, which repetition it is, and
/// where it reports progress.
pub(in crate::runner) struct Rep<'r, 'c> {
    pub ctx: &'r mut Ctx<'c>,
    pub plan: &'r RunPlan,
    pub index: usize,
    pub progress: &'r mut dyn Progress,
}

/// One kind of test: what it plans and how it runs. A variant's test object lives for all its
/// repetitions, so what `prepare` makes, `measure` uses and `clean_up` removes.
pub(in crate::runner) trait Test {
    /// What its result records of its I/O.
    fn shape(&self) -> Shape;

    /// Bytes it keeps on the destination at its peak, beside the block tests' shared file.
    fn space_needed(&self, _plan: &RunPlan) -> u64 {
        0
    }

    /// The seconds one repetition runs for, or at least (for the ETA and the budget); a test
    /// whose work is fixed plans none, and its bytes in [`Test::planned_bytes`].
    fn planned_s(&self, _plan: &RunPlan) -> f64 {
        0.0
    }

    /// The bytes one repetition moves however long that takes (0 for a test that runs for a
    /// time): the ETA predicts them at the rate the destination has shown.
    fn planned_bytes(&self, _plan: &RunPlan) -> u64 {
        0
    }

    /// The files one repetition writes, each priced beyond its bytes (a share's round trips);
    /// 0 for a test whose files cost it no more than its time.
    fn planned_files(&self, _plan: &RunPlan) -> u64 {
        0
    }

    /// Whether what a repetition took teaches the ETA the destination's rate and price of a
    /// file, which the file sets' copies are planned by: not where it writes its files many at
    /// a time, each then costing a fraction of a copied one.
    fn teaches(&self) -> bool {
        true
    }

    /// The bytes `prepare` writes before the first repetition (untimed, but it takes time).
    fn prepare_bytes(&self, _plan: &RunPlan) -> u64 {
        0
    }

    /// The files `prepare` makes.
    fn prepare_files(&self, _plan: &RunPlan) -> u64 {
        0
    }

    /// Untimed work the variant does once beyond its preparation (a copy verified, what
    /// `prepare` made removed), which the budget plans.
    fn untimed_once(&self, _plan: &RunPlan) -> Vec<Work> {
        Vec::new()
    }

    /// Untimed work around each repetition (a copy to delete laid down, a copy removed, a
    /// cache evicted), which the budget plans until the repetitions' own times are known.
    fn untimed_each(&self, _plan: &RunPlan) -> Vec<Work> {
        Vec::new()
    }

    /// The file set it reads as its source: the first variant to need a generated set pays for
    /// generating it.
    fn source_set(&self) -> Option<SetName> {
        None
    }

    /// Untimed work before the first repetition.
    fn prepare(&mut self, _rep: Rep<'_, '_>) -> Result<()> {
        Ok(())
    }

    /// One timed repetition.
    fn measure(&mut self, rep: Rep<'_, '_>) -> Result<Measured>;

    /// Removes what `prepare` made; runs whether the repetitions succeeded or not.
    fn clean_up(&mut self, _ctx: &mut Ctx<'_>) {}
}
