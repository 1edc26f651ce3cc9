//! One variant of a test: its repetitions, their measurement by the test's own module, and the
//! result they make together.

use std::time::SystemTime;

use crate::engine::EngineKind;
use crate::error::Result;
use crate::interrupt;
use crate::results::{
    Details, FileSetInfo, Method, Repetition, StopReason, TestResult, TestResultParts, precision_of,
};
use crate::results::{Warning, WarningKind};
use crate::settings::{Repeats, defs};
use crate::stats::LatencyHistogram;
use crate::workload::{Variant, Workload};

use crate::runner::ctx::{Ctx, Measured};
use crate::runner::eta::Cost;
use crate::runner::kinds::sets;
use crate::runner::kinds::test::{Rep, Shape, Test};
use crate::runner::kinds::test_for;
use crate::runner::time::schedule::{Position, Schedule};
use crate::runner::time::tracking::Tracker;
use crate::settings::RunPlan;

/// All repetitions of one variant (the `index`th of the plan), and a data-integrity failure if
/// its data did not survive. A repetition that fails ends the variant with that error.
pub(super) fn run_variant(
    ctx: &mut Ctx<'_>,
    plan: &RunPlan,
    (index, variant): (usize, &Variant),
    schedule: &mut Schedule,
    tracker: &mut Tracker<'_>,
) -> Result<(Option<TestResult>, Option<String>)> {
    let mut test = test_for(&variant.workload);
    let mut gathered = Gathered::default();
    let at = schedule.start(tracker.eta(), index);
    let started = tracker.now_s();
    let prepare = schedule.prepare(index);
    if prepare != Cost::default() {
        let times = schedule.split(tracker.eta(), at, schedule.prepare_s(tracker.eta(), index));
        let message = format!("{} {} (preparing)", variant.test, variant.name);
        // Its work is untimed: the ledger teaches its price, not the step.
        tracker.step(&message, Cost::default(), times);
    }
    let prepared = test.prepare(Rep {
        ctx: &mut *ctx,
        plan,
        index: 0,
        progress: tracker.display(),
    });
    let outcome = prepared.and_then(|()| {
        let mut job = Job {
            index,
            variant,
            test: test.as_mut(),
            gathered: &mut gathered,
            allowance: at.allowance,
            started,
        };
        repeat(ctx, plan, &mut job, schedule, tracker)
    });
    test.clean_up(ctx);
    let spent = tracker.now_s() - started;
    schedule.finished(tracker.eta(), index, spent, at.allowance);
    outcome?;
    Ok(gathered.into_result(plan, variant, test.shape()))
}

/// What the repetitions of one variant gathered, in the order they ran.
#[derive(Default)]
struct Gathered {
    repetitions: Vec<Repetition>,
    latency: LatencyHistogram,
    warnings: Vec<Warning>,
    method: Option<Method>,
    engine: Option<EngineKind>,
    file_set: Option<FileSetInfo>,
    integrity: Option<String>,
    details: Option<Details>,
    stopped: Option<StopReason>,
}

impl Gathered {
    /// Adds a repetition: the last one's method, engine, set and details stand for all, the
    /// first integrity failure is kept, and each warning is said once.
    fn add(&mut self, measured: Measured) {
        self.latency += &measured.latency;
        self.method = Some(measured.method);
        self.engine = Some(measured.engine);
        self.file_set = measured.file_set;
        self.details = measured.details;
        if self.integrity.is_none() {
            self.integrity = measured.integrity_error;
        }
        Warning::add_new(&mut self.warnings, measured.warnings);
        self.repetitions.push(measured.repetition);
    }

    /// The variant's result (None when no repetition ran), and its integrity failure.
    fn into_result(
        mut self,
        plan: &RunPlan,
        variant: &Variant,
        shape: Shape,
    ) -> (Option<TestResult>, Option<String>) {
        let (Some(method), Some(engine)) = (self.method, self.engine) else {
            return (None, self.integrity);
        };
        self.warnings
            .extend(short_sample(plan, variant, &self.repetitions));
        self.warnings
            .extend(imprecise(plan, variant, &self.repetitions, self.stopped));
        let mut result = TestResult::from_parts(TestResultParts {
            test: variant.test,
            workload: variant.workload.clone(),
            unit: shape.unit,
            threads: shape.threads,
            file_set: self.file_set,
            method,
            engine,
            block_size: shape.block_size,
            queue_depth: shape.queue_depth,
            op_kind: shape.op_kind,
            repetitions: self.repetitions,
            latency: self.latency,
            warnings: self.warnings,
            stopped: self.stopped,
        });
        if let Some(result) = &mut result {
            result.details = self.details;
        }
        (result, self.integrity)
    }
}

/// The variant being repeated: its place in the plan, its test, what it gathered.
struct Job<'j> {
    index: usize,
    variant: &'j Variant,
    test: &'j mut dyn Test,
    gathered: &'j mut Gathered,
    /// The seconds it may spend (None: `--runs N`), and when it began on the tracker's clock.
    allowance: Option<f64>,
    started: f64,
}

/// Runs the variant's repetitions, each between the hook's calls, until the schedule's rule
/// stops them (`schedule::decide`).
fn repeat(
    ctx: &mut Ctx<'_>,
    plan: &RunPlan,
    job: &mut Job<'_>,
    schedule: &mut Schedule,
    tracker: &mut Tracker<'_>,
) -> Result<()> {
    let (index, variant) = (job.index, job.variant);
    let most = if variant.test.single_run() {
        1
    } else {
        plan.repeats.most()
    };
    for rep in 0.. {
        interrupt::check()?;
        let at = Position {
            index,
            done: rep,
            spent_s: tracker.now_s() - job.started,
            allowance: job.allowance,
        };
        let times = schedule.split(tracker.eta(), at, schedule.next_rep_s(tracker.eta(), index));
        let message = format!("{} {} ({}/{most})", variant.test, variant.name, rep + 1);
        tracker.step(&message, schedule.cost(index), times);
        ctx.hook.before(variant, rep)?;
        let once_before = ctx.ledger.once_s();
        let measured = job.test.measure(Rep {
            ctx: &mut *ctx,
            plan,
            index: rep,
            progress: tracker.display(),
        })?;
        tracker.advance(measured.repetition.elapsed.as_secs_f64());
        ctx.hook
            .after(variant, rep, &measured.repetition, SystemTime::now())?;
        job.gathered.add(measured);
        if let Some(took) = tracker.close() {
            // Work done once (a set generated, a copy verified) is not the next repetition's.
            schedule.took(index, took - (ctx.ledger.once_s() - once_before));
        }
        let reps = &job.gathered.repetitions;
        let known = precision_of(&variant.workload, reps).map(|p| p.half_width);
        let figures: Vec<f64> = reps.iter().map(|r| r.rate).collect();
        let spent = tracker.now_s() - job.started;
        let next = schedule.next_rep_s(tracker.eta(), index);
        if let Some(reason) = schedule.stop(index, (&figures, known), spent, next, job.allowance) {
            job.gathered.stopped = Some(reason);
            break;
        }
    }
    Ok(())
}

/// The `imprecise` warning when the variant's budget ran out before its median was known to
/// the profile's precision: its figure is shown, with how well it is known.
fn imprecise(
    plan: &RunPlan,
    variant: &Variant,
    repetitions: &[Repetition],
    stopped: Option<StopReason>,
) -> Option<Warning> {
    let (Some(StopReason::Budget), Repeats::UntilPrecise(rule)) = (stopped, plan.repeats) else {
        return None;
    };
    let known = precision_of(&variant.workload, repetitions)
        .map_or("not known (one repetition)".to_string(), |p| {
            format!("known to ±{:.1}%", p.half_width * 100.0)
        });
    Some(Warning::new(
        WarningKind::Imprecise,
        format!(
            "imprecise: its share of the time budget ran out after {} repetition(s) with the median {known}, not the ±{:.0}% aimed at ({} N repeats exactly N times)",
            repetitions.len(),
            rule.precision * 100.0,
            defs::RUNS
        ),
    ))
}

/// The `short-sample` warning when a repetition lasted less than the minimum time: it then
/// measures start-up as much as the destination.
fn short_sample(plan: &RunPlan, variant: &Variant, repetitions: &[Repetition]) -> Option<Warning> {
    let shortest = repetitions.iter().min_by_key(|r| r.elapsed)?;
    if shortest.elapsed >= plan.min_time {
        return None;
    }
    let why = match (&variant.workload, shortest.passes) {
        (Workload::FileSet { .. }, Some(passes)) => format!(
            "it went over the set {passes} time(s), all that the budget allows ({} passes, {}x the minimum in all)",
            sets::MAX_PASSES,
            sets::WALL_BUDGET
        ),
        (Workload::Block { .. }, _) => format!(
            "block tests run for {} ({} s)",
            defs::DURATION,
            plan.block_duration.as_secs_f64()
        ),
        _ => "the test's work is fixed, so start-up weighs in the figure".to_string(),
    };
    Some(Warning::new(
        WarningKind::ShortSample,
        format!(
            "short-sample: the shortest repetition lasted {:.6} s, less than the minimum of {} s ({}): {why}",
            shortest.elapsed.as_secs_f64(),
            plan.min_time.as_secs_f64(),
            defs::MIN_TIME
        ),
    ))
}
