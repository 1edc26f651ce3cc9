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
use crate::runner::time::{account, budget, sizing};
use crate::runner::untimed::Work;
use crate::runner::variant::run_variant;
use crate::settings::RunPlan;

/// What the measuring made.
pub(super) struct Measurements {
    pub results: Vec<TestResult>,
    pub failures: Vec<TestFailure>,
    /// How the time went against the plan.
    pub time: TimeAccount,
    /// The plan as the run sized it for the destination (`RunPlan::sized`).
    pub plan: RunPlan,
}

/// The block tests' file and every variant, timed for the ETA from the run's start `wall`; the
/// budget's warnings (the run stretched, foreseen or not) go to `warnings`.
pub(super) fn measure(
    ctx: &mut Ctx<'_>,
    plan: &RunPlan,
    progress: &mut dyn Progress,
    warnings: &mut Vec<Warning>,
    wall: Instant,
) -> Result<Measurements> {
    let capabilities = ctx.engines.capabilities();
    let schedule = Schedule::new(plan, |i| ctx.can_run(&plan.variants[i]));
    let eta = eta::Eta::for_plan(plan);
    let mut tracker = Tracker::new(
        progress,
        !capabilities.real_io,
        wall,
        ctx.ledger.clone(),
        eta,
    );
    tracker.begin(first_plan_s(plan, &schedule, tracker.eta()));
    let mut run = Running {
        schedule,
        tracker,
        stretch: None,
        sized: false,
    };
    // A sustained write goes before the block tests' file, whose bytes would fill a cache.
    let before_file = usize::from(
        plan.variants
            .first()
            .is_some_and(|v| v.test == TestId::Sustained),
    );
    let (mut results, mut failures) = run_variants(ctx, plan, (0..before_file, None), &mut run)?;
    let (block_file_problem, sized) = prepare_block_file(ctx, plan, &mut run, before_file)?;
    run.sized = true;
    let profile = plan;
    if run.stretch.is_none() {
        let (schedule, tracker) = (&run.schedule, &mut run.tracker);
        run.stretch =
            budget::stretched(&sized, schedule, tracker, eta::Cost::default(), before_file);
    }
    if run.stretch.is_some() {
        run.schedule.mark_stretched();
    }
    let planned = account::Planned::at(run.tracker.now_s(), &run.schedule, run.tracker.eta());
    let (more, more_failures, sized) = run_sized(
        ctx,
        (profile, sized),
        (before_file, block_file_problem),
        &mut run,
    )?;
    results.extend(more);
    failures.extend(more_failures);
    let Running {
        schedule,
        mut tracker,
        stretch,
        ..
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
    Ok(Measurements {
        results,
        failures,
        time,
        plan: sized,
    })
}

/// The run's schedule and clock while its variants run, and the `stretched` warning once it
/// knows it.
struct Running<'p> {
    schedule: Schedule,
    tracker: Tracker<'p>,
    stretch: Option<Warning>,
    /// Whether the work fixed in bytes is sized for the destination (`sizing`): before, a
    /// forecast would judge the profile's sizes, at a rate not yet seen.
    sized: bool,
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
        files: 0,
    }
}

/// Writes the block tests' file when the plan has block tests, before variant `next`, and sizes
/// the run's work fixed in bytes once its first part has shown the destination's rate (the
/// plan as sized, `plan` itself without block tests). A failure to write it is returned as what
/// the block tests will fail with (Err only when it ends the run).
fn prepare_block_file(
    ctx: &mut Ctx<'_>,
    plan: &RunPlan,
    run: &mut Running<'_>,
    next: usize,
) -> Result<(Option<String>, RunPlan)> {
    if !plan.has_block_tests() {
        return Ok((None, plan.clone()));
    }
    let Running {
        schedule,
        tracker,
        stretch,
        ..
    } = run;
    let start = schedule.start(tracker.eta(), next);
    let file = tracker.eta().predict(block_file_cost(plan));
    let after = schedule.predicted_from(tracker.eta(), start);
    tracker.step(&file_message(plan), block_file_cost(plan), (file, after));
    let runnable: Vec<bool> = plan.variants.iter().map(|v| ctx.can_run(v)).collect();
    let runnable = |i: usize| runnable[i];
    let one_pass = ctx.access.real_io && !ctx.access.direct;
    let mut sized = plan.clone();
    // The file's first part shows the rate: the work is sized to it, and whether the run fits
    // its budget is known before the rest is written.
    let mut head = |bytes: u64, took: std::time::Duration| {
        let written = eta::Cost {
            bytes,
            ..eta::Cost::default()
        };
        tracker.learn(written, took.as_secs_f64());
        let seen = sizing::Seen {
            eta: tracker.eta(),
            now_s: tracker.now_s(),
            written: bytes,
            next,
            one_pass,
        };
        sized = sizing::sized(plan, schedule, &seen, &runnable);
        schedule.replan(&sized, next, &runnable);
        tracker.recost(block_file_cost(&sized));
        tracker.display().update(&file_message(&sized));
        let rest = eta::Cost {
            bytes: sized.file_size - bytes,
            ..eta::Cost::default()
        };
        *stretch = budget::stretched(&sized, schedule, tracker, rest, next);
        sized.file_size
    };
    let written = block::prepare_test_file(ctx, plan.file_size, &mut head);
    if let Ok((_, took)) = written {
        tracker.advance(took.as_secs_f64());
    }
    // The file's time teaches the ETA the destination's rate before anything is measured.
    tracker.close();
    match written {
        Ok((size, took)) => {
            ctx.ledger
                .add(Work::new(Untimed::TestFile, size, 0), took.as_secs_f64());
            Ok((None, sized))
        }
        Err(e @ Error::Interrupted(_)) => Err(e),
        Err(e) if ctx.hook.failures_end_run() => Err(e),
        Err(e) => {
            // A partial file would only take space from the tests that can still run.
            ctx.remove_file(block::TEST_FILE);
            Ok((Some(e.to_string()), sized))
        }
    }
}

/// The step of laying the test file down, in the progress.
fn file_message(plan: &RunPlan) -> String {
    format!(
        "preparing the {} test file",
        units::format_bytes(plan.file_size)
    )
}

/// Runs the variants from `from` on with `plan` as sized at the test file, each generated set
/// sized again where the run reaches it (`sizing::sized_set`, from its size in `profile`): the
/// results, the failures, and the plan as last sized. A block variant fails at once with the
/// block file's `problem`, where it has one.
fn run_sized(
    ctx: &mut Ctx<'_>,
    (profile, mut plan): (&RunPlan, RunPlan),
    (from, problem): (usize, Option<String>),
    run: &mut Running<'_>,
) -> Result<(Vec<TestResult>, Vec<TestFailure>, RunPlan)> {
    let runnable: Vec<bool> = plan.variants.iter().map(|v| ctx.can_run(v)).collect();
    let runnable = |i: usize| runnable[i];
    // Without block tests no rate is known before the sets: they keep their sizes.
    let starts = if plan.has_block_tests() {
        sizing::set_starts(&plan, from)
    } else {
        Vec::new()
    };
    let mut ends: Vec<_> = starts.into_iter().map(|(i, set)| (i, Some(set))).collect();
    ends.push((plan.variants.len(), None));
    let (mut results, mut failures) = (Vec::new(), Vec::new());
    let mut start = from;
    for (end, set) in ends {
        let (more, more_failures) = run_variants(ctx, &plan, (start..end, problem.clone()), run)?;
        results.extend(more);
        failures.extend(more_failures);
        if let Some(set) = set {
            let seen = sizing::Seen {
                eta: run.tracker.eta(),
                now_s: run.tracker.now_s(),
                written: plan.file_size,
                next: end,
                one_pass: false,
            };
            plan = sizing::sized_set((&plan, profile), set, &run.schedule, &seen, &runnable);
            run.schedule.replan(&plan, end, &runnable);
        }
        start = end;
    }
    Ok((results, failures, plan))
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
        if run.stretch.is_none() && run.sized {
            let (schedule, tracker) = (&run.schedule, &mut run.tracker);
            run.stretch =
                budget::stretched(plan, schedule, tracker, eta::Cost::default(), index + 1);
        }
    }
    Ok((results, failures))
}
