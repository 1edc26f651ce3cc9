//! Progress reporting, kept abstract so the runner does not know about terminals. Every display
//! reads the same [`Eta`] (`src/runner/eta.rs`): the terminal's bar and the `ui` page agree.

use crate::runner::eta::Eta;

/// Receives the run's progress: the first plan up front, then one call per step with the ETA as
/// of that step's start (count down within a step with [`Eta::remaining_after`]).
pub trait Progress {
    fn begin(&mut self, eta: &Eta);
    fn step(&mut self, message: &str, eta: &Eta);
    /// Replaces the current step's message (files and bytes done, during long tests).
    fn update(&mut self, message: &str);
    /// Something the user should read before the run goes on (a plan stretched beyond the
    /// profile's budget); it is in the run document's warnings too.
    fn note(&mut self, _message: &str) {}
    /// The run ended; `eta` holds its whole length (nothing remaining).
    fn finish(&mut self, eta: &Eta);
}

/// Shows nothing (not a terminal, `--json` consumers, tests).
pub struct NoProgress;

impl Progress for NoProgress {
    fn begin(&mut self, _eta: &Eta) {}
    fn step(&mut self, _message: &str, _eta: &Eta) {}
    fn update(&mut self, _message: &str) {}
    fn finish(&mut self, _eta: &Eta) {}
}
