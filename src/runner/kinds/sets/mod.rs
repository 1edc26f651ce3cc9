//! The file-set tests: copy a set to the destination, read it back (restore), delete it, each
//! through the run's tree engine; or copy it with another program (`rsync -a`) and run that
//! again onto its copy (an update). Sources stay in the page cache when they fit (see
//! `sources`), so a copy measures the destination.

pub(in crate::runner) mod prepared;
pub(in crate::runner) mod program_copies;

use crate::engine::tree::Root;
use crate::error::Result;
use crate::platform;
use crate::results::{Details, FileSetInfo, Method, OpKind, Repetition, Unit};
use crate::results::{Untimed, Warning, WarningKind};
use crate::tree::{self, Outcome, Task};
use crate::units::{self, format_bytes};
use crate::workload::{FileOp, SetName};

use crate::runner::ctx::{Ctx, Measured};
use crate::runner::kinds::sets::prepared::{PreparedCopy, prepare_copy, remove};
use crate::runner::kinds::test::{Rep, Shape, Test};
use crate::runner::progress::Progress;
use crate::runner::sources::{PREP_THREADS, SourceSet, skipped};
use crate::runner::untimed::Work;
use crate::settings::RunPlan;

/// Residency above this after eviction means the eviction did not work.
const RESIDENT_LIMIT: f64 = 0.01;

/// A repetition of a tree task: its rate in `unit`, counts, series and latencies.
pub(in crate::runner) fn measured(
    outcome: Outcome,
    unit: Unit,
    method: Method,
    set: FileSetInfo,
    warnings: Vec<Warning>,
) -> Measured {
    let seconds = outcome.elapsed.as_secs_f64();
    let rate = match unit {
        Unit::MegabytesPerSecond => units::mb_per_s(outcome.bytes, seconds),
        Unit::FilesPerSecond | Unit::OpsPerSecond => {
            outcome.files as f64 / seconds.max(f64::MIN_POSITIVE)
        }
    };
    Measured {
        repetition: Repetition {
            rate,
            bytes: outcome.bytes,
            ops: outcome.files,
            elapsed: outcome.elapsed,
            cpu: outcome.cpu,
            series: outcome.series,
            passes: None,
        },
        latency: outcome.latency,
        method,
        engine: outcome.engine,
        warnings,
        file_set: Some(set),
        integrity_error: None,
        details: None,
    }
}

/// A file-set variant; a restore reads, and an update runs onto, a copy of the set made before
/// its first repetition.
pub(in crate::runner) struct FileSetTest {
    pub job: FileSetJob,
    pub prepared: Option<PreparedCopy>,
}

impl FileSetTest {
    /// The files its set holds as planned.
    fn files(&self, plan: &RunPlan) -> u64 {
        let set = plan.file_sets.iter().find(|p| p.name == self.job.set);
        set.map_or(0, |p| p.files(plan.seed))
    }

    /// Untimed work of a kind on the whole set: its bytes and files, counted once.
    fn on_the_set(&self, plan: &RunPlan) -> impl Fn(Untimed) -> Work {
        let (bytes, files) = (self.space_needed(plan), self.files(plan));
        move |kind| Work::new(kind, bytes, files)
    }
}

impl Test for FileSetTest {
    fn shape(&self) -> Shape {
        let unit = unit_of(self.job.op);
        Shape {
            block_size: 0,
            queue_depth: self.job.threads,
            op_kind: OpKind::File,
            unit,
            threads: self.job.threads,
        }
    }

    /// One copy of the set at a time (restore and delete keep one while they run).
    fn space_needed(&self, plan: &RunPlan) -> u64 {
        plan.file_sets
            .iter()
            .find(|p| p.name == self.job.set)
            .map_or(0, |p| p.total_bytes)
    }

    /// A repetition goes over the set again until it lasts the minimum time (a quarter second
    /// when there is none).
    fn planned_s(&self, plan: &RunPlan) -> f64 {
        plan.min_time.as_secs_f64().max(0.25)
    }

    /// A pass over the set (a delete or an update moves no data: it runs for its minimum time).
    fn planned_bytes(&self, plan: &RunPlan) -> u64 {
        match self.job.op {
            FileOp::Delete | FileOp::UpdateWith(_) => 0,
            _ => self.space_needed(plan),
        }
    }

    /// The set's files, for a pass that writes them: the price a file is taught is a written
    /// one's (a file read back, deleted or walked costs a quarter of it or less on a share, and
    /// would teach a price too low for the writes).
    fn planned_files(&self, plan: &RunPlan) -> u64 {
        match self.job.op {
            FileOp::Copy { .. } | FileOp::CopyWith(_) => self.files(plan),
            _ => 0,
        }
    }

    fn prepare_bytes(&self, plan: &RunPlan) -> u64 {
        match self.job.op {
            FileOp::Restore | FileOp::UpdateWith(_) => self.space_needed(plan),
            _ => 0,
        }
    }

    fn prepare_files(&self, plan: &RunPlan) -> u64 {
        match self.job.op {
            FileOp::Restore | FileOp::UpdateWith(_) => self.files(plan),
            _ => 0,
        }
    }

    /// A restore's copy verified once (evicted, then read against the source) and removed; an
    /// update's copy made by its program and removed.
    fn untimed_once(&self, plan: &RunPlan) -> Vec<Work> {
        let of = self.on_the_set(plan);
        match self.job.op {
            FileOp::UpdateWith(_) => vec![of(Untimed::Copy), of(Untimed::Remove)],
            FileOp::Restore if plan.verify => {
                vec![of(Untimed::Verify), of(Untimed::Evict), of(Untimed::Remove)]
            }
            FileOp::Restore => vec![of(Untimed::Remove)],
            _ => Vec::new(),
        }
    }

    /// A pass's copy removed, a restore's copy evicted, a delete's copy laid down.
    fn untimed_each(&self, plan: &RunPlan) -> Vec<Work> {
        let of = self.on_the_set(plan);
        match self.job.op {
            FileOp::Copy { .. } | FileOp::CopyWith(_) => vec![of(Untimed::Remove)],
            FileOp::Restore => vec![of(Untimed::Evict)],
            FileOp::Delete => vec![of(Untimed::Copy)],
            FileOp::UpdateWith(_) => Vec::new(),
        }
    }

    fn source_set(&self) -> Option<SetName> {
        Some(self.job.set)
    }

    fn prepare(&mut self, rep: Rep<'_, '_>) -> Result<()> {
        self.prepared = match self.job.op {
            FileOp::Restore => Some(prepared::prepare_restore(
                rep.ctx,
                rep.plan,
                self.job.set,
                rep.progress,
            )?),
            FileOp::UpdateWith(program) => Some(prepared::prepare_update(
                rep.ctx,
                rep.plan,
                (self.job.set, program),
                rep.progress,
            )?),
            _ => None,
        };
        Ok(())
    }

    fn measure(&mut self, rep: Rep<'_, '_>) -> Result<Measured> {
        measure_file_set(
            rep.ctx,
            rep.plan,
            self.job,
            rep.index,
            self.prepared.as_ref(),
            rep.progress,
        )
    }

    fn clean_up(&mut self, ctx: &mut Ctx<'_>) {
        if let Some(prepared) = self.prepared.take() {
            remove(ctx, &prepared.name, (prepared.bytes, prepared.files));
        }
    }
}

/// What a repetition's figure counts: files for a delete and an update (they move no data),
/// bytes otherwise.
fn unit_of(op: FileOp) -> Unit {
    match op {
        FileOp::Delete | FileOp::UpdateWith(_) => Unit::FilesPerSecond,
        _ => Unit::MegabytesPerSecond,
    }
}

/// One file-set variant's parameters.
#[derive(Debug, Clone, Copy)]
pub(in crate::runner) struct FileSetJob {
    pub op: FileOp,
    pub set: SetName,
    pub threads: usize,
}

/// The most passes over its set one repetition makes to last the minimum time.
pub(in crate::runner) const MAX_PASSES: u64 = 100;
/// A repetition goes over its set again only while it can still last the minimum time within
/// this many times the minimum of wall time, untimed work included: preparing and cleaning up
/// count against the run's time budget.
pub(in crate::runner) const WALL_BUDGET: u32 = 2;

/// The passes a repetition makes of passes taking `(timed_s, wall_s)` each (the wall untimed
/// work included) to last `min_s`: as many as it takes, where they fit within the wall budget
/// and the most passes; else one, since it ends short all the same and the budget is better
/// spent on another repetition (a delete on a slow disk lays a fresh copy down, untimed, for
/// each pass of a few ms). The run's budget plans repetitions by the same rule.
pub(in crate::runner) fn passes_to_last((timed_s, wall_s): (f64, f64), min_s: f64) -> u64 {
    if timed_s >= min_s {
        return 1;
    }
    let needed = (min_s / timed_s.max(f64::MIN_POSITIVE)).ceil();
    let fits = needed * wall_s <= min_s * f64::from(WALL_BUDGET) && needed <= MAX_PASSES as f64;
    if fits { needed as u64 } else { 1 }
}

/// One timed repetition of a file-set variant: the set copied (each time into a fresh
/// directory), read back or deleted as many times as it takes to last `plan.min_time`, within
/// [`MAX_PASSES`] and the time budget; one copy of the set at a time on the destination. The
/// figure is every pass's files or bytes over their summed time; what is prepared or cleaned up
/// between passes is synced and untimed.
fn measure_file_set(
    ctx: &mut Ctx<'_>,
    plan: &RunPlan,
    job: FileSetJob,
    rep: usize,
    prepared: Option<&PreparedCopy>,
    progress: &mut dyn Progress,
) -> Result<Measured> {
    let source = ctx.sources.get(plan, job.set, progress, &ctx.ledger)?;
    let wall = std::time::Instant::now();
    let (mut total, method, mut warnings) =
        one_pass(ctx, job, rep, 0, prepared, &source, progress)?;
    let mut passes = 1u64;
    // Passes like those before, untimed work included.
    let more_passes = |passes: u64, timed: std::time::Duration| {
        let per = |s: f64| s / passes as f64;
        let pace = (per(timed.as_secs_f64()), per(wall.elapsed().as_secs_f64()));
        passes_to_last(pace, plan.min_time.as_secs_f64()) > passes
    };
    while total.elapsed < plan.min_time && more_passes(passes, total.elapsed) {
        // A later pass that could not evict says so in its warnings.
        let (outcome, _, more) = one_pass(ctx, job, rep, passes, prepared, &source, progress)?;
        add_pass(&mut total, &outcome);
        Warning::add_new(&mut warnings, more);
        passes += 1;
    }
    let unit = unit_of(job.op);
    Warning::add_new(&mut warnings, source.notes.iter().cloned());
    let mut m = measured(total, unit, method, source.info.clone(), warnings);
    m.repetition.passes = Some(passes);
    m.details = prepared
        .and_then(|p| p.start_up.clone())
        .map(Details::ProgramStart);
    // Content can only be compared where the engine keeps it. After the first repetition,
    // untimed: how many repetitions follow is not known yet (each evicts the copy again).
    if job.op == FileOp::Restore && plan.verify && rep == 0 && ctx.access.real_io {
        let copy = &prepared.expect("restore copy prepared").root;
        m.integrity_error = verify(ctx, copy, &source)?;
    }
    Ok(m)
}

/// A later pass added to the repetition's sum: its series placed after the passes before it.
fn add_pass(sum: &mut Outcome, pass: &Outcome) {
    sum.series.append(&pass.series, sum.elapsed, pass.elapsed);
    sum.files += pass.files;
    sum.bytes += pass.bytes;
    sum.elapsed += pass.elapsed;
    sum.cpu += pass.cpu;
    sum.latency += &pass.latency;
}

/// One timed pass over the set, with what it used to keep the page cache out and what it noticed.
fn one_pass(
    ctx: &mut Ctx<'_>,
    job: FileSetJob,
    rep: usize,
    pass: u64,
    prepared: Option<&PreparedCopy>,
    source: &SourceSet,
    progress: &mut dyn Progress,
) -> Result<(Outcome, Method, Vec<Warning>)> {
    let set = job.set;
    match job.op {
        FileOp::Copy { cache_on } => {
            let name = ctx.scratch.fresh_name(&format!("copy-{rep}-{pass}"));
            copy_pass(ctx, (job, cache_on), &name, source, progress)
        }
        FileOp::CopyWith(program) => {
            progress.update(&format!("copying the {set} set with {program}"));
            program_copies::copy_pass(ctx, program, (rep, pass), source)
        }
        FileOp::UpdateWith(program) => {
            progress.update(&format!("{program} of the {set} set onto its copy"));
            let copy = prepared.expect("the program's copy prepared");
            program_copies::update_pass(ctx, program, copy, source)
        }
        FileOp::Restore => {
            let copy = &prepared.expect("restore copy prepared").root;
            restore_pass(ctx, job, copy, source, progress)
        }
        FileOp::Delete => {
            let name = ctx.scratch.fresh_name(&format!("delete-{rep}-{pass}"));
            delete_pass(ctx, job, &name, source, progress)
        }
    }
}

/// The progress line of a pass over the set: files and bytes done so far.
fn ticker(progress: &mut dyn Progress, job: FileSetJob) -> impl FnMut(&tree::Live) + '_ {
    let label = format!("{} set, {} thread(s)", job.set, job.threads);
    move |live: &tree::Live| {
        progress.update(&format!(
            "{label}: {} files, {}",
            live.files.load(std::sync::atomic::Ordering::Relaxed),
            format_bytes(live.bytes.load(std::sync::atomic::Ordering::Relaxed))
        ));
    }
}

/// destbench's own copy of the set into the fresh directory `name`, removed untimed after.
fn copy_pass(
    ctx: &mut Ctx<'_>,
    (job, cache_on): (FileSetJob, bool),
    name: &str,
    source: &SourceSet,
    progress: &mut dyn Progress,
) -> Result<(Outcome, Method, Vec<Warning>)> {
    let dst = tree::make_dir(&ctx.scratch.root(), name, ctx.engines)?;
    let task = Task::Copy {
        dst,
        durable_each: !cache_on,
    };
    let outcome = tree::run(
        &task,
        &source.root,
        ctx.engines,
        job.threads,
        ctx.series_interval,
        &format!("copying the {} set", job.set),
        &mut ticker(progress, job),
    );
    // Untimed and synced: the copy goes before the next pass or repetition, success or not.
    remove(ctx, name, (source.info.bytes, source.info.files));
    let outcome = outcome?;
    let warnings = skipped(&outcome, &source.info);
    let method = ctx.access.method(if cache_on {
        Method::Syncfs
    } else {
        Method::FsyncEach
    });
    Ok((outcome, method, warnings))
}

/// The prepared copy read back, after evicting it.
fn restore_pass(
    ctx: &mut Ctx<'_>,
    job: FileSetJob,
    copy: &Root,
    source: &SourceSet,
    progress: &mut dyn Progress,
) -> Result<(Outcome, Method, Vec<Warning>)> {
    let (method, mut warnings) = evict(ctx, copy, &source.info)?;
    let outcome = tree::run(
        &Task::Read,
        copy,
        ctx.engines,
        job.threads,
        ctx.series_interval,
        &format!("reading the {} set back", job.set),
        &mut ticker(progress, job),
    )?;
    warnings.extend(skipped(&outcome, &source.info));
    Ok((outcome, method, warnings))
}

/// A copy made untimed as `name`, then deleted, timed.
fn delete_pass(
    ctx: &mut Ctx<'_>,
    job: FileSetJob,
    name: &str,
    source: &SourceSet,
    progress: &mut dyn Progress,
) -> Result<(Outcome, Method, Vec<Warning>)> {
    let copy = prepare_copy(ctx, source, name)?;
    let outcome = tree::run(
        &Task::Delete,
        &copy,
        ctx.engines,
        job.threads,
        ctx.series_interval,
        &format!("deleting the {} set", job.set),
        &mut ticker(progress, job),
    );
    remove(ctx, name, (0, 0));
    Ok((outcome?, ctx.access.method(Method::Syncfs), Vec::new()))
}

/// Evicts a copied tree before a timed read; says how well that worked.
fn evict(ctx: &Ctx<'_>, root: &Root, set: &FileSetInfo) -> Result<(Method, Vec<Warning>)> {
    if !ctx.access.real_io {
        return Ok((Method::Null, Vec::new()));
    }
    let work = Work::new(Untimed::Evict, set.bytes, set.files);
    let resident = ctx.ledger.time(work, || tree::evict(root, ctx.engines))?;
    match resident {
        Some(r) if r <= RESIDENT_LIMIT => Ok((Method::Evict, Vec::new())),
        None => Ok((Method::Evict, Vec::new())),
        Some(r) => {
            if ctx.access.allow_drop_caches && platform::drop_caches().is_ok() {
                return Ok((Method::DropCaches, Vec::new()));
            }
            Ok((
                Method::PageCache,
                vec![Warning::new(
                    WarningKind::PageCache,
                    format!(
                        "{:.0}% of the copied files stayed in the page cache after eviction: the restore figure is memory speed, not the device",
                        r * 100.0
                    ),
                )],
            ))
        }
    }
}

/// Compares the copy with its source (untimed), after evicting the copy so the device's data is
/// what gets checked. Returns the data-integrity failure, if any.
fn verify(ctx: &Ctx<'_>, copy: &Root, source: &SourceSet) -> Result<Option<String>> {
    let _ = evict(ctx, copy, &source.info)?;
    let task = Task::Verify {
        source: source.root.clone(),
    };
    let source = &source.info;
    let work = Work::new(Untimed::Verify, source.bytes, source.files);
    let outcome = ctx.ledger.time(work, || {
        tree::run(
            &task,
            copy,
            ctx.engines,
            PREP_THREADS,
            ctx.series_interval,
            "verifying the copy",
            &mut |_| {},
        )
    })?;
    let missing = source.files.saturating_sub(outcome.files);
    if outcome.mismatches.count == 0 && missing == 0 {
        return Ok(None);
    }
    Ok(Some(format!(
        "DATA INTEGRITY: {} of {} files read back differ from the source (blake3){}: {}",
        outcome.mismatches.count + missing,
        source.files,
        if missing > 0 {
            format!(", {missing} missing")
        } else {
            String::new()
        },
        outcome.mismatches.examples.join("; ")
    )))
}
