//! The file-set tests (copy, restore, delete) and the metadata test.
//!
//! Generated sets are made once per run in a scratch directory of their own on the source disk
//! (the system's temp directory unless `--source-dir`), untimed, and stay in the page cache when
//! they fit, so a copy measures the destination. The user's `--source` folder is only ever read.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::error::{Error, Result};
use crate::platform;
use crate::results::{FileSetInfo, Method, Repetition, Unit};
use crate::scratch::{self, Scratch};
use crate::stats::{LatencyHistogram, ThroughputSeries};
use crate::tree::{self, Outcome, Task};
use crate::units::{self, format_bytes};
use crate::workload::fileset::{self, SetSpec};
use crate::workload::{FileOp, MetaOp, SetName};

use super::{Ctx, Measured, Progress, RunPlan};

/// A file set to use, as planned from the profile and the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SetPlan {
    pub name: SetName,
    pub total_bytes: u64,
    pub max_files: u64,
    pub size_cap: u64,
}

/// Residency above this after eviction means the eviction did not work.
const RESIDENT_LIMIT: f64 = 0.01;
/// Threads used for untimed preparation copies.
const PREP_THREADS: usize = 4;

/// Source sets of the run, made on first use.
#[derive(Default)]
pub(super) struct Sources {
    area: Option<Scratch>,
    sets: HashMap<SetName, FileSetInfo>,
}

impl Sources {
    /// The set's source, generating it first if needed.
    pub(super) fn get(
        &mut self,
        plan: &RunPlan,
        name: SetName,
        progress: &mut dyn Progress,
    ) -> Result<FileSetInfo> {
        if let Some(info) = self.sets.get(&name) {
            return Ok(info.clone());
        }
        let info = match name {
            SetName::Source => user_source(plan, progress)?,
            SetName::Generated(kind) => {
                let set = plan
                    .file_sets
                    .iter()
                    .find(|s| s.name == name)
                    .expect("planned set");
                if self.area.is_none() {
                    self.area = Some(Scratch::create(&plan.source_dir).map_err(|e| match e {
                        Error::Destination { path, problem } => Error::Destination {
                            path,
                            problem: format!(
                                "cannot hold generated file sets (--source-dir): {problem}"
                            ),
                        },
                        other => other,
                    })?);
                }
                let area = self.area.as_ref().expect("source area");
                let root = area.path().join(kind.as_str());
                fs::create_dir(&root)
                    .map_err(|e| Error::io(format!("creating {}", root.display()), e))?;
                progress.step(&format!("generating the {kind} file set"));
                let spec = SetSpec {
                    kind,
                    total_bytes: set.total_bytes,
                    max_files: set.max_files,
                    size_cap: set.size_cap,
                    seed: plan.seed,
                };
                let summary = fileset::generate(&spec, &root).map_err(|e| {
                    Error::io(
                        format!("generating the {kind} file set in {}", root.display()),
                        e,
                    )
                })?;
                FileSetInfo {
                    name: name.to_string(),
                    files: summary.files,
                    bytes: summary.bytes,
                    dirs: summary.dirs,
                    source_cached: residency(&root),
                    source_path: root.display().to_string(),
                    generated: true,
                }
            }
        };
        self.sets.insert(name, info.clone());
        Ok(info)
    }
}

/// The page-cache residency of a sample of the tree's files.
fn residency(root: &Path) -> Option<f64> {
    let (mut sum, mut n) = (0.0, 0u32);
    let _ = tree::walk::walk(root, |found| {
        if let tree::walk::Found::File(rel) = found
            && let Ok(file) = fs::File::open(root.join(rel))
            && let Ok(meta) = file.metadata()
            && meta.len() > 0
            && let Ok(fraction) =
                platform::resident_fraction(std::os::fd::AsFd::as_fd(&file), meta.len())
        {
            sum += fraction;
            n += 1;
        }
        n < 64
    });
    (n > 0).then(|| sum / n as f64)
}

/// Reads the user's folder once, untimed, so it sits in the page cache as far as memory allows
/// and the copy measures the destination rather than the source disk; how much of it stayed
/// cached is reported with the results.
fn user_source(plan: &RunPlan, progress: &mut dyn Progress) -> Result<FileSetInfo> {
    let path = plan.source.as_ref().expect("--source given");
    check_source(path)?;
    progress.step("reading the --source folder into the page cache");
    let outcome = tree::run(
        &Task::Read,
        path,
        PREP_THREADS,
        plan.profile.series_interval,
        "reading --source",
        &mut |_| {},
    )?;
    Ok(FileSetInfo {
        name: "source".into(),
        files: outcome.files,
        bytes: outcome.bytes,
        dirs: outcome.dirs,
        source_cached: residency(path),
        source_path: path.display().to_string(),
        generated: false,
    })
}

/// Checks the `--source` folder before anything runs: it must be a readable directory.
pub(super) fn check_source(path: &Path) -> Result<()> {
    scratch::check_destination(path).map_err(|e| match e {
        Error::Destination { path, problem } => Error::Destination {
            path,
            problem: format!("(--source) {problem}"),
        },
        other => other,
    })?;
    fs::read_dir(path)
        .map(drop)
        .map_err(|e| Error::Destination {
            path: path.to_path_buf(),
            problem: format!("(--source) cannot be read: {e}"),
        })
}

/// Copies `source` into a new directory of the scratch, untimed, durable.
fn prepare_copy(ctx: &Ctx<'_>, source: &FileSetInfo, name: &str) -> Result<PathBuf> {
    let dst = ctx.scratch.path().join(name);
    fs::create_dir(&dst).map_err(|e| Error::io(format!("creating {}", dst.display()), e))?;
    let task = Task::Copy {
        dst: dst.clone(),
        durable_each: false,
        uring: ctx.engines.uring_for_files(),
    };
    tree::run(
        &task,
        Path::new(&source.source_path),
        PREP_THREADS,
        ctx.series_interval,
        "preparing a copy",
        &mut |_| {},
    )?;
    Ok(dst)
}

/// Warnings about what a source walk skipped.
fn skipped(outcome: &Outcome, set: &FileSetInfo) -> Vec<String> {
    let mut warnings = Vec::new();
    if outcome.unreadable.count > 0 {
        warnings.push(format!(
            "{} unreadable entries in the {} set were skipped: {}",
            outcome.unreadable.count,
            set.name,
            outcome.unreadable.examples.join("; ")
        ));
    }
    if outcome.special.count > 0 {
        warnings.push(format!(
            "{} special files (sockets, FIFOs, devices) in the {} set were not copied: {}",
            outcome.special.count,
            set.name,
            outcome.special.examples.join("; ")
        ));
    }
    warnings
}

fn measured(
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
        engine: crate::engine::EngineKind::Sync,
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

pub(super) fn prepare_restore(
    ctx: &mut Ctx<'_>,
    plan: &RunPlan,
    set: SetName,
    progress: &mut dyn Progress,
) -> Result<RestoreCopy> {
    let source = ctx.sources.get(plan, set, progress)?;
    progress.step(&format!("copying the {set} set for the restore test"));
    Ok(RestoreCopy {
        path: prepare_copy(ctx, &source, "restore")?,
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
            let dst = ctx.scratch.path().join(format!("copy-{rep}"));
            fs::create_dir(&dst)
                .map_err(|e| Error::io(format!("creating {}", dst.display()), e))?;
            let task = Task::Copy {
                dst: dst.clone(),
                durable_each: !cache_on,
                uring: ctx.engines.uring_for_files(),
            };
            let outcome = tree::run(
                &task,
                Path::new(&source.source_path),
                threads,
                ctx.series_interval,
                &format!("copying the {set} set"),
                &mut tick,
            );
            // Untimed: the copy goes before the next repetition, success or not.
            let _ = fs::remove_dir_all(&dst);
            let outcome = outcome?;
            let warnings = skipped(&outcome, &source);
            let method = if cache_on {
                Method::Syncfs
            } else {
                Method::FsyncEach
            };
            let mut m = measured(outcome, Unit::MegabytesPerSecond, method, source, warnings);
            if ctx.engines.uring_for_files() {
                // Small files went through io_uring batches (larger ones through splice).
                m.engine = crate::engine::EngineKind::Uring;
            }
            Ok(m)
        }
        FileOp::Restore => {
            let copy = &restore.expect("restore copy prepared").path;
            let (method, mut warnings) = evict(ctx, copy)?;
            let outcome = tree::run(
                &Task::Read,
                copy,
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
            if plan.verify && rep + 1 == plan.runs {
                m.integrity_error = verify(ctx, copy, &source)?;
            }
            Ok(m)
        }
        FileOp::Delete => {
            let copy = prepare_copy(ctx, &source, &format!("delete-{rep}"))?;
            let outcome = tree::run(
                &Task::Delete,
                &copy,
                threads,
                ctx.series_interval,
                &format!("deleting the {set} set"),
                &mut tick,
            );
            let _ = fs::remove_dir_all(&copy);
            Ok(measured(
                outcome?,
                Unit::FilesPerSecond,
                Method::Syncfs,
                source,
                Vec::new(),
            ))
        }
    }
}

/// Evicts a copied tree before a timed read; says how well that worked.
fn evict(ctx: &Ctx<'_>, root: &Path) -> Result<(Method, Vec<String>)> {
    let resident = tree::evict(root)?;
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

/// One timed repetition of a metadata variant on `count` empty files.
pub(super) fn measure_meta(
    ctx: &mut Ctx<'_>,
    op: MetaOp,
    count: usize,
    rep: usize,
) -> Result<Measured> {
    let dir = ctx.scratch.path().join(format!("meta-{rep}"));
    fs::create_dir(&dir).map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
    let outcome = meta_ops(ctx, &dir, op, count);
    let _ = fs::remove_dir_all(&dir);
    let (elapsed, cpu, latency, series, method, warnings) = outcome?;
    let info = FileSetInfo {
        name: format!("{count} empty files"),
        files: count as u64,
        bytes: 0,
        dirs: 1,
        source_path: String::new(),
        generated: true,
        source_cached: None,
    };
    let outcome = Outcome {
        files: count as u64,
        bytes: 0,
        dirs: 1,
        symlinks: 0,
        special: Default::default(),
        unreadable: Default::default(),
        mismatches: Default::default(),
        latency,
        series,
        elapsed,
        cpu,
    };
    Ok(measured(
        outcome,
        Unit::OpsPerSecond,
        method,
        info,
        warnings,
    ))
}

type MetaTimes = (
    std::time::Duration,
    std::time::Duration,
    LatencyHistogram,
    ThroughputSeries,
    Method,
    Vec<String>,
);

fn meta_ops(ctx: &Ctx<'_>, dir: &Path, op: MetaOp, count: usize) -> Result<MetaTimes> {
    let name = |i: usize| dir.join(format!("m{i:07}"));
    let renamed = |i: usize| dir.join(format!("r{i:07}"));
    let io = |what: &str, path: &Path, e: std::io::Error| {
        Error::io(format!("{what} {}", path.display()), e)
    };
    let create = |i: usize| {
        fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(name(i))
            .map(drop)
            .map_err(|e| io("creating", &name(i), e))
    };
    if op != MetaOp::Create {
        for i in 0..count {
            create(i)?;
        }
        tree::flush(dir)?;
    }
    let (mut method, mut warnings) = (Method::Syncfs, Vec::new());
    if op == MetaOp::Stat {
        // Inodes just created sit in the inode cache; only dropping it makes stat go to the
        // filesystem (network filesystems revalidate anyway).
        if ctx.access.allow_drop_caches && std::fs::write("/proc/sys/vm/drop_caches", b"2").is_ok()
        {
            method = Method::DropCaches;
        } else {
            method = Method::PageCache;
            warnings.push(
                "stat figures come from the kernel's inode cache (run as root to drop it)".into(),
            );
        }
    }
    let mut latency = LatencyHistogram::default();
    let mut series = ThroughputSeries::new(ctx.series_interval);
    let cpu_start = platform::process_cpu_time();
    let start = Instant::now();
    for i in 0..count {
        if i % 256 == 0 {
            crate::interrupt::check()?;
        }
        let began = Instant::now();
        match op {
            MetaOp::Create => create(i)?,
            MetaOp::Stat => {
                let _inode =
                    fs::symlink_metadata(name(i)).map_err(|e| io("stat of", &name(i), e))?;
            }
            MetaOp::Rename => {
                fs::rename(name(i), renamed(i)).map_err(|e| io("renaming", &name(i), e))?
            }
            MetaOp::Delete => fs::remove_file(name(i)).map_err(|e| io("deleting", &name(i), e))?,
        }
        let now = Instant::now();
        latency.record(now - began);
        series.record(now - start, 0);
    }
    if op != MetaOp::Stat {
        tree::flush(dir)?;
    }
    Ok((
        start.elapsed(),
        platform::process_cpu_time().saturating_sub(cpu_start),
        latency,
        series,
        method,
        warnings,
    ))
}
