//! The run's measuring: the block tests' file laid down, then every variant in the plan's
//! order, each given its share of the budget, with the run's clock and the ledger of untimed
//! work kept for the ETA and the run's time account.

use std::time::Instant;

use crate::error::{Error, Result};
use crate::results::{TestFailure, TestResult, TimeAccount, Untimed, Warning};
use crate::units;
use crate::workload::{TestId, Workload};

use crate::runner::ctx::Ctx;
use crate::runner::eta;
use crate::runner::kinds::block;
use crate::runner::progress::Progress;
use crate::runner::time::schedule::Schedule;
use crate::runner::time::tracking::Tracker;
use crate::runner::time::{account, budget};
use crate::runner::variant::run_variant;
use crate::settings::RunPlan;

/// The block tests' file and every variant, timed for the ETA from the run's start `wall`, and
/// how the time went against the plan; the budget's warnings (the run stretched, foreseen or
/// not) go to `warnings`.
pub(super) fn measure(
    ctx: &mut Ctx<'_>,
    plan: &RunPlan,
    progress: &mut dyn Progress,
    warnings: &mut Vec<Warning>,
    wall: Instant,
) -> Result<(Vec<TestResult>, Vec<TestFailure>, TimeAccount)> {
    let capabilities = ctx.engines.capabilities();
    let schedule = Schedule::new(plan, |i| ctx.can_run(&plan.variants[i]));
    let mut tracker = Tracker::new(progress, !capabilities.real_io, wall, ctx.ledger.clone());
    tracker.begin(first_plan_s(plan, &schedule, tracker.eta()));
    let mut run = Running {
        schedule,
        tracker,
        stretch: None,
    };
    // A sustained write goes before the block tests' file, whose bytes would fill a cache.
    let before_file = usize::from(
        plan.variants
            .first()
            .is_some_and(|v| v.test == TestId::Sustained),
    );
    let (mut results, mut failures) = run_variants(ctx, plan, (0..before_file, None), &mut run)?;
    let block_file_problem = prepare_block_file(ctx, plan, &mut run, before_file)?;
    if run.stretch.is_none() {
        let (schedule, tracker) = (&run.schedule, &mut run.tracker);
        run.stretch = budget::stretched(plan, schedule, tracker, eta::Cost::default(), before_file);
    }
    if run.stretch.is_some() {
        run.schedule.mark_stretched();
    }
    let planned = account::Planned::at(run.tracker.now_s(), &run.schedule, run.tracker.eta());
    let rest = before_file..plan.variants.len();
    let (more, more_failures) = run_variants(ctx, plan, (rest, block_file_problem), &mut run)?;
    results.extend(more);
    failures.extend(more_failures);
    let Running {
        schedule,
        mut tracker,
        stretch,
    } = run;
    tracker.finish();
    let foreseen = stretch.is_some();
    let took = tracker.eta().elapsed_s();
    warnings.extend(stretch.filter(|_| budget::went_over(schedule.budget_s(), took)));
    if !foreseen {
        warnings.extend(budget::overran(plan, &schedule, tracker.eta()));
    }
    let time = planned.account(
        tracker.first_note_s(),
        &schedule,
        &tracker,
        &results,
        &ctx.ledger,
    );
    Ok((results, failures, time))
}

/// The run's schedule and clock while its variants run, and the `stretched` warning once it
/// knows it.
struct Running<'p> {
    schedule: Schedule,
    tracker: Tracker<'p>,
    stretch: Option<Warning>,
}

/// The run's first plan, in seconds: every variant's predicted time and the block file's.
pub(super) fn first_plan_s(plan: &RunPlan, schedule: &Schedule, eta: &eta::Eta) -> f64 {
    schedule.predicted_from(eta, schedule.start(eta, 0)) + eta.predict(block_file_cost(plan))
}

/// What writing the block tests' file costs: its bytes, none without block tests.
fn block_file_cost(plan: &RunPlan) -> eta::Cost {
    eta::Cost {
        seconds: 0.0,
        bytes: if plan.has_block_tests() {
            plan.file_size
        } else {
            0
        },
    }
}

/// Writes the block tests' file when the plan has block tests, before variant `next`. A failure
/// to write it is returned as what the block tests will fail with (Err only when it ends the
/// run).
fn prepare_block_file(
    ctx: &mut Ctx<'_>,
    plan: &RunPlan,
    run: &mut Running<'_>,
    next: usize,
) -> Result<Option<String>> {
    if !plan.has_block_tests() {
        return Ok(None);
    }
    let Running {
        schedule,
        tracker,
        stretch,
    } = run;
    let schedule = &*schedule;
    let start = schedule.start(tracker.eta(), next);
    let file = tracker.eta().predict(block_file_cost(plan));
    let after = schedule.predicted_from(tracker.eta(), start);
    tracker.step(
        &format!(
            "preparing the {} test file",
            units::format_bytes(plan.file_size)
        ),
        block_file_cost(plan),
        (file, after),
    );
    // The file's first part tells whether the run fits its budget, before the rest is written.
    let mut head = |bytes: u64, took: std::time::Duration| {
        let written = eta::Cost {
            seconds: 0.0,
            bytes,
        };
        tracker.learn(written, took.as_secs_f64());
        let rest = eta::Cost {
            seconds: 0.0,
            bytes: plan.file_size - bytes,
        };
        *stretch = budget::stretched(plan, schedule, tracker, rest, next);
    };
    let written = block::prepare_test_file(ctx, plan.file_size, &mut head);
    if let Ok(took) = written {
        tracker.advance(took.as_secs_f64());
    }
    // The file's time teaches the ETA the destination's rate before anything is measured.
    tracker.close();
    if let Ok(took) = written {
        ctx.ledger
            .add(Untimed::TestFile, took.as_secs_f64(), plan.file_size);
    }
    match written {
        Ok(_) => Ok(None),
        Err(e @ Error::Interrupted(_)) => Err(e),
        Err(e) if ctx.hook.failures_end_run() => Err(e),
        Err(e) => {
            // A partial file would only take space from the tests that can still run.
            ctx.remove_file(block::TEST_FILE);
            Ok(Some(e.to_string()))
        }
    }
}

/// Runs the variants of `range` the engine can, in the plan's order: the results, and the
/// variants that failed (Err only for what ends the run); a block variant fails at once with
/// the block file's problem, where it has one.
fn run_variants(
    ctx: &mut Ctx<'_>,
    plan: &RunPlan,
    (range, block_file_problem): (std::ops::Range<usize>, Option<String>),
    run: &mut Running<'_>,
) -> Result<(Vec<TestResult>, Vec<TestFailure>)> {
    let mut results = Vec::new();
    let mut failures = Vec::new();
    for (index, variant) in plan
        .variants
        .iter()
        .enumerate()
        .skip(range.start)
        .take(range.len())
    {
        let fail = |error: String| TestFailure {
            test: variant.test,
            variant: variant.name.to_string(),
            error,
        };
        if let (Workload::Block { .. }, Some(problem)) = (&variant.workload, &block_file_problem) {
            failures.push(fail(format!(
                "the test file could not be written: {problem}"
            )));
            continue;
        }
        if !ctx.can_run(variant) {
            continue;
        }
        let outcome = run_variant(
            ctx,
            plan,
            (index, variant),
            &mut run.schedule,
            &mut run.tracker,
        );
        match outcome {
            Ok((result, integrity)) => {
                results.extend(result);
                failures.extend(integrity.map(fail));
            }
            Err(e @ Error::Interrupted(_)) => return Err(e),
            Err(e) if ctx.hook.failures_end_run() => return Err(e),
            Err(e) => failures.push(fail(e.to_string())),
        }
        // The first variants' own times (untimed work included) can show the run will not fit.
        if run.stretch.is_none() {
            let (schedule, tracker) = (&run.schedule, &mut run.tracker);
            run.stretch =
                budget::stretched(plan, schedule, tracker, eta::Cost::default(), index + 1);
        }
    }
    Ok((results, failures))
}
