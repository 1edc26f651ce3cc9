//! The untimed work's ledger: each kind of work the run does beside its timed repetitions
//! (`results::Untimed`), timed as it happens, so that the budget plans it from the rate each
//! kind has shown on this destination (`Eta::predict_untimed`) and the run document accounts
//! for it (`results::TimeAccount`).

use std::cell::Cell;
use std::time::Instant;

use strum::VariantArray;

use crate::results::{Spent, Untimed};

/// Untimed work a test plans: a kind and the bytes it handles.
pub(in crate::runner) type Work = (Untimed, u64);

/// Seconds and bytes of each kind of untimed work so far. Shared by the tests, which time their
/// work through it, and the tracker, which reads it after each step.
#[derive(Debug, Default)]
pub(in crate::runner) struct Ledger {
    spent: [Cell<Spent>; Untimed::VARIANTS.len()],
}

impl Ledger {
    /// Does `work`, untimed work of `kind` handling `bytes`, and records how long it took.
    pub fn time<T>(&self, kind: Untimed, bytes: u64, work: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = work();
        self.add(kind, start.elapsed().as_secs_f64(), bytes);
        out
    }

    /// Records `seconds` of `kind` handling `bytes` (work timed elsewhere).
    pub fn add(&self, kind: Untimed, seconds: f64, bytes: u64) {
        let cell = &self.spent[kind as usize];
        let before = cell.get();
        cell.set(Spent {
            seconds: before.seconds + seconds,
            bytes: before.bytes + bytes,
        });
    }

    /// What each kind has taken so far, in `Untimed::VARIANTS`' order.
    pub fn snapshot(&self) -> [Spent; Untimed::VARIANTS.len()] {
        std::array::from_fn(|i| self.spent[i].get())
    }

    /// Seconds of the work done once per variant (a set generated, a copy verified) so far: a
    /// repetition that did it is predicted again without it.
    pub fn once_s(&self) -> f64 {
        [Untimed::Generate, Untimed::Verify]
            .iter()
            .map(|&k| self.spent[k as usize].get().seconds)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_sums_its_own_work() {
        let ledger = Ledger::default();
        ledger.add(Untimed::Copy, 1.0, 10);
        ledger.add(Untimed::Copy, 2.0, 20);
        ledger.add(Untimed::Verify, 0.5, 5);
        let spent = ledger.snapshot();
        assert_eq!(
            spent[Untimed::Copy as usize],
            Spent {
                seconds: 3.0,
                bytes: 30
            }
        );
        assert_eq!(spent[Untimed::Remove as usize], Spent::default());
        assert_eq!(ledger.once_s(), 0.5);
        assert_eq!(ledger.time(Untimed::Remove, 7, || 42), 42);
        assert_eq!(ledger.snapshot()[Untimed::Remove as usize].bytes, 7);
    }
}
