//! What the run says about its time budget: that a destination is too slow for it, before the
//! tests when the test file's first part shows it, or after a run that overran it unforeseen.

use crate::results::{Warning, WarningKind};
use crate::settings::RunPlan;

use crate::runner::eta::{self, Cost};
use crate::runner::time::schedule::Schedule;
use crate::runner::time::tracking::Tracker;

/// The `stretched` warning, said as soon as the run knows it: before the tests run, when even
/// the least repetitions of every variant and the untimed work they need (and `unwritten`, what
/// is left of the test file) are predicted, at the rates the destination has shown, to end after
/// the profile's budget; or after a variant, when the variants from `from` on are. The run goes
/// on, as long as it needs.
pub(in crate::runner) fn stretched(
    plan: &RunPlan,
    schedule: &Schedule,
    tracker: &mut Tracker<'_>,
    unwritten: Cost,
    from: usize,
) -> Option<Warning> {
    let budget = schedule.budget_s()?;
    let eta = tracker.eta();
    let least = eta.predict(unwritten) + schedule.least_from(eta, from);
    let Fit::Stretched(needs) = fit(budget, tracker.now_s(), least) else {
        return None;
    };
    let message = format!(
        "this destination is too slow for {}: even the fewest repetitions ({} of each test) and the work between them need about {needs:.0} s, so the run will take that long",
        budget_words(plan, budget),
        plan.repeats.least(),
    );
    tracker.note(&message);
    Some(Warning::new(WarningKind::Stretched, message))
}

/// How far over the budget a forecast of the least work may be and still be called fitting:
/// default runs on /var/tmp forecast 93-94 s mid-run and ended at 88-90 s.
const FORECAST_NOISE: f64 = 0.05;

/// Whether the least work fits the budget.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(in crate::runner) enum Fit {
    Fits,
    /// It does not: the run's whole length, in seconds, at the least.
    Stretched(f64),
}

/// What the run's end is forecast to take after its last variant: the scratch directory
/// removed, the verdict, the report and the answer's cold sample (0.5-1.4 s on this machine's
/// disk). The budget keeps more (`schedule::FINISH_S`) for the variants' overshoot of their
/// allowances too, which is no part of a forecast: with it, default runs on the testbed's sshfs
/// share forecast 90-93 s near their end and ended at 84-87 s.
const END_S: f64 = 1.5;

/// Whether `least_s` more seconds of work, `now_s` into the run, end within `budget_s`, the
/// run's end ([`END_S`]) included, or within [`FORECAST_NOISE`] over it.
pub(in crate::runner) fn fit(budget_s: f64, now_s: f64, least_s: f64) -> Fit {
    let needs = now_s + least_s + END_S;
    if needs <= budget_s * (1.0 + FORECAST_NOISE) {
        Fit::Fits
    } else {
        Fit::Stretched(needs)
    }
}

/// Whether a run that took `took_s` went past `budget_s` by more than a forecast's noise: a
/// `stretched` said mid-run is kept only then, since the document says what happened (default
/// runs on /var/tmp forecast 95-96 s at the file sets and ended at 89-90 s).
pub(in crate::runner) fn went_over(budget_s: Option<f64>, took_s: f64) -> bool {
    budget_s.is_none_or(|budget| took_s > budget * (1.0 + FORECAST_NOISE))
}

/// The `stretched` warning after the run, when it took well over the budget though its start
/// did not foresee it: the least repetitions and the work between them (generating, copying,
/// evicting, verifying), which no plan times before it has seen them, took that long here.
pub(in crate::runner) fn overran(
    plan: &RunPlan,
    schedule: &Schedule,
    eta: &eta::Eta,
) -> Option<Warning> {
    let budget = schedule.budget_s()?;
    let took = eta.elapsed_s();
    (took > budget * 1.2).then(|| {
        Warning::new(
            WarningKind::Stretched,
            format!(
                "the run took {took:.0} s, more than {}: the fewest repetitions ({} of each test) and the work between them took that long here (a slow destination or a busy machine)",
                budget_words(plan, budget),
                plan.repeats.least(),
            ),
        )
    })
}

/// "the backup profile's 90 s", or with `--tests`, "the 14 s the backup profile gives these
/// tests".
fn budget_words(plan: &RunPlan, budget_s: f64) -> String {
    let name = plan.profile.name;
    let whole = plan.profile.budget.as_secs_f64();
    if (budget_s - whole).abs() < 0.5 {
        format!("the {name} profile's {whole:.0} s")
    } else {
        format!("the {budget_s:.0} s the {name} profile gives these tests")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_work_fits_or_stretches_the_run_to_its_whole_length() {
        let finish = END_S;
        assert_eq!(fit(90.0, 10.0, 70.0), Fit::Fits);
        assert_eq!(fit(90.0, 10.0, 90.0 - 10.0 - finish), Fit::Fits);
        assert_eq!(
            fit(90.0, 10.0, 94.5 - 10.0 - finish),
            Fit::Fits,
            "within 5%"
        );
        assert_eq!(fit(90.0, 10.0, 85.0), Fit::Stretched(95.0 + finish));
        assert!(!went_over(Some(90.0), 90.3) && went_over(Some(90.0), 95.0));
        assert!(went_over(None, 1.0));
    }

    /// The budget in words a person reads: the profile's seconds, or the part these tests get.
    #[test]
    fn the_budget_is_said_in_plain_words() {
        let plan = crate::settings::RunOptions::new("/tmp").plan().unwrap();
        assert_eq!(budget_words(&plan, 90.0), "the backup profile's 90 s");
        assert_eq!(
            budget_words(&plan, 14.2),
            "the 14 s the backup profile gives these tests"
        );
    }
}
