//! Phases, repetitions, timing and progress: runs a plan of test variants against a destination.

mod access;
mod block;
mod files;
mod meta;
mod order;
mod progress;
mod sets;
mod sources;
mod stream;
mod sustained;
mod throttled;

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub use access::Access;
pub use progress::{NoProgress, Progress};
pub use sets::SetPlan;

use crate::engine::{Capabilities, Engine, EngineChoice, EngineFactory, EngineKind};
use crate::error::{Error, Result};
use crate::interrupt;
use crate::platform;
use crate::results::{
    Details, FileSetInfo, Method, Repetition, RunReport, RunSettings, TestFailure, TestResult,
    TestResultParts, Unit,
};
use crate::scratch::{self, Scratch};
use crate::stats::LatencyHistogram;
use crate::units;
use crate::workload::{
    DataStamper, Direction, FileOp, Profile, TM_SMALL_FILES, TM_SMALL_SIZE, TestId, Variant,
    Workload,
};

/// Everything a run needs, validated (see `settings`).
#[derive(Debug, Clone)]
pub struct RunPlan {
    pub destination: PathBuf,
    pub profile: Profile,
    pub variants: Vec<Variant>,
    pub runs: usize,
    /// Size of the block tests' file (a multiple of 1 MiB).
    pub file_size: u64,
    pub block_duration: Duration,
    pub engine: EngineChoice,
    pub engine_name: String,
    /// Never use O_DIRECT (for checking the fallback path on filesystems that accept it).
    pub force_buffered: bool,
    /// May drop the machine's page cache (root only) when per-file eviction fails.
    pub allow_drop_caches: bool,
    /// Refuse to start when the destination reports less free space than the run needs.
    pub check_space: bool,
    /// The file sets of the file-level tests.
    pub file_sets: Vec<SetPlan>,
    /// The user's folder to use as the file set (read-only).
    pub source: Option<PathBuf>,
    /// Where generated file sets are made.
    pub source_dir: PathBuf,
    /// Verify restored files against the source.
    pub verify: bool,
    pub seed: u64,
    pub label: Option<String>,
    /// The longest the sustained test writes (`--time`, else the profile's).
    pub sustained_time: Duration,
    /// The most the sustained test writes (`--size` when given, else the profile's); never more
    /// than the free space leaves.
    pub sustained_size: u64,
}

impl RunPlan {
    fn has_block_tests(&self) -> bool {
        self.variants
            .iter()
            .any(|v| matches!(v.workload, Workload::Block { .. }))
    }

    /// Bytes the run keeps on the destination at its peak: the block test file for the whole
    /// run, plus the largest set of files any one variant keeps at once.
    pub fn space_needed(&self) -> u64 {
        let block_file = if self.has_block_tests() {
            self.file_size
        } else {
            0
        };
        let largest_variant = self
            .variants
            .iter()
            .map(|v| match &v.workload {
                Workload::Block { .. } => 0,
                Workload::WholeFiles {
                    direction: Direction::Read,
                    sizes,
                    ..
                } => sizes.iter().sum(),
                Workload::WholeFiles { sizes, .. } => sizes.iter().copied().max().unwrap_or(0),
                Workload::ManyFiles { count, size } => *count as u64 * size.next_multiple_of(4096),
                // One copy of the set at a time (restore and delete keep one while they run).
                Workload::FileSet { set, .. } => self
                    .file_sets
                    .iter()
                    .find(|p| p.name == *set)
                    .map_or(0, |p| p.total_bytes),
                Workload::Meta { .. } => 0,
                // Sized at run time to what the free space allows.
                Workload::Sustained { .. } => 0,
                Workload::Throttled { .. } => throttled::space_needed(self.file_size),
            })
            .max()
            .unwrap_or(0);
        // 5% for filesystem metadata and rounding.
        (block_file + largest_variant) / 20 * 21
    }

    /// How many progress steps the run takes.
    fn steps(&self) -> u64 {
        (self.variants.len() * self.runs) as u64 + u64::from(self.has_block_tests())
    }
}

/// What one repetition measured.
struct Measured {
    repetition: Repetition,
    latency: LatencyHistogram,
    method: Method,
    engine: EngineKind,
    warnings: Vec<String>,
    file_set: Option<FileSetInfo>,
    /// Restored data that differs from its source: reported as a failure, not a slow run.
    integrity_error: Option<String>,
    /// Figures beyond the rate (sustained, throttled).
    details: Option<Details>,
}

impl Measured {
    /// A repetition of streamed I/O: the recorder's bytes over `elapsed`, in MB/s, and its
    /// counts, series and latencies. Callers add what else they know.
    fn streamed(
        recorder: stream::Recorder,
        elapsed: Duration,
        cpu: Duration,
        method: Method,
        engine: EngineKind,
    ) -> Measured {
        Measured {
            repetition: Repetition {
                rate: units::mb_per_s(recorder.bytes, elapsed.as_secs_f64()),
                bytes: recorder.bytes,
                ops: recorder.ops,
                elapsed,
                cpu,
                series: recorder.series,
            },
            latency: recorder.latency,
            method,
            engine,
            warnings: Vec::new(),
            file_set: None,
            integrity_error: None,
            details: None,
        }
    }
}

/// State shared by the measurements of one run.
struct Ctx<'a> {
    scratch: &'a Scratch,
    engines: &'a EngineFactory,
    access: &'a Access,
    stamper: &'a mut DataStamper,
    series_interval: Duration,
    seed: u64,
    sources: sources::Sources,
}

impl Ctx<'_> {
    fn build_engine(&self, depth: usize) -> Result<Box<dyn Engine>> {
        self.engines
            .build(depth)
            .map_err(|e| Error::io("setting up the I/O engine", e))
    }
}

/// Runs the plan. Returns Err only for what stops the whole run (bad destination, no space,
/// interruption); a failing test is recorded in the report's `failures` and the others go on.
pub fn run(plan: &RunPlan, progress: &mut dyn Progress) -> Result<RunReport> {
    let started = SystemTime::now();
    let engines = EngineFactory::new(plan.engine).map_err(Error::Usage)?;
    scratch::check_destination(&plan.destination)?;
    if let Some(source) = &plan.source {
        sources::check_source(source)?;
    }
    let capabilities = engines.capabilities();
    // Creating the scratch directory first is the real test of a read-only or unwritable
    // destination; the space check then removes it again if the run would not fit.
    let scratch = Scratch::create(&plan.destination)?;
    if capabilities.real_io && plan.check_space {
        check_space(plan)?;
    }
    let access = access::detect(
        &scratch,
        capabilities,
        plan.force_buffered,
        plan.allow_drop_caches,
    );
    let mut warnings = Vec::new();
    if access.memory_backed {
        warnings.push(access.note.clone());
    }
    let mut left_out: Vec<&str> = plan
        .variants
        .iter()
        .filter(|v| !can_run(capabilities, v))
        .map(|v| v.test.as_str())
        .collect();
    left_out.dedup();
    if !left_out.is_empty() {
        warnings.push(format!(
            "the {} engine does no I/O, so {} (real devices) were left out",
            engines.kind_for(1).name(),
            left_out.join(", ")
        ));
    }
    if let Some(problem) = engines.uring_problem() {
        warnings.push(format!(
            "io_uring is not usable ({problem}): queue depths above 1 use sync worker threads"
        ));
    }
    let mut stamper = DataStamper::new(plan.seed);
    let mut ctx = Ctx {
        scratch: &scratch,
        engines: &engines,
        access: &access,
        stamper: &mut stamper,
        series_interval: plan.profile.series_interval,
        seed: plan.seed,
        sources: sources::Sources::default(),
    };
    progress.begin(plan.steps());
    let wall = std::time::Instant::now();

    let mut block_file_problem = None;
    if plan.has_block_tests() {
        progress.step(&format!(
            "preparing the {} test file",
            units::format_bytes(plan.file_size)
        ));
        match block::prepare_test_file(&mut ctx, plan.file_size) {
            Ok(()) => {}
            Err(e @ Error::Interrupted(_)) => return Err(e),
            Err(e) => {
                // A partial file would only take space from the tests that can still run.
                let _ = platform::unlink_in(scratch.fd(), block::TEST_FILE);
                block_file_problem = Some(e.to_string());
            }
        }
    }

    let mut results = Vec::new();
    let mut failures = Vec::new();
    for variant in &plan.variants {
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
        if !can_run(capabilities, variant) {
            continue;
        }
        match run_variant(&mut ctx, plan, variant, progress) {
            Ok((result, integrity)) => {
                results.extend(result);
                failures.extend(integrity.map(fail));
            }
            Err(e @ Error::Interrupted(_)) => return Err(e),
            Err(e) => failures.push(fail(e.to_string())),
        }
    }
    progress.finish();
    interrupt::check()?;
    if !failures.is_empty() {
        warnings.push(format!(
            "{} test variant(s) failed; see the failures",
            failures.len()
        ));
    }
    drop(scratch);
    Ok(RunReport {
        destination: plan.destination.clone(),
        settings: RunSettings {
            profile: plan.profile.name,
            runs: plan.runs,
            file_size_bytes: plan.file_size,
            block_duration_s: plan.block_duration.as_secs_f64(),
            engine: plan.engine_name.clone(),
            seed: plan.seed,
            label: plan.label.clone(),
        },
        access: access.info(),
        started_unix_s: started
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
        duration: wall.elapsed(),
        results,
        failures,
        warnings,
        destbench_version: env!("CARGO_PKG_VERSION"),
        peak_rss_bytes: platform::peak_rss(),
        chain: None,
        verdict: None,
    })
}

/// Whether an engine with these capabilities can run the variant: sustained and throttled measure
/// a real device (its cache cliff, its I/O scheduler), which an engine without real I/O has not;
/// every other test runs on any engine (the file-set tests on the null engine's virtual tree).
fn can_run(capabilities: Capabilities, variant: &Variant) -> bool {
    capabilities.real_io || !matches!(variant.test, TestId::Sustained | TestId::Throttled)
}

fn check_space(plan: &RunPlan) -> Result<()> {
    let needed = plan.space_needed();
    let available = platform::available_space(&plan.destination).map_err(|e| {
        Error::io(
            format!("checking free space on {}", plan.destination.display()),
            e,
        )
    })?;
    if available < needed {
        return Err(Error::NoSpace {
            path: plan.destination.clone(),
            needed: units::format_bytes(needed),
            available: units::format_bytes(available),
        });
    }
    Ok(())
}

/// All repetitions of one variant, and a data-integrity failure if its data did not survive. A
/// repetition that fails ends the variant with that error.
fn run_variant(
    ctx: &mut Ctx<'_>,
    plan: &RunPlan,
    variant: &Variant,
    progress: &mut dyn Progress,
) -> Result<(Option<TestResult>, Option<String>)> {
    let mut repetitions = Vec::with_capacity(plan.runs);
    let mut latency = LatencyHistogram::default();
    let mut warnings: Vec<String> = Vec::new();
    let mut method = None;
    let mut engine = None;
    let mut file_set = None;
    let mut integrity = None;
    let mut details = None;
    let runs = if variant.test.single_run() {
        1
    } else {
        plan.runs
    };
    let (block_size, queue_depth, op_kind, unit, threads) = shape(variant);

    let read_files = match &variant.workload {
        Workload::WholeFiles {
            direction: Direction::Read,
            sizes,
            block,
        } => Some((*sizes, *block)),
        _ => None,
    };
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
        for rep in 0..runs {
            interrupt::check()?;
            progress.step(&format!(
                "{} {} ({}/{})",
                variant.test,
                variant.name,
                rep + 1,
                runs
            ));
            let measured = measure(ctx, plan, variant, rep, restore.as_ref(), progress)?;
            latency += &measured.latency;
            method = Some(measured.method);
            engine = Some(measured.engine);
            file_set = measured.file_set;
            details = measured.details;
            if integrity.is_none() {
                integrity = measured.integrity_error;
            }
            for w in measured.warnings {
                if !warnings.contains(&w) {
                    warnings.push(w);
                }
            }
            repetitions.push(measured.repetition);
        }
        Ok(())
    })();
    if let Some((sizes, _)) = read_files {
        for index in 0..sizes.len() {
            let _ = platform::unlink_in(ctx.scratch.fd(), &files::read_file_name(index));
        }
    }
    if restore.is_some() {
        crate::tree::remove_all(ctx.scratch.path(), sets::RESTORE_DIR, ctx.engines);
    }
    outcome?;
    let (Some(method), Some(engine)) = (method, engine) else {
        return Ok((None, integrity));
    };
    let mut result = TestResult::from_parts(TestResultParts {
        test: variant.test,
        variant: variant.name.to_string(),
        unit,
        threads,
        file_set,
        method,
        engine,
        block_size,
        queue_depth,
        op_kind,
        repetitions,
        latency,
        warnings,
    });
    if let Some(result) = &mut result {
        result.details = details;
    }
    Ok((result, integrity))
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

/// The Time Machine log lines for a run's `tm-check` results (median figures).
pub fn time_machine_lines(report: &RunReport) -> Vec<String> {
    let destination = report.destination.display();
    report
        .results
        .iter()
        .filter(|r| r.test == TestId::TmCheck)
        .map(|r| {
            let median_rep = median_repetition(&r.repetitions, r.summary.median);
            let seconds = median_rep.map_or(0.0, |rep| rep.elapsed.as_secs_f64());
            if r.op_kind == "file" {
                format!(
                    "Concurrently wrote {TM_SMALL_FILES} {} KB files at {:.2} MB/s to \"{destination}\" in {seconds:.3} seconds",
                    TM_SMALL_SIZE / 1024,
                    r.summary.median
                )
            } else {
                format!(
                    "Wrote 1 50 MB file at {:.2} MB/s to \"{destination}\" in {seconds:.3} seconds",
                    r.summary.median
                )
            }
        })
        .collect()
}

/// The repetition whose figure is closest to `median`.
fn median_repetition(reps: &[Repetition], median: f64) -> Option<&Repetition> {
    reps.iter()
        .min_by(|a, b| (a.rate - median).abs().total_cmp(&(b.rate - median).abs()))
}
