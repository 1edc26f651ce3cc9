//! A test as the runner sees it: one trait, implemented once per kind of workload in that test's
//! own file (`block.rs`, `files.rs`, `sets.rs`, `meta.rs`, `sustained.rs`, `throttled.rs`,
//! `tm_backup.rs`), so what a test plans (space, time, the shape its result records) and what it
//! runs (prepare, measure, clean up) live side by side and cannot disagree. A new test is one file implementing
//! [`Test`], an arm in `kinds::test_for`, and its variants in `workload::suite`.

use crate::error::Result;
use crate::results::{OpKind, Unit};
use crate::settings::RunPlan;

use super::{Ctx, Measured, Progress};

/// What a test's result records of its I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Shape {
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
pub(super) struct Rep<'r, 'c> {
    pub ctx: &'r mut Ctx<'c>,
    pub plan: &'r RunPlan,
    pub index: usize,
    pub progress: &'r mut dyn Progress,
}

/// One kind of test: what it plans and how it runs. A variant's test object lives for all its
/// repetitions, so what `prepare` makes, `measure` uses and `clean_up` removes.
pub(super) trait Test {
    /// What its result records of its I/O.
    fn shape(&self) -> Shape;

    /// Bytes it keeps on the destination at its peak, beside the block tests' shared file.
    fn space_needed(&self, _plan: &RunPlan) -> u64 {
        0
    }

    /// The seconds one repetition is planned to take (for the progress bar's ETA); a test
    /// whose work is fixed plans the least a repetition lasts.
    fn planned_s(&self, plan: &RunPlan) -> f64 {
        least_planned_s(plan)
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

/// The least a repetition of a test whose work is fixed is planned to take: the minimum time,
/// a quarter second when there is none.
fn least_planned_s(plan: &RunPlan) -> f64 {
    plan.min_time.as_secs_f64().max(0.25)
}
