//! The file-set tests: copy a set to the destination, read it back (restore), delete it, each
//! through the run's tree engine. Sources stay in the page cache when they fit (see `sources`),
//! so a copy measures the destination.

use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::platform;
use crate::results::{FileSetInfo, Method, Repetition, Unit};
use crate::tree::{self, Outcome, Task};
use crate::units::{self, format_bytes};
use crate::workload::{FileOp, SetName};

use super::sources::PREP_THREADS;
use super::{Ctx, Measured, Progress, RunPlan};

/// Residency above this after eviction means the eviction did not work.
const RESIDENT_LIMIT: f64 = 0.01;

/// Copies `source` into a new directory of the scratch, untimed, durable.
fn prepare_copy(ctx: &Ctx<'_>, source: &FileSetInfo, name: &str) -> Result<PathBuf> {
    let dst = tree::make_dir(ctx.scratch.path(), name, ctx.engines)?;
    let task = Task::Copy {
        dst: dst.clone(),
        durable_each: false,
    };
    tree::run(
        &task,
        Path::new(&source.source_path),
        ctx.engines,
        PREP_THREADS,
        ctx.series_interval,
        "preparing a copy",
        &mut |_| {},
    )?;
    Ok(dst)
}

/// Warnings about what a source walk skipped.
fn skipped(outcome: &Outcome, set: &FileSetInfo) -> Vec<String> {
    [
        (&outcome.unreadable, "unreadable entries", "skipped"),
        (
            &outcome.special,
            "special files (sockets, FIFOs, devices)",
            "not copied",
        ),
    ]
    .into_iter()
    .filter(|(listed, ..)| listed.count > 0)
    .map(|(listed, what, fate)| {
        format!(
            "{} {what} in the {} set were {fate}: {}",
            listed.count,
            set.name,
            listed.examples.join("; ")
        )
    })
    .collect()
}

/// A repetition of a tree task: its rate in `unit`, counts, series and latencies.
pub(super) fn measured(
    outcome: Outcome,
    unit: Unit,
    method: Method,
    set: FileSetInfo,
    warnings: Vec<String>,
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

/// The copied set a restore variant reads, made once for all its repetitions.
pub(super) struct RestoreCopy {
    pub path: PathBuf,
}

/// The scratch directory of the restore copy.
pub(super) const RESTORE_DIR: &str = "restore";

pub(super) fn prepare_restore(
    ctx: &mut Ctx<'_>,
    plan: &RunPlan,
    set: SetName,
    progress: &mut dyn Progress,
) -> Result<RestoreCopy> {
    let source = ctx.sources.get(plan, set, progress)?;
    progress.step(&format!("copying the {set} set for the restore test"));
    Ok(RestoreCopy {
        path: prepare_copy(ctx, &source, RESTORE_DIR)?,
    })
}

/// One file-set variant's parameters.
#[derive(Debug, Clone, Copy)]
pub(super) struct FileSetJob {
    pub op: FileOp,
    pub set: SetName,
    pub threads: usize,
}

/// One timed repetition of a file-set variant.
pub(super) fn measure_file_set(
    ctx: &mut Ctx<'_>,
    plan: &RunPlan,
    job: FileSetJob,
    rep: usize,
    restore: Option<&RestoreCopy>,
    progress: &mut dyn Progress,
) -> Result<Measured> {
    let FileSetJob { op, set, threads } = job;
    let source = ctx.sources.get(plan, set, progress)?;
    let label = format!("{set} set, {threads} thread(s)");
    let mut tick = |live: &tree::Live| {
        progress.update(&format!(
            "{label}: {} files, {}",
            live.files.load(std::sync::atomic::Ordering::Relaxed),
            format_bytes(live.bytes.load(std::sync::atomic::Ordering::Relaxed))
        ));
    };
    match op {
        FileOp::Copy { cache_on } => {
            let name = format!("copy-{rep}");
            let dst = tree::make_dir(ctx.scratch.path(), &name, ctx.engines)?;
            let task = Task::Copy {
                dst,
                durable_each: !cache_on,
            };
            let outcome = tree::run(
                &task,
                Path::new(&source.source_path),
                ctx.engines,
                threads,
                ctx.series_interval,
                &format!("copying the {set} set"),
                &mut tick,
            );
            // Untimed: the copy goes before the next repetition, success or not.
            tree::remove_all(ctx.scratch.path(), &name, ctx.engines);
            let outcome = outcome?;
            let warnings = skipped(&outcome, &source);
            let method = ctx.access.method(if cache_on {
                Method::Syncfs
            } else {
                Method::FsyncEach
            });
            Ok(measured(
                outcome,
                Unit::MegabytesPerSecond,
                method,
                source,
                warnings,
            ))
        }
        FileOp::Restore => {
            let copy = &restore.expect("restore copy prepared").path;
            let (method, mut warnings) = evict(ctx, copy)?;
            let outcome = tree::run(
                &Task::Read,
                copy,
                ctx.engines,
                threads,
                ctx.series_interval,
                &format!("reading the {set} set back"),
                &mut tick,
            )?;
            warnings.extend(skipped(&outcome, &source));
            let mut m = measured(
                outcome,
                Unit::MegabytesPerSecond,
                method,
                source.clone(),
                warnings,
            );
            // Content can only be compared where the engine keeps it.
            if plan.verify && rep + 1 == plan.runs && ctx.access.real_io {
                m.integrity_error = verify(ctx, copy, &source)?;
            }
            Ok(m)
        }
        FileOp::Delete => {
            let name = format!("delete-{rep}");
            let copy = prepare_copy(ctx, &source, &name)?;
            let outcome = tree::run(
                &Task::Delete,
                &copy,
                ctx.engines,
                threads,
                ctx.series_interval,
                &format!("deleting the {set} set"),
                &mut tick,
            );
            tree::remove_all(ctx.scratch.path(), &name, ctx.engines);
            Ok(measured(
                outcome?,
                Unit::FilesPerSecond,
                ctx.access.method(Method::Syncfs),
                source,
                Vec::new(),
            ))
        }
    }
}

/// Evicts a copied tree before a timed read; says how well that worked.
fn evict(ctx: &Ctx<'_>, root: &Path) -> Result<(Method, Vec<String>)> {
    if !ctx.access.real_io {
        return Ok((Method::Null, Vec::new()));
    }
    let resident = tree::evict(root, ctx.engines)?;
    match resident {
        Some(r) if r <= RESIDENT_LIMIT => Ok((Method::Evict, Vec::new())),
        None => Ok((Method::Evict, Vec::new())),
        Some(r) => {
            if ctx.access.allow_drop_caches && platform::drop_caches().is_ok() {
                return Ok((Method::DropCaches, Vec::new()));
            }
            Ok((
                Method::PageCache,
                vec![format!(
                    "{:.0}% of the copied files stayed in the page cache after eviction: the restore figure is memory speed, not the device",
                    r * 100.0
                )],
            ))
        }
    }
}

/// Compares the copy with its source (untimed), after evicting the copy so the device's data is
/// what gets checked. Returns the data-integrity failure, if any.
fn verify(ctx: &Ctx<'_>, copy: &Path, source: &FileSetInfo) -> Result<Option<String>> {
    let _ = evict(ctx, copy)?;
    let task = Task::Verify {
        source: PathBuf::from(&source.source_path),
    };
    let outcome = tree::run(
        &task,
        copy,
        ctx.engines,
        PREP_THREADS,
        ctx.series_interval,
        "verifying the copy",
        &mut |_| {},
    )?;
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
