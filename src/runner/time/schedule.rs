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
use crate::stats::precision;
use crate::workload::Variant;
use strum::VariantArray;

use crate::runner::eta::{Cost, Eta};
use crate::runner::time::costs::Item;
use crate::runner::untimed::Work;

#[derive(Clone)]
pub(in crate::runner) struct Schedule {
    items: Vec<Item>,
    repeats: Repeats,
    /// The profile's budget for the tests chosen ([`chosen_share`]); None with `--runs N`.
    budget_s: Option<f64>,
    /// Of the finished variants that could have run longer than their least repetitions, how
    /// many, and the sum of the shares of that extra time each used.
    judged: f64,
    used: f64,
    /// The run said before its tests that it will take longer than its budget.
    stretched: bool,
}

/// Seconds kept from the budget for the run's end, which no step times: the scratch directory
/// removed, the last variants' overshoot of their allowances, and what follows the run: the
/// verdict, the report and the answer's cold sample of the user's data (at most 3.5 s:
/// `estimate::source_sample`); docs/methods.md has what it was set from.
pub(in crate::runner) const FINISH_S: f64 = 6.0;

/// Variants' worth of prior belief in [`Schedule::extra_share`]: a tenth of one, so that the
/// first two finished variants (by 10% of a run, often no more) outweigh it twentyfold.
const PRIOR: f64 = 0.1;

/// Where a variant is: about to start its repetition `done + 1` (or its preparation), having
/// spent `spent_s` since it began, its preparation included, with the allowance it began with.
#[derive(Debug, Clone, Copy)]
pub(in crate::runner) struct Position {
    pub index: usize,
    pub done: usize,
    pub spent_s: f64,
    pub allowance: Option<f64>,
}

/// The share of the profile's budget the chosen variants get: their least repetitions'
/// predicted time over that of the profile's own variants (1 when they are the profile's, with
/// or without the write that finds a cache), so that `--tests seq-write` takes seq-write's
/// part of the profile's time, not all of it.
fn chosen_share(plan: &RunPlan) -> f64 {
    let own = plan.profile_variants();
    // The write that finds a cache is the profile's own too: it takes its time from the budget.
    let chosen: Vec<Variant> = plan
        .variants
        .iter()
        .filter(|v| !plan.writes_on(v))
        .cloned()
        .collect();
    if chosen == own {
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
        weight(&chosen) / own_weight
    } else {
        1.0
    }
}

/// Each variant of `plan` as planned; one that cannot run here costs nothing.
fn items(plan: &RunPlan, runnable: &dyn Fn(usize) -> bool) -> Vec<Item> {
    let mut generated = Vec::new();
    plan.variants
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
        .collect()
}

impl Schedule {
    pub fn new(plan: &RunPlan, runnable: impl Fn(usize) -> bool) -> Schedule {
        Schedule {
            items: items(plan, &runnable),
            repeats: plan.repeats,
            budget_s: match plan.repeats {
                // The run's end costs the same whatever the tests: only the rest is shared.
                Repeats::UntilPrecise(_) => {
                    let work = plan.profile.budget.as_secs_f64() - FINISH_S;
                    Some(FINISH_S + work * chosen_share(plan))
                }
                Repeats::Exactly(_) => None,
            },
            judged: 0.0,
            used: 0.0,
            stretched: false,
        }
    }

    /// The variants from `from` on as `plan` has them (the same variants, sized for the
    /// destination: `RunPlan::sized`); the budget stays the one the profile's sizes were given.
    pub fn replan(&mut self, plan: &RunPlan, from: usize, runnable: &dyn Fn(usize) -> bool) {
        let fresh = items(plan, runnable);
        self.items.splice(from.., fresh.into_iter().skip(from));
    }

    /// The run said, before its tests, that it will take longer than its budget: its variants
    /// then run their least repetitions, and the short headline figures may go past theirs.
    pub fn mark_stretched(&mut self) {
        self.stretched = true;
    }

    /// What one repetition of variant `i` is planned to cost, as the ETA learns from it: a
    /// test that runs once, until its rate is steady or for at most its time (`sustained`),
    /// teaches nothing of how much of their time the others take, nor one whose files cost a
    /// fraction of a copied one's ([`Item::teaches`]).
    pub fn cost(&self, i: usize) -> Cost {
        let item = &self.items[i];
        if item.teaches {
            item.cost
        } else {
            Cost::default()
        }
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
        let Cost { bytes, files, .. } = self.prepare(i);
        eta.predict_untimed(&[Work::new(Untimed::Copy, bytes, files)])
    }

    /// Seconds of each kind of untimed work the variants from `i` on are planned to do at
    /// their least repetitions, in `Untimed::VARIANTS`' order.
    pub fn untimed_from(&self, eta: &Eta, i: usize) -> [f64; Untimed::VARIANTS.len()] {
        let mut planned = [0.0; Untimed::VARIANTS.len()];
        for (j, item) in self.items.iter().enumerate().skip(i) {
            for &work in &item.once {
                planned[work.kind as usize] += eta.predict_untimed(&[work]);
            }
            if item.took_reps == 0 {
                let least = self.least(j) as f64;
                for &work in &item.each {
                    planned[work.kind as usize] += least * eta.predict_untimed(&[work]);
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
        let left = self.work_left_s(eta.elapsed_s())?.max(0.0);
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
        let Some(left) = self.work_left_s(eta.elapsed_s()) else {
            return own + later.map(|j| self.weight(eta, j)).sum::<f64>();
        };
        let left = (left - own).max(0.0);
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

    /// Seconds the budget leaves for the run's work `now_s` into it, its end kept
    /// ([`FINISH_S`]); negative once past that, None without a budget.
    pub fn work_left_s(&self, now_s: f64) -> Option<f64> {
        Some(self.budget_s? - now_s - FINISH_S)
    }

    /// Whether variant `i` stops after repetitions of `figures` whose median is known to
    /// `precision` (`results::precision_of`), having spent `spent_s` of its `allowance_s`, its
    /// next repetition predicted at `next_s`.
    pub fn stop(
        &self,
        i: usize,
        (figures, precision): (&[f64], Option<f64>),
        spent_s: f64,
        next_s: f64,
        allowance_s: Option<f64>,
    ) -> Option<StopReason> {
        let item = &self.items[i];
        let done = figures.len();
        if item.single {
            return (done > 0).then_some(StopReason::Count);
        }
        // In a run already stretched past its budget, where every variant has only its least,
        // a short headline figure repeats on while its figures can still become precise.
        let past_allowance = item.until_precise
            && self.stretched
            && match self.repeats {
                Repeats::UntilPrecise(a) => {
                    precision::within_reach(figures, a.precision, a.max_runs)
                }
                Repeats::Exactly(_) => false,
            };
        decide(
            self.repeats,
            (done, precision),
            spent_s + next_s,
            allowance_s.filter(|_| !past_allowance),
        )
    }
}

/// The stopping rule: `--runs N` stops at N; the adaptive rule never before its least
/// repetitions, then once the median is precise (its 95% half-width, a fraction of it, within
/// the profile's), else at its most repetitions or once the next repetition would end after
/// the variant's allowance (`would_spend_s` is the time spent with it). `n` repetitions ran.
pub(in crate::runner) fn decide(
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
mod tests;
