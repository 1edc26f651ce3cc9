//! The run's time against its plan (`results::TimeAccount`): what the budget planned once the
//! destination's rate was known, for the timed repetitions and each kind of untimed work, beside
//! what they took.

use strum::VariantArray;

use crate::results::{TestResult, TimeAccount, Untimed, UntimedLine};

use crate::runner::eta::Eta;
use crate::runner::time::schedule::Schedule;
use crate::runner::time::tracking::Tracker;
use crate::runner::untimed::Ledger;

/// The plan as it stood once the test file's first part had shown the destination's rate.
pub(in crate::runner) struct Planned {
    total_s: f64,
    untimed_s: [f64; Untimed::VARIANTS.len()],
}

impl Planned {
    /// The plan at `now_s` on the run's clock, before its first variant: the run's whole
    /// predicted length, and each kind of untimed work the variants' least repetitions need.
    pub fn at(now_s: f64, schedule: &Schedule, eta: &Eta) -> Planned {
        Planned {
            total_s: now_s + schedule.predicted_from(eta, schedule.start(eta, 0)),
            untimed_s: schedule.untimed_from(eta, 0),
        }
    }

    /// The account of the finished run: this plan beside what the repetitions (`results`) and
    /// the untimed work (`ledger`) took.
    pub fn account(
        self,
        stretched_at_s: Option<f64>,
        schedule: &Schedule,
        tracker: &Tracker<'_>,
        results: &[TestResult],
        ledger: &Ledger,
    ) -> TimeAccount {
        let spent = ledger.snapshot();
        let untimed: Vec<UntimedLine> = Untimed::VARIANTS
            .iter()
            .map(|&kind| UntimedLine {
                kind,
                planned_s: if kind == Untimed::TestFile {
                    spent[kind as usize].seconds
                } else {
                    self.untimed_s[kind as usize]
                },
                spent: spent[kind as usize],
            })
            .collect();
        let planned_untimed: f64 = untimed.iter().map(|l| l.planned_s).sum();
        TimeAccount {
            budget_s: schedule.budget_s(),
            planned_s: self.total_s,
            planned_measuring_s: (self.total_s - planned_untimed).max(0.0),
            measuring_s: results
                .iter()
                .flat_map(|r| &r.repetitions)
                .map(|r| r.elapsed_s)
                .sum(),
            untimed,
            spent_s: tracker.eta().elapsed_s(),
            predictions: tracker.predictions().to_vec(),
            stretched_at_s,
        }
    }
}
