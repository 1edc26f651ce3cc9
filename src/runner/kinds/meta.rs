//! The metadata test: create, stat, rename and delete rates on empty files in one directory, as
//! backup catalogues and pruning make them; every operation through the run's tree engine.

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use crate::engine::tree::{Dir, TreeEngine};
use crate::error::{Error, Result};
use crate::interrupt;
use crate::platform;
use crate::results::{FileSetInfo, FileSizes, Method, OpKind, Unit, Untimed};
use crate::results::{Warning, WarningKind};
use crate::stats::{LatencyHistogram, ThroughputSeries};
use crate::tree::{self, Outcome};
use crate::workload::MetaOp;

use crate::runner::ctx::{Ctx, Measured};
use crate::runner::kinds::sets::measured;
use crate::runner::kinds::test::{Rep, Shape, Test};
use crate::runner::untimed::Work;
use crate::settings::RunPlan;

/// A metadata variant: one operation on `count` empty files, one thread.
pub(in crate::runner) struct MetaTest {
    pub op: MetaOp,
    pub count: usize,
}

impl Test for MetaTest {
    fn shape(&self) -> Shape {
        Shape {
            block_size: 0,
            queue_depth: 1,
            op_kind: OpKind::Op,
            unit: Unit::OpsPerSecond,
            threads: 1,
        }
    }

    /// A create writes its files (empty: each one's cost is its requests).
    fn planned_files(&self, _plan: &RunPlan) -> u64 {
        match self.op {
            MetaOp::Create => self.count as u64,
            _ => 0,
        }
    }

    /// The files laid down for the other operations to act on, and removed after each.
    fn untimed_each(&self, _plan: &RunPlan) -> Vec<Work> {
        let files = self.count as u64;
        let removed = Work::new(Untimed::Remove, 0, files);
        match self.op {
            MetaOp::Create => vec![removed],
            _ => vec![Work::new(Untimed::Copy, 0, files), removed],
        }
    }

    fn measure(&mut self, rep: Rep<'_, '_>) -> Result<Measured> {
        measure_meta(rep.ctx, self.op, self.count, rep.index)
    }
}

/// One timed repetition of a metadata variant on `count` empty files.
fn measure_meta(ctx: &mut Ctx<'_>, op: MetaOp, count: usize, rep: usize) -> Result<Measured> {
    let name = ctx.scratch.fresh_name(&format!("meta-{rep}"));
    let scratch = ctx.scratch.root();
    let dir = tree::make_dir(&scratch, &name, ctx.engines)?;
    let mut engine = ctx.engines.build_tree();
    let outcome = engine
        .open_root(&dir)
        .map_err(|e| Error::io(format!("opening {}", dir.path().display()), e))
        .and_then(|handle| meta_ops(ctx, engine.as_mut(), (&handle, &dir.path()), op, count));
    ctx.ledger
        .time(Work::new(Untimed::Remove, 0, count as u64), || {
            tree::remove_all(&scratch, &name, ctx.engines)
        });
    let timed = outcome?;
    let info = FileSetInfo {
        name: format!("{count} empty files"),
        files: count as u64,
        bytes: 0,
        dirs: 1,
        file_sizes: FileSizes::all(0),
        source_path: String::new(),
        generated: true,
        source_cached: None,
    };
    let outcome = Outcome {
        files: count as u64,
        bytes: 0,
        dirs: 1,
        special: Default::default(),
        skipped: Default::default(),
        unreadable: Default::default(),
        mismatches: Default::default(),
        latency: timed.latency,
        series: timed.series,
        elapsed: timed.elapsed,
        cpu: timed.cpu,
        engine: engine.kind(),
    };
    Ok(measured(
        outcome,
        Unit::OpsPerSecond,
        timed.method,
        info,
        timed.warnings,
    ))
}

/// What the timed loop measured.
struct MetaTimes {
    elapsed: Duration,
    cpu: Duration,
    latency: LatencyHistogram,
    series: ThroughputSeries,
    method: Method,
    warnings: Vec<Warning>,
}

/// How the operations reach the filesystem, with a warning where stat is answered from the
/// inode cache.
fn method(ctx: &Ctx<'_>, op: MetaOp) -> (Method, Vec<Warning>) {
    if op != MetaOp::Stat || !ctx.access.real_io {
        return (ctx.access.method(Method::Syncfs), Vec::new());
    }
    // Inodes just created sit in the inode cache; only dropping it makes stat go to the
    // filesystem (network filesystems revalidate anyway).
    if ctx.access.allow_drop_caches && platform::drop_inode_caches().is_ok() {
        (Method::DropCaches, Vec::new())
    } else {
        (
            Method::PageCache,
            vec![Warning::new(
                WarningKind::InodeCache,
                "stat figures come from the kernel's inode cache (run as root to drop it)",
            )],
        )
    }
}

fn meta_ops(
    ctx: &Ctx<'_>,
    engine: &mut dyn TreeEngine,
    (dir, path): (&Dir, &Path),
    op: MetaOp,
    count: usize,
) -> Result<MetaTimes> {
    let name = |i: usize| OsString::from(format!("m{i:07}"));
    let renamed = |i: usize| OsString::from(format!("r{i:07}"));
    let io = |what: &str, name: &OsString, e: std::io::Error| {
        Error::io(format!("{what} {}", path.join(name).display()), e)
    };
    let create = |engine: &mut dyn TreeEngine, i: usize| {
        engine
            .create(dir, &name(i), 0o666)
            .and_then(|file| engine.close(file))
            .map_err(|e| io("creating", &name(i), e))
    };
    let flush = |engine: &mut dyn TreeEngine| {
        engine
            .syncfs(dir)
            .map_err(|e| Error::io(format!("flushing {}", path.display()), e))
    };
    if op != MetaOp::Create {
        // Laid down untimed, for the operation to act on.
        ctx.ledger
            .time(Work::new(Untimed::Copy, 0, count as u64), || {
                (0..count).try_for_each(|i| create(engine, i))?;
                flush(engine)
            })?;
    }
    let (method, warnings) = method(ctx, op);
    let mut latency = LatencyHistogram::default();
    let mut series = ThroughputSeries::new(ctx.series_interval);
    let cpu_start = platform::process_cpu_time();
    let start = engine.now();
    for i in 0..count {
        if i % 256 == 0 {
            interrupt::check()?;
        }
        let began = engine.now();
        match op {
            MetaOp::Create => create(engine, i)?,
            MetaOp::Stat => {
                let _inode = engine
                    .stat(dir, &name(i))
                    .map_err(|e| io("stat of", &name(i), e))?;
            }
            MetaOp::Rename => engine
                .rename(dir, &name(i), &renamed(i))
                .map_err(|e| io("renaming", &name(i), e))?,
            MetaOp::Delete => engine
                .unlink(dir, &name(i))
                .map_err(|e| io("deleting", &name(i), e))?,
        }
        let now = engine.now();
        latency.record(now - began);
        series.record(now - start, 0);
    }
    if op != MetaOp::Stat {
        flush(engine)?;
    }
    Ok(MetaTimes {
        elapsed: engine.now() - start,
        cpu: platform::process_cpu_time().saturating_sub(cpu_start),
        latency,
        series,
        method,
        warnings,
    })
}
