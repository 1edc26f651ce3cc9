//! One variant of a test: its repetitions, their measurement by the test's own module, and the
//! result they make together.

use std::time::SystemTime;

use crate::engine::EngineKind;
use crate::error::Result;
use crate::interrupt;
use crate::results::{Details, FileSetInfo, Method, Repetition, TestResult, TestResultParts};
use crate::results::{Warning, WarningKind};
use crate::stats::LatencyHistogram;
use crate::workload::{Variant, Workload};

use super::kinds::test_for;
use super::sets;
use super::test::{Rep, Shape, Test};
use super::{Ctx, Measured, Progress, RunPlan};

/// All repetitions of one variant, and a data-integrity failure if its data did not survive. A
/// repetition that fails ends the variant with that error.
pub(super) fn run_variant(
    ctx: &mut Ctx<'_>,
    plan: &RunPlan,
    variant: &Variant,
    progress: &mut dyn Progress,
) -> Result<(Option<TestResult>, Option<String>)> {
    let mut test = test_for(&variant.workload);
    let mut gathered = Gathered::default();
    let prepare = Rep {
        ctx: &mut *ctx,
        plan,
        index: 0,
        progress: &mut *progress,
    };
    let outcome = test
        .prepare(prepare)
        .and_then(|()| repeat(ctx, plan, variant, test.as_mut(), progress, &mut gathered));
    test.clean_up(ctx);
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
        for w in measured.warnings {
            if !self.warnings.contains(&w) {
                self.warnings.push(w);
            }
        }
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
        });
        if let Some(result) = &mut result {
            result.details = self.details;
        }
        (result, self.integrity)
    }
}

/// Runs the variant's repetitions (one for a single-run test), each between the hook's calls.
fn repeat(
    ctx: &mut Ctx<'_>,
    plan: &RunPlan,
    variant: &Variant,
    test: &mut dyn Test,
    progress: &mut dyn Progress,
    gathered: &mut Gathered,
) -> Result<()> {
    let runs = if variant.test.single_run() {
        1
    } else {
        plan.runs
    };
    for rep in 0..runs {
        interrupt::check()?;
        progress.step(
            &format!("{} {} ({}/{})", variant.test, variant.name, rep + 1, runs),
            test.planned_s(plan),
        );
        ctx.hook.before(variant, rep)?;
        let measured = test.measure(Rep {
            ctx: &mut *ctx,
            plan,
            index: rep,
            progress: &mut *progress,
        })?;
        ctx.hook
            .after(variant, rep, &measured.repetition, SystemTime::now())?;
        gathered.add(measured);
    }
    Ok(())
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
            "block tests run for --duration ({} s)",
            plan.block_duration.as_secs_f64()
        ),
        _ => "the test's work is fixed, so start-up weighs in the figure".to_string(),
    };
    Some(Warning::new(
        WarningKind::ShortSample,
        format!(
            "short-sample: the shortest repetition lasted {:.6} s, less than the minimum of {} s (--min-time): {why}",
            shortest.elapsed.as_secs_f64(),
            plan.min_time.as_secs_f64()
        ),
    ))
}
