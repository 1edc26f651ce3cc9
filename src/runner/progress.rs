//! Progress reporting, kept abstract so the runner does not know about terminals.

/// Receives the run's progress: a step count up front, then one call per step.
pub trait Progress {
    fn begin(&mut self, total_steps: u64);
    fn step(&mut self, message: &str);
    /// Replaces the current step's message (files and bytes done, during long tests).
    fn update(&mut self, message: &str);
    fn finish(&mut self);
}

/// Shows nothing (not a terminal, `--json` consumers, tests).
pub struct NoProgress;

impl Progress for NoProgress {
    fn begin(&mut self, _total_steps: u64) {}
    fn step(&mut self, _message: &str) {}
    fn update(&mut self, _message: &str) {}
    fn finish(&mut self) {}
}
