//! The untimed work's ledger: each kind of work the run does beside its timed repetitions
//! (`results::Untimed`), timed as it happens, so that the budget plans it from the rate each
//! kind has shown on this destination (`Eta::predict_untimed`) and the run document accounts
//! for it (`results::TimeAccount`).

use std::cell::Cell;
use std::time::Instant;

use strum::VariantArray;

use crate::results::{Spent, Untimed};

/// Untimed work of one kind: the bytes it handles and the small files among them on the
/// destination (a share prices each file in round trips, so a tree's files weigh apart from
/// its bytes; whole files of megabytes count none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::runner) struct Work {
    pub kind: Untimed,
    pub bytes: u64,
    pub files: u64,
}

impl Work {
    pub fn new(kind: Untimed, bytes: u64, files: u64) -> Work {
        Work { kind, bytes, files }
    }
}

/// Seconds, bytes and files of each kind of untimed work so far. Shared by the tests, which
/// time their work through it, and the tracker, which reads it after each step.
#[derive(Debug, Default)]
pub(in crate::runner) struct Ledger {
    spent: [Cell<Spent>; Untimed::VARIANTS.len()],
    /// The part of `spent` that prices its kind: all of it but the work done [`Ledger::apart`].
    priced: [Cell<Spent>; Untimed::VARIANTS.len()],
}

impl Ledger {
    /// Does `work`'s job, `job`, and records how long it took.
    pub fn time<T>(&self, work: Work, job: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = job();
        self.add(work, start.elapsed().as_secs_f64());
        out
    }

    /// Records `work` as taking `seconds` (timed elsewhere).
    pub fn add(&self, work: Work, seconds: f64) {
        self.apart(work, seconds);
        add_to(&self.priced[work.kind as usize], work, seconds);
    }

    /// Records `work` as taking `seconds`, of its kind but not priced with it: work done the
    /// way of one variant only (a repetition's warm-up, a copy made by a backup program),
    /// whose price would mislead the kind's other work.
    pub fn apart(&self, work: Work, seconds: f64) {
        add_to(&self.spent[work.kind as usize], work, seconds);
    }

    /// What each kind has taken so far, in `Untimed::VARIANTS`' order.
    pub fn snapshot(&self) -> [Spent; Untimed::VARIANTS.len()] {
        std::array::from_fn(|i| self.spent[i].get())
    }

    /// What each kind's priced work has taken so far (the snapshot without the work apart).
    pub fn prices(&self) -> [Spent; Untimed::VARIANTS.len()] {
        std::array::from_fn(|i| self.priced[i].get())
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

/// `work`, taking `seconds`, added to a kind's sum.
fn add_to(cell: &Cell<Spent>, work: Work, seconds: f64) {
    let before = cell.get();
    cell.set(Spent {
        seconds: before.seconds + seconds,
        bytes: before.bytes + work.bytes,
        files: before.files + work.files,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_sums_its_own_work() {
        let ledger = Ledger::default();
        ledger.add(Work::new(Untimed::Copy, 10, 1), 1.0);
        ledger.add(Work::new(Untimed::Copy, 20, 2), 2.0);
        ledger.add(Work::new(Untimed::Verify, 5, 1), 0.5);
        let spent = ledger.snapshot();
        assert_eq!(
            spent[Untimed::Copy as usize],
            Spent {
                seconds: 3.0,
                bytes: 30,
                files: 3
            }
        );
        assert_eq!(spent[Untimed::Remove as usize], Spent::default());
        assert_eq!(ledger.once_s(), 0.5);
        assert_eq!(ledger.time(Work::new(Untimed::Remove, 7, 0), || 42), 42);
        assert_eq!(ledger.snapshot()[Untimed::Remove as usize].bytes, 7);
        // Work apart is accounted for, but prices nothing.
        ledger.apart(Work::new(Untimed::Copy, 100, 10), 9.0);
        assert_eq!(ledger.snapshot()[Untimed::Copy as usize].seconds, 12.0);
        assert_eq!(ledger.prices()[Untimed::Copy as usize].seconds, 3.0);
        assert_eq!(ledger.prices()[Untimed::Copy as usize].files, 3);
    }
}
