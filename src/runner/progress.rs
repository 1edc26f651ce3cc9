//! Progress reporting, kept abstract so the runner does not know about terminals.

/// Receives the run's progress: the planned seconds of the whole run up front, then one call per
/// step with that step's planned seconds (0 for work the plan does not time, such as generating
/// a file set), so that the progress and its ETA follow time, not a count of unequal steps.
pub trait Progress {
    fn begin(&mut self, planned_s: f64);
    fn step(&mut self, message: &str, planned_s: f64);
    /// Replaces the current step's message (files and bytes done, during long tests).
    fn update(&mut self, message: &str);
    fn finish(&mut self);
}

/// Shows nothing (not a terminal, `--json` consumers, tests).
pub struct NoProgress;

impl Progress for NoProgress {
    fn begin(&mut self, _planned_s: f64) {}
    fn step(&mut self, _message: &str, _planned_s: f64) {}
    fn update(&mut self, _message: &str) {}
    fn finish(&mut self) {}
}
