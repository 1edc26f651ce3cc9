//! The runner's side of the progress: times each step on the run's clock, feeds the [`Eta`] and
//! hands it to the display. The clock is the wall clock, except on the null engine, whose time
//! is virtual: there the runner advances it by what the engine's clock says each step took, so
//! that the ETA can be checked exactly.

use std::rc::Rc;
use std::time::Instant;

use crate::runner::eta::{Cost, Eta};
use crate::runner::progress::Progress;
use crate::runner::untimed::Ledger;

enum Clock {
    Wall(Instant),
    /// Seconds of engine time.
    Virtual(f64),
}

pub(in crate::runner) struct Tracker<'p> {
    display: &'p mut dyn Progress,
    eta: Eta,
    clock: Clock,
    /// The step under way: its cost, when it began and the untimed seconds the ledger held then.
    step: Option<(Cost, f64, f64)>,
    /// The untimed work the tests time.
    ledger: Rc<Ledger>,
    /// The ETA's whole length at each step's start: `[elapsed_s, predicted_total_s]`.
    predictions: Vec<[f64; 2]>,
    /// When the run first said something before going on (that it is stretched).
    first_note_s: Option<f64>,
}

impl<'p> Tracker<'p> {
    /// A tracker whose wall clock began at `start` (the run's, before its destination was
    /// checked), reading the untimed work from `ledger`, its ETA starting as `eta`.
    pub fn new(
        display: &'p mut dyn Progress,
        virtual_clock: bool,
        start: Instant,
        ledger: Rc<Ledger>,
        eta: Eta,
    ) -> Self {
        Tracker {
            display,
            eta,
            clock: if virtual_clock {
                Clock::Virtual(0.0)
            } else {
                Clock::Wall(start)
            },
            step: None,
            ledger,
            predictions: Vec::new(),
            first_note_s: None,
        }
    }

    /// The ETA's whole length at each step's start so far: `[elapsed_s, predicted_total_s]`.
    pub fn predictions(&self) -> &[[f64; 2]] {
        &self.predictions
    }

    fn untimed_s(&self) -> f64 {
        self.ledger.snapshot().iter().map(|s| s.seconds).sum()
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
        let now = self.now_s();
        self.eta.catch_up(now);
        self.eta.begin(current_s, after_s);
        self.predictions.push([now, self.eta.total_s()]);
        self.step = Some((cost, now, self.untimed_s()));
        self.display.step(message, &self.eta);
    }

    /// The step under way costs `cost` after all (the test file, sized once its first part
    /// showed the destination's rate): what its time teaches when it ends.
    pub fn recost(&mut self, cost: Cost) {
        if let Some(step) = self.step.as_mut() {
            step.0 = cost;
        }
    }

    /// Ends the step under way (its time is learned from, the untimed work in it apart); the
    /// seconds it took.
    pub fn close(&mut self) -> Option<f64> {
        let (cost, began, untimed_then) = self.step.take()?;
        let took = self.now_s() - began;
        self.eta
            .finished(cost, took, self.untimed_s() - untimed_then);
        self.eta.set_untimed(self.ledger.prices());
        Some(took)
    }

    /// Says something before the run goes on.
    pub fn note(&mut self, message: &str) {
        let now = self.now_s();
        self.first_note_s.get_or_insert(now);
        self.display.note(message);
    }

    /// When the run first said something before going on, on its clock.
    pub fn first_note_s(&self) -> Option<f64> {
        self.first_note_s
    }

    pub fn finish(&mut self) {
        self.close();
        let now = self.now_s();
        self.eta.catch_up(now);
        self.eta.end();
        self.display.finish(&self.eta);
    }
}
