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
use crate::results::Untimed;
use crate::settings::{Repeats, RunPlan};
use crate::workload::Variant;
use strum::VariantArray;

use super::costs::Item;
use super::eta::{Cost, Eta};

pub(super) struct Schedule {
    items: Vec<Item>,
    repeats: Repeats,
    /// The profile's budget for the tests chosen ([`chosen_share`]); None with `--runs N`.
    budget_s: Option<f64>,
    /// Of the finished variants that could have run longer than their least repetitions, how
    /// many, and the sum of the shares of that extra time each used.
    judged: f64,
    used: f64,
}

/// Seconds kept from the budget for the run's end, which no step times: the scratch directory
/// removed, the verdict and the report, and the last variants' overshoot of their allowances
/// (default runs on /var/tmp aiming at 88 s ended 88.1-90.3 s on the run's clock).
pub(super) const FINISH_S: f64 = 3.0;

/// Variants' worth of prior belief in [`Schedule::extra_share`]: a tenth of one, so that the
/// first two finished variants (by 10% of a run, often no more) outweigh it twentyfold.
const PRIOR: f64 = 0.1;

/// Where a variant is: about to start its repetition `done + 1` (or its preparation), having
/// spent `spent_s` since it began, its preparation included, with the allowance it began with.
#[derive(Debug, Clone, Copy)]
pub(super) struct Position {
    pub index: usize,
    pub done: usize,
    pub spent_s: f64,
    pub allowance: Option<f64>,
}

/// The share of the profile's budget the chosen variants get: their least repetitions'
/// predicted time over that of the profile's own variants (1 when they are the profile's), so
/// that `--tests seq-write` takes seq-write's part of the profile's time, not all of it.
fn chosen_share(plan: &RunPlan) -> f64 {
    let own = plan.profile_variants();
    if plan.variants == own {
        return 1.0;
    }
    let weight = |variants: &[Variant]| -> f64 {
        let prior = Eta::default();
        let mut generated = Vec::new();
        variants
            .iter()
            .map(|v| Item::planned(plan, v, &mut generated))
            .map(|it| it.least_s(&prior, plan.repeats))
            .sum()
    };
    let own_weight = weight(&own);
    if own_weight > 0.0 {
        weight(&plan.variants) / own_weight
    } else {
        1.0
    }
}

impl Schedule {
    pub fn new(plan: &RunPlan, runnable: impl Fn(usize) -> bool) -> Schedule {
        let mut generated = Vec::new();
        let items = plan
            .variants
            .iter()
            .enumerate()
            .map(|(i, v)| {
                if runnable(i) {
                    Item::planned(plan, v, &mut generated)
                } else {
                    Item {
                        cost: Cost::default(),
                        prepare: Cost::default(),
                        once: Vec::new(),
                        each: Vec::new(),
                        ..Item::planned(plan, v, &mut Vec::new())
                    }
                }
            })
            .collect();
        Schedule {
            items,
            repeats: plan.repeats,
            budget_s: match plan.repeats {
                Repeats::UntilPrecise(a) => Some(a.budget.as_secs_f64() * chosen_share(plan)),
                Repeats::Exactly(_) => None,
            },
            judged: 0.0,
            used: 0.0,
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
        self.items[i].least(self.repeats)
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
            return item.next_rep_s(eta);
        }
        // Not repeated yet: its plan, scaled as its test's variants so far went against theirs.
        let (took, planned) = self
            .items
            .iter()
            .filter(|other| other.test == item.test && other.took_reps > 0)
            .fold((0.0, 0.0), |(t, p), other| {
                (
                    t + other.took_s,
                    p + other.took_reps as f64 * other.planned_rep_s(eta),
                )
            });
        let scale = if planned > 0.0 { took / planned } else { 1.0 };
        scale * item.planned_rep_s(eta)
    }

    /// The seconds variant `i`'s preparation is predicted to take.
    pub fn prepare_s(&self, eta: &Eta, i: usize) -> f64 {
        eta.predict_untimed(&[(Untimed::Copy, self.prepare(i).bytes)])
    }

    /// Seconds of each kind of untimed work the variants from `i` on are planned to do at
    /// their least repetitions, in `Untimed::VARIANTS`' order.
    pub fn untimed_from(&self, eta: &Eta, i: usize) -> [f64; Untimed::VARIANTS.len()] {
        let mut planned = [0.0; Untimed::VARIANTS.len()];
        for (j, item) in self.items.iter().enumerate().skip(i) {
            for &work in &item.once {
                planned[work.0 as usize] += eta.predict_untimed(&[work]);
            }
            if item.took_reps == 0 {
                let least = self.least(j) as f64;
                for &work in &item.each {
                    planned[work.0 as usize] += least * eta.predict_untimed(&[work]);
                }
            }
        }
        planned
    }

    /// Variant `i` stopped, having spent `spent_s` of `allowance`: the share of the time it
    /// could spend beyond its least repetitions that it used teaches how much the variants
    /// after it will use. One whose allowance left no room for another repetition teaches
    /// nothing: it had no choice.
    pub fn finished(&mut self, eta: &Eta, i: usize, spent_s: f64, allowance: Option<f64>) {
        let (Some(allowed), false) = (allowance, self.items[i].single) else {
            return;
        };
        let least = self.weight(eta, i);
        let room = allowed.min(self.most_s(eta, i)) - least;
        if room >= self.next_rep_s(eta, i) {
            self.judged += 1.0;
            self.used += ((spent_s - least) / room).clamp(0.0, 1.0);
        }
    }

    /// The share of the time a variant may spend beyond its least repetitions that it is
    /// expected to use, from the finished ones, with [`PRIOR`] variants' worth of prior belief
    /// at one half: a half at first, near nought after two that were precise at once, near one
    /// after two that ran to their allowance.
    fn extra_share(&self) -> f64 {
        (self.used + PRIOR / 2.0) / (self.judged + PRIOR)
    }

    /// The weight of variant `i` in the budget: the predicted time of its preparation and its
    /// least repetitions.
    fn weight(&self, eta: &Eta, i: usize) -> f64 {
        let item = &self.items[i];
        eta.predict_untimed(&item.once) + self.least(i) as f64 * self.next_rep_s(eta, i)
    }

    /// The seconds variant `i` may spend when it starts, its preparation included, the run
    /// having taken `eta.elapsed_s()`; None without a budget (`--runs N`).
    pub fn allowance(&self, eta: &Eta, i: usize) -> Option<f64> {
        let left = (self.budget_s()? - eta.elapsed_s() - FINISH_S).max(0.0);
        let weights: f64 = (i..self.items.len()).map(|j| self.weight(eta, j)).sum();
        Some(if weights > 0.0 {
            left * self.weight(eta, i) / weights
        } else {
            0.0
        })
    }

    /// The seconds variant `i` is expected to take in all: its least repetitions and the share
    /// `u` of what its allowance or its most repetitions let it spend beyond them; just its
    /// repetitions without a budget.
    fn expected_s(&self, eta: &Eta, i: usize, allowance: Option<f64>, u: f64) -> f64 {
        let least = self.weight(eta, i);
        let Some(allowed) = allowance.filter(|_| !self.items[i].single) else {
            return least;
        };
        least + u * (allowed.min(self.most_s(eta, i)) - least).max(0.0)
    }

    /// The seconds of variant `i`'s preparation and its most repetitions.
    fn most_s(&self, eta: &Eta, i: usize) -> f64 {
        let item = &self.items[i];
        eta.predict_untimed(&item.once) + self.repeats.most() as f64 * self.next_rep_s(eta, i)
    }

    /// Where variant `i` is when it begins, with the allowance it begins with.
    pub fn start(&self, eta: &Eta, i: usize) -> Position {
        Position {
            index: i,
            done: 0,
            spent_s: 0.0,
            allowance: self.allowance(eta, i),
        }
    }

    /// The step about to start at `at`, predicted at `current_s`: its seconds and those of
    /// the steps after it, as the tracker takes them.
    pub fn split(&self, eta: &Eta, at: Position, current_s: f64) -> (f64, f64) {
        (current_s, self.predicted_from(eta, at) - current_s)
    }

    /// Seconds predicted from `at` (a repetition of a variant about to start) to the end of
    /// the run: what is left of that variant, and the variants after it, each with the share of
    /// the budget left that it will be allowed.
    pub fn predicted_from(&self, eta: &Eta, at: Position) -> f64 {
        let i = at.index;
        // The repetition about to start runs, as do the rest of the least.
        let must = self.least(i).saturating_sub(at.done).max(1) as f64 * self.next_rep_s(eta, i);
        let u = self.extra_share();
        let own = (self.expected_s(eta, i, at.allowance, u) - at.spent_s).max(must);
        let later = i + 1..self.items.len();
        let Some(budget) = self.budget_s() else {
            return own + later.map(|j| self.weight(eta, j)).sum::<f64>();
        };
        let left = (budget - eta.elapsed_s() - own).max(0.0);
        let weights: f64 = later.clone().map(|j| self.weight(eta, j)).sum();
        own + later
            .map(|j| {
                let share = left * self.weight(eta, j) / weights.max(f64::MIN_POSITIVE);
                self.expected_s(eta, j, Some(share), u)
            })
            .sum::<f64>()
    }

    /// Seconds the least repetitions of the variants from `i` on are predicted to take: what
    /// the run needs at the least.
    pub fn least_from(&self, eta: &Eta, i: usize) -> f64 {
        (i..self.items.len()).map(|j| self.weight(eta, j)).sum()
    }

    /// The run's budget in seconds, when it has one.
    pub fn budget_s(&self) -> Option<f64> {
        self.budget_s
    }

    /// Whether variant `i` stops after `done` repetitions whose median is known to `precision`
    /// (`results::precision_of`), having spent `spent_s` of its `allowance_s`, its next
    /// repetition predicted at `next_s`.
    pub fn stop(
        &self,
        i: usize,
        (done, precision): (usize, Option<f64>),
        spent_s: f64,
        next_s: f64,
        allowance_s: Option<f64>,
    ) -> Option<StopReason> {
        if self.items[i].single {
            return (done > 0).then_some(StopReason::Count);
        }
        decide(
            self.repeats,
            (done, precision),
            spent_s + next_s,
            allowance_s,
        )
    }
}

/// The stopping rule: `--runs N` stops at N; the adaptive rule never before its least
/// repetitions, then once the median is precise (its 95% half-width, a fraction of it, within
/// the profile's), else at its most repetitions or once the next repetition would end after
/// the variant's allowance (`would_spend_s` is the time spent with it). `n` repetitions ran.
pub(super) fn decide(
    repeats: Repeats,
    (n, precision): (usize, Option<f64>),
    would_spend_s: f64,
    allowance_s: Option<f64>,
) -> Option<StopReason> {
    match repeats {
        Repeats::Exactly(count) => (n >= count).then_some(StopReason::Count),
        Repeats::UntilPrecise(a) => {
            if n < a.min_runs {
                return None;
            }
            if precision.is_some_and(|h| h <= a.precision) {
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
    use crate::stats::precision;

    /// The rule on repetitions whose precision is their figures' (no series).
    fn decide(
        repeats: Repeats,
        samples: &[f64],
        would_spend_s: f64,
        allowance_s: Option<f64>,
    ) -> Option<StopReason> {
        let known = precision::median_half_width(samples);
        super::decide(repeats, (samples.len(), known), would_spend_s, allowance_s)
    }

    const RULE: Repeats = Repeats::UntilPrecise(Adaptive {
        min_runs: 2,
        max_runs: 5,
        precision: 0.02,
        budget: Duration::from_secs(90),
    });

    /// Three variants of 1 s repetitions (2 to 5 of them) with 90 s of budget to share.
    fn three_variants() -> Schedule {
        let item = || Item {
            cost: Cost {
                seconds: 1.0,
                bytes: 0,
            },
            prepare: Cost::default(),
            once: Vec::new(),
            each: Vec::new(),
            single: false,
            test: crate::workload::TestId::SeqWrite,
            took_s: 0.0,
            took_reps: 0,
        };
        Schedule {
            items: vec![item(), item(), item()],
            repeats: RULE,
            budget_s: Some(90.0 + FINISH_S),
            judged: 0.0,
            used: 0.0,
        }
    }

    /// The profile's own tests get its whole budget; a few of them, their part of it.
    #[test]
    fn chosen_tests_get_their_share_of_the_budget() {
        use crate::settings::RunOptions;
        let plan = |tests: Option<&str>| {
            let mut o = RunOptions::new("/tmp");
            o.tests = tests.map(|t| {
                t.split(',')
                    .map(|s| s.parse().unwrap())
                    .collect::<Vec<_>>()
                    .into()
            });
            o.plan().unwrap()
        };
        let budget = |p: &RunPlan| Schedule::new(p, |_| true).budget_s().unwrap();
        assert_eq!(budget(&plan(None)), 90.0);
        let seq = budget(&plan(Some("seq-write")));
        let blocks = budget(&plan(Some("seq-write,seq-read,4k-write,4k-read")));
        assert!(0.0 < seq && seq < blocks && blocks < 90.0, "{seq} {blocks}");
        let more = budget(&plan(Some(
            "seq-write,seq-read,4k-write,4k-read,tm-check,files-copy,files-restore,files-delete,meta,sustained",
        )));
        assert!(
            more > 90.0,
            "tests beyond the profile's get more time: {more}"
        );
    }

    /// Each variant is planned at its least repetitions (2 s) and a share of what it may spend
    /// beyond them (up to its most, 5 s): half at first, then as much as the finished ones
    /// used; one that had no room for another repetition teaches nothing.
    #[test]
    fn variants_are_planned_by_how_much_the_finished_ones_used() {
        let eta = Eta::default();
        let from_second = |s: &Schedule| s.predicted_from(&eta, s.start(&eta, 1));
        let mut s = three_variants();
        assert_eq!(s.allowance(&eta, 0), Some(30.0));
        assert_eq!(s.predicted_from(&eta, s.start(&eta, 0)), 3.0 * 3.5);
        s.finished(&eta, 0, 2.0, Some(30.0));
        let u = 0.05 / 1.1;
        assert!((from_second(&s) - 2.0 * (2.0 + 3.0 * u)).abs() < 1e-9);
        let mut s = three_variants();
        s.finished(&eta, 0, 5.0, Some(30.0));
        let u = 1.05 / 1.1;
        assert!((from_second(&s) - 2.0 * (2.0 + 3.0 * u)).abs() < 1e-9);
        let mut s = three_variants();
        s.finished(&eta, 0, 2.0, Some(2.5));
        assert_eq!(s.extra_share(), 0.5, "no room for a third: nothing learned");
    }

    /// Untimed work is in each variant's weight: the least work counts it, and a variant's
    /// allowance is its weight's share of the budget left (90 s, 1 s in): 2 s, 12 s, 2 s.
    #[test]
    fn the_budget_plans_the_untimed_work() {
        let mut s = three_variants();
        s.items[1].once = vec![(Untimed::Copy, 1_000_000_000)];
        let eta = Eta::default();
        assert_eq!(s.least_from(&eta, 0), 3.0 * 2.0 + 10.0, "1 GB at 100 MB/s");
        assert_eq!(s.untimed_from(&eta, 0)[Untimed::Copy as usize], 10.0);
        let mut later = eta.clone();
        later.catch_up(1.0);
        assert_eq!(s.allowance(&later, 0), Some(89.0 * 2.0 / 16.0));
        assert_eq!(s.allowance(&later, 1), Some(89.0 * 12.0 / 14.0));
    }

    /// A variant not yet repeated is predicted as its test's variants went against their plan.
    #[test]
    fn a_variant_is_predicted_as_its_siblings_went() {
        let mut s = three_variants();
        s.items[2].test = crate::workload::TestId::SeqRead;
        let eta = Eta::default();
        s.took(0, 3.0);
        s.took(0, 3.0);
        assert_eq!(
            s.next_rep_s(&eta, 1),
            3.0,
            "its sibling took 3 times its plan"
        );
        assert_eq!(s.next_rep_s(&eta, 2), 1.0, "another test: its plan");
    }

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
