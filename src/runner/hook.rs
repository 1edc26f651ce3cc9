//! The seam for runs with other clients at once (`cluster`, under MPI): what happens around each
//! repetition. The runner measures exactly as it does alone; a hook only waits before a
//! repetition (all clients start together), hears when it ended, and may ask the work loops of
//! the block tests to stop early (stonewalling). Alone, every method does nothing.

use std::time::SystemTime;

use crate::error::Result;
use crate::results::Repetition;
use crate::workload::Variant;

/// What a coordinator of several clients does around the runner's repetitions.
pub trait RepetitionHook {
    /// A tag for the scratch directory's name (`r2-host`), so each client's is told apart on a
    /// shared destination.
    fn scratch_tag(&self) -> Option<String> {
        None
    }

    /// Before a repetition: waits for the other clients. Err ends the run (another client
    /// failed).
    fn before(&self, _variant: &Variant, _rep: usize) -> Result<()> {
        Ok(())
    }

    /// After a repetition: what it measured and when it ended on this machine's wall clock
    /// (its timed window is `elapsed` before that).
    fn after(
        &self,
        _variant: &Variant,
        _rep: usize,
        _repetition: &Repetition,
        _ended: SystemTime,
    ) -> Result<()> {
        Ok(())
    }

    /// Whether the current repetition's work loop should stop now (another client finished its
    /// work and `--stonewall` is on). Checked between blocks of the block tests.
    fn stop_requested(&self) -> bool {
        false
    }

    /// Whether a failing test ends the whole run: with other clients it must, or their
    /// repetitions would no longer start together.
    fn failures_end_run(&self) -> bool {
        false
    }

    /// Whether other clients run beside this one. Their repetitions start together, so how many
    /// there are and how long a block test runs are fixed in advance (the adaptive rule's least
    /// repetitions, the whole duration), never decided by one client's own figures.
    fn with_others(&self) -> bool {
        false
    }
}

/// One client alone: nothing around the repetitions.
pub struct Alone;

impl RepetitionHook for Alone {}
