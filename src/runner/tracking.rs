//! The runner's side of the progress: times each step on the run's clock, feeds the [`Eta`] and
//! hands it to the display. The clock is the wall clock, except on the null engine, whose time
//! is virtual: there the runner advances it by what the engine's clock says each step took, so
//! that the ETA can be checked exactly.

use std::time::Instant;

use super::Progress;
use super::eta::{Cost, Eta};

enum Clock {
    Wall(Instant),
    /// Seconds of engine time.
    Virtual(f64),
}

pub(super) struct Tracker<'p> {
    display: &'p mut dyn Progress,
    eta: Eta,
    clock: Clock,
    /// The step under way: its cost and when it began.
    step: Option<(Cost, f64)>,
}

impl<'p> Tracker<'p> {
    pub fn new(display: &'p mut dyn Progress, virtual_clock: bool) -> Self {
        Tracker {
            display,
            eta: Eta::default(),
            clock: if virtual_clock {
                Clock::Virtual(0.0)
            } else {
                Clock::Wall(Instant::now())
            },
            step: None,
        }
    }

    pub fn now_s(&self) -> f64 {
        match self.clock {
            Clock::Wall(start) => start.elapsed().as_secs_f64(),
            Clock::Virtual(s) => s,
        }
    }

    /// Moves a virtual clock on by `seconds` of engine time (nothing for the wall clock).
    pub fn advance(&mut self, seconds: f64) {
        if let Clock::Virtual(s) = &mut self.clock {
            *s += seconds;
        }
    }

    pub fn eta(&self) -> &Eta {
        &self.eta
    }

    /// Part of the step under way, of `cost`, took `seconds`: learned from before it ends.
    pub fn learn(&mut self, cost: Cost, seconds: f64) {
        self.eta.learn(cost, seconds);
    }

    /// Where tests report what they are doing within a step.
    pub fn display(&mut self) -> &mut dyn Progress {
        &mut *self.display
    }

    /// The run begins; `planned_s` is its first plan.
    pub fn begin(&mut self, planned_s: f64) {
        self.eta.begin(0.0, planned_s);
        self.display.begin(&self.eta);
    }

    /// Ends the step under way and begins one of `cost`, predicted to take `current_s`, the
    /// steps after it `after_s`.
    pub fn step(&mut self, message: &str, cost: Cost, (current_s, after_s): (f64, f64)) {
        self.close();
        self.eta.begin(current_s, after_s);
        self.step = Some((cost, self.now_s()));
        self.display.step(message, &self.eta);
    }

    /// Ends the step under way (its time is learned from); the seconds it took.
    pub fn close(&mut self) -> Option<f64> {
        let (cost, began) = self.step.take()?;
        let took = self.now_s() - began;
        self.eta.finished(cost, took);
        Some(took)
    }

    /// Says something before the run goes on.
    pub fn note(&mut self, message: &str) {
        self.display.note(message);
    }

    pub fn finish(&mut self) {
        self.close();
        self.eta.end();
        self.display.finish(&self.eta);
    }
}
