//! One variant of a test: its repetitions, their measurement by the test's own module, and the
//! result they make together.

use std::time::SystemTime;

use crate::engine::EngineKind;
use crate::error::Result;
use crate::interrupt;
use crate::results::{Details, FileSetInfo, Method, Repetition, TestResult, TestResultParts, Unit};
use crate::results::{Warning, WarningKind};
use crate::stats::LatencyHistogram;
use crate::workload::{Direction, FileOp, Variant, Workload};

use super::{Ctx, Measured, Progress, RunPlan};
use super::{block, files, meta, sets, sustained, throttled};

/// All repetitions of one variant, and a data-integrity failure if its data did not survive. A
/// repetition that fails ends the variant with that error.
pub(super) fn run_variant(
    ctx: &mut Ctx<'_>,
    plan: &RunPlan,
    variant: &Variant,
    progress: &mut dyn Progress,
) -> Result<(Option<TestResult>, Option<String>)> {
    let read_files = match &variant.workload {
        Workload::WholeFiles {
            direction: Direction::Read,
            sizes,
            block,
        } => Some((&sizes[..], *block)),
        _ => None,
    };
    let mut gathered = Gathered::default();
    let mut restore = None;
    let outcome = (|| -> Result<()> {
        if let Some((sizes, block)) = read_files {
            files::prepare_read_files(ctx, sizes, block)?;
        }
        if let Workload::FileSet {
            op: FileOp::Restore,
            set,
            ..
        } = &variant.workload
        {
            restore = Some(sets::prepare_restore(ctx, plan, *set, progress)?);
        }
        repeat(
            ctx,
            plan,
            variant,
            restore.as_ref(),
            progress,
            &mut gathered,
        )
    })();
    if let Some((sizes, _)) = read_files {
        for index in 0..sizes.len() {
            ctx.remove_file(&files::read_file_name(index));
        }
    }
    if let Some(restore) = &restore {
        crate::tree::remove_all(&ctx.scratch.root(), &restore.name, ctx.engines);
    }
    outcome?;
    Ok(gathered.into_result(plan, variant))
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
    ) -> (Option<TestResult>, Option<String>) {
        let (Some(method), Some(engine)) = (self.method, self.engine) else {
            return (None, self.integrity);
        };
        let (block_size, queue_depth, op_kind, unit, threads) = shape(variant);
        self.warnings
            .extend(short_sample(plan, variant, &self.repetitions));
        let mut result = TestResult::from_parts(TestResultParts {
            test: variant.test,
            workload: variant.workload.clone(),
            unit,
            threads,
            file_set: self.file_set,
            method,
            engine,
            block_size,
            queue_depth,
            op_kind,
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
    restore: Option<&sets::RestoreCopy>,
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
            plan.planned_s(variant),
        );
        ctx.hook.before(variant, rep)?;
        let measured = measure(ctx, plan, variant, rep, restore, progress)?;
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

/// Block size, queue depth, what an op is, the unit and the threads, for the report.
fn shape(variant: &Variant) -> (u64, usize, &'static str, Unit, usize) {
    let mb = Unit::MegabytesPerSecond;
    match &variant.workload {
        Workload::Block { block, depth, .. } => (*block as u64, *depth, "io", mb, 1),
        Workload::WholeFiles { block, .. } => (*block as u64, files::WHOLE_FILE_DEPTH, "io", mb, 1),
        Workload::ManyFiles { count, size } => {
            (*size, files::MANY_FILES_DEPTH.min(*count), "file", mb, 1)
        }
        Workload::FileSet { op, threads, .. } => {
            let unit = if *op == FileOp::Delete {
                Unit::FilesPerSecond
            } else {
                mb
            };
            (0, *threads, "file", unit, *threads)
        }
        Workload::Meta { .. } => (0, 1, "op", Unit::OpsPerSecond, 1),
        Workload::Sustained { block, depth } => (*block as u64, *depth, "io", mb, 1),
        Workload::Throttled { block } => (*block as u64, 1, "io", mb, 1),
    }
}

fn measure(
    ctx: &mut Ctx<'_>,
    plan: &RunPlan,
    variant: &Variant,
    rep: usize,
    restore: Option<&sets::RestoreCopy>,
    progress: &mut dyn Progress,
) -> Result<Measured> {
    match &variant.workload {
        Workload::Block {
            direction,
            pattern,
            block,
            depth,
        } => block::measure(
            ctx,
            &block::BlockJob {
                direction: *direction,
                pattern: *pattern,
                block: *block,
                depth: *depth,
                file_size: plan.file_size,
                duration: plan.block_duration,
            },
            rep,
        ),
        Workload::WholeFiles {
            direction,
            sizes,
            block,
        } => files::measure_whole(ctx, *direction, sizes, *block, rep),
        Workload::ManyFiles { count, size } => files::measure_many(ctx, *count, *size, rep),
        Workload::FileSet { op, set, threads } => {
            let job = sets::FileSetJob {
                op: *op,
                set: *set,
                threads: *threads,
            };
            sets::measure_file_set(ctx, plan, job, rep, restore, progress)
        }
        Workload::Meta { op, count } => meta::measure_meta(ctx, *op, *count, rep),
        Workload::Sustained { block, depth } => sustained::measure(ctx, plan, *block, *depth),
        Workload::Throttled { block } => throttled::measure(ctx, plan, *block),
    }
}
