//! How the run's time is shared out: what each variant's repetition costs, how many repetitions
//! each is expected to take, the share of the profile's budget a variant may spend, and when a
//! variant stops repeating (the stopping rule).
//!
//! The budget is shared by need: when a variant starts, it may spend the budget left times its
//! weight over the weights of the variants left, a weight being the predicted time of its least
//! repetitions. A variant that stops early (precise) leaves its time to the ones after it; one
//! that overran (a slow destination) takes it from them. The least repetitions always run, so a
//! destination too slow for the budget stretches the run, which the runner says before it
//! measures.

use crate::results::StopReason;
use crate::settings::{Repeats, RunPlan};
use crate::stats::precision;

use super::eta::{Cost, Eta};
use super::kinds::test_for;

/// One variant as the schedule sees it.
struct Item {
    cost: Cost,
    /// What preparing it costs, before its first repetition.
    prepare: Cost,
    /// A test that runs once whatever the plan (sustained, throttled).
    single: bool,
    /// Seconds its finished repetitions took, and how many: its next one is predicted from
    /// them rather than from its cost.
    took_s: f64,
    took_reps: usize,
}

pub(super) struct Schedule {
    items: Vec<Item>,
    repeats: Repeats,
    /// Repetitions run over the least repetitions, of the finished variants that repeat.
    reps_run: usize,
    reps_least: usize,
}

impl Schedule {
    pub fn new(plan: &RunPlan, runnable: impl Fn(usize) -> bool) -> Schedule {
        let items = plan
            .variants
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let test = test_for(&v.workload);
                let (cost, prepare) = if runnable(i) {
                    let cost = Cost {
                        seconds: test.planned_s(plan),
                        bytes: test.planned_bytes(plan),
                    };
                    let prepare = Cost {
                        seconds: 0.0,
                        bytes: test.prepare_bytes(plan),
                    };
                    (cost, prepare)
                } else {
                    (Cost::default(), Cost::default())
                };
                Item {
                    cost,
                    prepare,
                    single: v.test.single_run(),
                    took_s: 0.0,
                    took_reps: 0,
                }
            })
            .collect();
        Schedule {
            items,
            repeats: plan.repeats,
            reps_run: 0,
            reps_least: 0,
        }
    }

    /// What one repetition of variant `i` is planned to cost.
    pub fn cost(&self, i: usize) -> Cost {
        self.items[i].cost
    }

    /// What preparing variant `i` is planned to cost.
    pub fn prepare(&self, i: usize) -> Cost {
        self.items[i].prepare
    }

    fn least(&self, i: usize) -> usize {
        if self.items[i].single {
            1
        } else {
            self.repeats.least()
        }
    }

    /// The repetitions variant `i` is expected to take: its least, scaled by how many more the
    /// finished variants took, within its most.
    fn expected_reps(&self, i: usize) -> f64 {
        let least = self.least(i) as f64;
        if self.items[i].single || self.reps_least == 0 {
            return least;
        }
        let scale = self.reps_run as f64 / self.reps_least as f64;
        (least * scale).clamp(least, self.repeats.most() as f64)
    }

    /// A repetition of variant `i` took `seconds`.
    pub fn took(&mut self, i: usize, seconds: f64) {
        self.items[i].took_s += seconds;
        self.items[i].took_reps += 1;
    }

    /// The seconds the next repetition of variant `i` is predicted to take: the mean of its
    /// own so far, else its cost's prediction.
    pub fn next_rep_s(&self, eta: &Eta, i: usize) -> f64 {
        let item = &self.items[i];
        if item.took_reps > 0 {
            item.took_s / item.took_reps as f64
        } else {
            eta.predict(item.cost)
        }
    }

    /// Variant `i` finished after `reps` repetitions.
    pub fn finished(&mut self, i: usize, reps: usize) {
        if !self.items[i].single {
            self.reps_run += reps;
            self.reps_least += self.least(i);
        }
    }

    /// The weight of variant `i` in the budget: the predicted time of its preparation and its
    /// least repetitions.
    fn weight(&self, eta: &Eta, i: usize) -> f64 {
        eta.predict(self.prepare(i)) + self.least(i) as f64 * eta.predict(self.cost(i))
    }

    /// The seconds variant `i` may spend when it starts, the run having taken `eta.elapsed_s()`;
    /// None without a budget (`--runs N`).
    pub fn allowance(&self, eta: &Eta, i: usize) -> Option<f64> {
        let Repeats::UntilPrecise(adaptive) = self.repeats else {
            return None;
        };
        let left = (adaptive.budget.as_secs_f64() - eta.elapsed_s()).max(0.0);
        let weights: f64 = (i..self.items.len()).map(|j| self.weight(eta, j)).sum();
        Some(if weights > 0.0 {
            left * self.weight(eta, i) / weights
        } else {
            0.0
        })
    }

    /// Seconds predicted for variant `i` from its repetition `done` on (`done` already run), and
    /// for every variant after it.
    pub fn predicted_from(&self, eta: &Eta, i: usize, done: usize) -> f64 {
        let own = (self.expected_reps(i) - done as f64).max(0.0) * self.next_rep_s(eta, i);
        let later: f64 = (i + 1..self.items.len())
            .map(|j| {
                let time = eta.predict(self.prepare(j))
                    + self.expected_reps(j) * eta.predict(self.cost(j));
                self.allowance(eta, j)
                    .map_or(time, |share| time.min(share).max(self.weight(eta, j)))
            })
            .sum();
        own + later
    }

    /// Seconds the least repetitions of the variants from `i` on are predicted to take: what
    /// the run needs at the least.
    pub fn least_from(&self, eta: &Eta, i: usize) -> f64 {
        (i..self.items.len()).map(|j| self.weight(eta, j)).sum()
    }

    /// The run's budget in seconds, when it has one.
    pub fn budget_s(&self) -> Option<f64> {
        match self.repeats {
            Repeats::UntilPrecise(a) => Some(a.budget.as_secs_f64()),
            Repeats::Exactly(_) => None,
        }
    }

    /// Whether variant `i` stops after the repetitions whose figures are `samples`, having
    /// spent `spent_s` of its `allowance_s`, its next repetition predicted at `next_s`.
    pub fn stop(
        &self,
        i: usize,
        samples: &[f64],
        spent_s: f64,
        next_s: f64,
        allowance_s: Option<f64>,
    ) -> Option<StopReason> {
        if self.items[i].single {
            return (!samples.is_empty()).then_some(StopReason::Count);
        }
        decide(self.repeats, samples, spent_s + next_s, allowance_s)
    }
}

/// The stopping rule: `--runs N` stops at N; the adaptive rule never before its least
/// repetitions, then once the median is precise, else at its most repetitions or once the next
/// repetition would end after the variant's allowance (`would_spend_s` is the time spent with
/// it).
pub(super) fn decide(
    repeats: Repeats,
    samples: &[f64],
    would_spend_s: f64,
    allowance_s: Option<f64>,
) -> Option<StopReason> {
    let n = samples.len();
    match repeats {
        Repeats::Exactly(count) => (n >= count).then_some(StopReason::Count),
        Repeats::UntilPrecise(a) => {
            if n < a.min_runs {
                return None;
            }
            if precision::median_half_width(samples).is_some_and(|h| h <= a.precision) {
                return Some(StopReason::Precise);
            }
            let over = allowance_s.is_some_and(|allowed| would_spend_s > allowed);
            (n >= a.max_runs || over).then_some(StopReason::Budget)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::settings::Adaptive;

    const RULE: Repeats = Repeats::UntilPrecise(Adaptive {
        min_runs: 2,
        max_runs: 5,
        precision: 0.02,
        budget: Duration::from_secs(90),
    });

    #[test]
    fn a_fixed_count_is_exactly_that_count() {
        let fixed = Repeats::Exactly(3);
        assert_eq!(decide(fixed, &[1.0, 1.0], 1e9, Some(0.0)), None);
        assert_eq!(
            decide(fixed, &[1.0, 5.0, 9.0], 0.0, None),
            Some(StopReason::Count)
        );
    }

    #[test]
    fn never_before_the_least_repetitions() {
        assert_eq!(decide(RULE, &[100.0], 1e9, Some(0.0)), None);
    }

    /// 100 and 100.2: s = 0.141, t(1) = 12.71, half-width 12.71 * 1.2533 * 0.141 / 1.414 = 1.59
    /// MB/s, 1.6% of the median: precise. 100 and 101 give 8%: not yet.
    #[test]
    fn precise_once_the_interval_is_within_the_target() {
        assert_eq!(
            decide(RULE, &[100.0, 100.2], 0.0, Some(10.0)),
            Some(StopReason::Precise)
        );
        assert_eq!(decide(RULE, &[100.0, 101.0], 0.0, Some(10.0)), None);
    }

    #[test]
    fn budget_when_the_next_repetition_would_overrun_or_at_the_most() {
        let noisy = [100.0, 130.0, 80.0];
        assert_eq!(decide(RULE, &noisy, 9.0, Some(10.0)), None);
        assert_eq!(
            decide(RULE, &noisy, 11.0, Some(10.0)),
            Some(StopReason::Budget)
        );
        let most = [100.0, 130.0, 80.0, 120.0, 90.0];
        assert_eq!(decide(RULE, &most, 0.0, None), Some(StopReason::Budget));
    }
}
