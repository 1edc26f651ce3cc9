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
        "the destination is slow for the {} profile's budget of {budget:.0} s: even {} repetition(s) of each test need about {needs:.0} s, so the run will take that long",
        plan.profile.name,
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
                "the run took {took:.0} s, more than the {} profile's budget of {budget:.0} s: {} repetition(s) of each test and the untimed work between them took that long here (a slow destination or a busy machine)",
                plan.profile.name,
                plan.repeats.least(),
            ),
        )
    })
}
