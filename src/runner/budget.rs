//! What the run says about its time budget: that a destination is too slow for it, before the
//! tests when the test file's first part shows it, or after a run that overran it unforeseen.

use crate::results::{Warning, WarningKind};
use crate::settings::RunPlan;

use super::eta::{self, Cost};
use super::schedule::Schedule;
use super::tracking::Tracker;

/// The `stretched` warning, said before the tests run, when even the least repetitions of every
/// variant (and `unwritten`, what is left of the test file) are predicted, at the rate the test
/// file is written at, to take longer than the profile's budget: the run goes on, as long as it
/// needs.
pub(super) fn stretched(
    plan: &RunPlan,
    schedule: &Schedule,
    tracker: &mut Tracker<'_>,
    unwritten: Cost,
) -> Option<Warning> {
    let budget = schedule.budget_s()?;
    let eta = tracker.eta();
    let needs = tracker.now_s() + eta.predict(unwritten) + schedule.least_from(eta, 0);
    if needs <= budget * 1.1 {
        return None;
    }
    let message = format!(
        "the destination is slow for {}: even {} repetition(s) of each test need about {needs:.0} s, so the run will take that long",
        budget_words(plan, budget),
        plan.repeats.least(),
    );
    tracker.note(&message);
    Some(Warning::new(WarningKind::Stretched, message))
}

/// The `stretched` warning after the run, when it took well over the budget though its start
/// did not foresee it: the least repetitions and the work between them (generating, copying,
/// evicting, verifying), which no plan times before it has seen them, took that long here.
pub(super) fn overran(plan: &RunPlan, schedule: &Schedule, eta: &eta::Eta) -> Option<Warning> {
    let budget = schedule.budget_s()?;
    let took = eta.elapsed_s();
    (took > budget * 1.2).then(|| {
        Warning::new(
            WarningKind::Stretched,
            format!(
                "the run took {took:.0} s, more than {}: {} repetition(s) of each test and the untimed work between them took that long here (a slow destination or a busy machine)",
                budget_words(plan, budget),
                plan.repeats.least(),
            ),
        )
    })
}

/// "the backup profile's budget of 90 s", or with `--tests`, "the backup profile's budget for
/// these tests (14 s of its 90 s)".
fn budget_words(plan: &RunPlan, budget_s: f64) -> String {
    let name = plan.profile.name;
    let whole = plan.profile.budget.as_secs_f64();
    if (budget_s - whole).abs() < 0.5 {
        format!("the {name} profile's budget of {whole:.0} s")
    } else {
        format!("the {name} profile's budget for these tests ({budget_s:.0} s of its {whole:.0} s)")
    }
}
