//! What one variant is planned to cost, as the schedule shares the budget by it: a repetition,
//! its preparation, and the untimed work it does once and around each repetition, until its
//! repetitions' own times replace the plan.

use crate::results::{Untimed, repeats_until_precise};
use crate::settings::{Repeats, RunPlan};
use crate::workload::{SetName, TestId, Variant};

use crate::runner::eta::{Cost, Eta};
use crate::runner::kinds::test_for;
use crate::runner::untimed::Work;

/// One variant as the schedule sees it.
#[derive(Clone)]
pub(in crate::runner) struct Item {
    pub cost: Cost,
    /// What preparing it costs, before its first repetition.
    pub prepare: Cost,
    /// Untimed work it does once: its preparation, its source generated (the first variant to
    /// need a generated set), a copy verified, what it made removed.
    pub once: Vec<Work>,
    /// Untimed work around each repetition, until its repetitions' own times are known.
    pub each: Vec<Work>,
    /// A test that runs once whatever the plan (sustained, throttled).
    pub single: bool,
    /// Its repetitions teach the ETA (`Test::teaches`, and not a test that runs once).
    pub teaches: bool,
    /// A headline figure of short repetitions (`results::repeats_until_precise`): a few
    /// seconds more of it buys a figure to quote, so it repeats until precise or its most
    /// repetitions, past its share of the budget.
    pub until_precise: bool,
    /// Its test: a variant not yet repeated is predicted as its siblings went.
    pub test: TestId,
    /// Seconds its finished repetitions took, and how many: its next one is predicted from
    /// them rather than from its cost.
    pub took_s: f64,
    pub took_reps: usize,
}

impl Item {
    /// Variant `v` as planned: what a repetition and its preparation cost, nothing taken yet;
    /// `generated` holds the sets the variants before it generate (it adds its own).
    pub fn planned(plan: &RunPlan, v: &Variant, generated: &mut Vec<SetName>) -> Item {
        let test = test_for(&v.workload);
        let mut once = Vec::new();
        if let Some(set @ SetName::Generated(_)) = test.source_set()
            && !generated.contains(&set)
        {
            generated.push(set);
            let bytes = plan.file_sets.iter().find(|s| s.name == set);
            // Generated on the source's side: none of its files is the destination's.
            let bytes = bytes.map_or(0, |s| s.total_bytes);
            once.push(Work::new(Untimed::Generate, bytes, 0));
        }
        let prepare = Cost {
            seconds: 0.0,
            bytes: test.prepare_bytes(plan),
            files: test.prepare_files(plan),
        };
        if prepare.bytes + prepare.files > 0 {
            once.push(Work::new(Untimed::Copy, prepare.bytes, prepare.files));
        }
        once.extend(test.untimed_once(plan));
        Item {
            cost: Cost {
                seconds: test.planned_s(plan),
                bytes: test.planned_bytes(plan),
                files: test.planned_files(plan),
            },
            prepare,
            once,
            each: test.untimed_each(plan),
            single: v.test.single_run(),
            teaches: test.teaches() && !v.test.single_run(),
            until_precise: repeats_until_precise(&v.workload),
            test: v.test,
            took_s: 0.0,
            took_reps: 0,
        }
    }

    /// The least repetitions it runs under `repeats`.
    pub fn least(&self, repeats: Repeats) -> usize {
        if self.single { 1 } else { repeats.least() }
    }

    /// The seconds its next repetition is predicted to take, untimed work around it included:
    /// the mean of its own so far, else its cost's prediction.
    pub fn next_rep_s(&self, eta: &Eta) -> f64 {
        if self.took_reps > 0 {
            self.took_s / self.took_reps as f64
        } else {
            self.planned_rep_s(eta)
        }
    }

    /// The seconds a repetition is predicted to take from its cost and untimed work alone.
    pub fn planned_rep_s(&self, eta: &Eta) -> f64 {
        eta.predict(self.cost) + eta.predict_untimed(&self.each)
    }

    /// The seconds of its untimed work done once and its least repetitions.
    pub fn least_s(&self, eta: &Eta, repeats: Repeats) -> f64 {
        eta.predict_untimed(&self.once) + self.least(repeats) as f64 * self.next_rep_s(eta)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::RunOptions;

    /// The default plan's variants as planned, in order.
    fn default_items() -> (RunPlan, Vec<Item>) {
        let plan = RunOptions::new("/tmp").plan().unwrap();
        let mut generated = Vec::new();
        let items = plan
            .variants
            .iter()
            .map(|v| Item::planned(&plan, v, &mut generated))
            .collect();
        (plan, items)
    }

    /// Each generated set is paid for once, by the first variant that reads it; a restore's
    /// copy is laid down, verified and removed once; a delete lays a copy down each time.
    #[test]
    fn untimed_work_is_planned_where_it_happens() {
        let (plan, items) = default_items();
        let generating = items
            .iter()
            .filter(|it| it.once.iter().any(|w| w.kind == Untimed::Generate))
            .count();
        assert_eq!(generating, plan.file_sets.len());
        let of = |test: TestId| {
            let i = plan.variants.iter().position(|v| v.test == test).unwrap();
            &items[i]
        };
        let restore = of(TestId::FilesRestore);
        for kind in [Untimed::Copy, Untimed::Verify, Untimed::Remove] {
            assert!(restore.once.iter().any(|w| w.kind == kind), "{kind:?}");
        }
        assert!(
            of(TestId::FilesDelete)
                .each
                .iter()
                .any(|w| w.kind == Untimed::Copy)
        );
        assert!(of(TestId::SeqWrite).once.is_empty() && of(TestId::SeqWrite).each.is_empty());
    }

    /// A variant's least is its once-work and its least repetitions, each with its untimed
    /// work, at the rates shown; its own repetitions' times replace the plan once known.
    #[test]
    fn the_least_counts_untimed_work_until_repetitions_are_timed() {
        let mut item = Item {
            cost: Cost {
                seconds: 1.0,
                ..Cost::default()
            },
            prepare: Cost::default(),
            once: vec![Work::new(Untimed::Verify, 300_000_000, 0)],
            each: vec![Work::new(Untimed::Copy, 50_000_000, 0)],
            single: false,
            teaches: true,
            until_precise: false,
            test: TestId::SeqWrite,
            took_s: 0.0,
            took_reps: 0,
        };
        let eta = Eta::default();
        let rule = RunOptions::new("/tmp").plan().unwrap().repeats;
        let least = rule.least() as f64;
        // At the prior 100 MB/s (the kinds' priors are faster): 3 s once, 1.5 s a repetition.
        assert!((item.least_s(&eta, rule) - (3.0 + least * 1.5)).abs() < 1e-9);
        item.took_s = 6.0;
        item.took_reps = 2;
        assert!((item.least_s(&eta, rule) - (3.0 + least * 3.0)).abs() < 1e-9);
    }
}
