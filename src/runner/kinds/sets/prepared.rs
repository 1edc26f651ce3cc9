//! The copies a file-set test makes untimed in the scratch directory before it measures (a
//! restore's copy to read back, a delete's copy to delete, an update's copy made by its own
//! program, and that program's start-up timed on an empty tree) and their removal, each on
//! the ledger of untimed work.

use crate::engine::tree::Root;
use crate::error::Result;
use crate::results::{ProgramStartDetails, Untimed};
use crate::stats;
use crate::tree::{self, Task};
use crate::workload::{CopyProgram, SetName};

use crate::runner::ctx::Ctx;
use crate::runner::progress::Progress;
use crate::runner::sources::{PREP_THREADS, SourceSet};
use crate::runner::untimed::Work;
use crate::settings::RunPlan;

/// Copies `source` into a new directory of the scratch, untimed, durable.
pub(in crate::runner) fn prepare_copy(
    ctx: &Ctx<'_>,
    source: &SourceSet,
    name: &str,
) -> Result<Root> {
    let dst = tree::make_dir(&ctx.scratch.root(), name, ctx.engines)?;
    let task = Task::Copy {
        dst: dst.clone(),
        durable_each: false,
    };
    let work = Work::new(Untimed::Copy, source.info.bytes, source.info.files);
    ctx.ledger.time(work, || {
        tree::run(
            &task,
            &source.root,
            ctx.engines,
            PREP_THREADS,
            ctx.series_interval,
            "preparing a copy",
            &mut |_| {},
        )
    })?;
    Ok(dst)
}

/// The copied set a restore variant reads or an update variant updates, made once for all its
/// repetitions.
pub(in crate::runner) struct PreparedCopy {
    pub root: Root,
    /// Its name in the scratch directory, for its removal.
    pub name: String,
    /// Its bytes and files, for the ledger of untimed work.
    pub bytes: u64,
    pub files: u64,
    /// The program's start-up, timed apart, for an update.
    pub start_up: Option<ProgramStartDetails>,
}

/// Removes a tree of the scratch directory, untimed (its bytes and files for the ledger).
pub(in crate::runner) fn remove(ctx: &Ctx<'_>, name: &str, (bytes, files): (u64, u64)) {
    ctx.ledger
        .time(Work::new(Untimed::Remove, bytes, files), || {
            tree::remove_all(&ctx.scratch.root(), name, ctx.engines)
        });
}

pub(in crate::runner) fn prepare_restore(
    ctx: &mut Ctx<'_>,
    plan: &RunPlan,
    set: SetName,
    progress: &mut dyn Progress,
) -> Result<PreparedCopy> {
    let source = ctx.sources.get(plan, set, progress, &ctx.ledger)?;
    progress.update(&format!("copying the {set} set for the restore test"));
    let name = ctx.scratch.fresh_name("restore");
    Ok(PreparedCopy {
        root: prepare_copy(ctx, &source, &name)?,
        name,
        bytes: source.info.bytes,
        files: source.info.files,
        start_up: None,
    })
}

/// The program's own copy of the set, which its update variant then runs onto again.
pub(in crate::runner) fn prepare_update(
    ctx: &mut Ctx<'_>,
    plan: &RunPlan,
    (set, program): (SetName, CopyProgram),
    progress: &mut dyn Progress,
) -> Result<PreparedCopy> {
    let source = ctx.sources.get(plan, set, progress, &ctx.ledger)?;
    progress.update(&format!(
        "copying the {set} set with {program} for its update"
    ));
    let name = ctx.scratch.fresh_name(&format!("{program}-update"));
    let root = tree::make_dir(&ctx.scratch.root(), &name, ctx.engines)?;
    let dst = ctx.scratch.path().join(&name);
    let (bytes, files) = (source.info.bytes, source.info.files);
    let launcher = ctx.launcher()?;
    let start = std::time::Instant::now();
    let src = source.root.path();
    let copied = tree::timed_copy(program, (&src, &dst), ctx.scratch.fd(), launcher);
    // The program's pace, which its own copy variant times: not the price of a copy.
    let work = Work::new(Untimed::Copy, bytes, files);
    ctx.ledger.apart(work, start.elapsed().as_secs_f64());
    let start_up = copied.and_then(|_| start_up(ctx, plan, program));
    match start_up {
        Ok(start_up) => Ok(PreparedCopy {
            root,
            name,
            bytes,
            files,
            start_up: Some(start_up),
        }),
        Err(e) => {
            remove(ctx, &name, (bytes, files));
            Err(e)
        }
    }
}

/// Times `program` is run onto an empty tree to time its start-up.
const STARTS: usize = 3;

/// `program`'s start-up: run onto an empty tree as a pass runs onto the set (confined, the
/// destination synced), [`STARTS`] times, untimed for the run. A pass's time less it is the
/// program's walk, which a folder of more files scales (`answer::pace::rsync_walk`).
fn start_up(
    ctx: &mut Ctx<'_>,
    plan: &RunPlan,
    program: CopyProgram,
) -> Result<ProgramStartDetails> {
    let empty = ctx.sources.empty_dir(plan)?.path();
    let name = ctx.scratch.fresh_name(&format!("{program}-start"));
    tree::make_dir(&ctx.scratch.root(), &name, ctx.engines)?;
    let dst = ctx.scratch.path().join(&name);
    let launcher = ctx.launcher()?;
    let began = std::time::Instant::now();
    let samples_s: Result<Vec<f64>> = (0..STARTS)
        .map(|_| {
            let copy = tree::timed_copy(program, (&empty, &dst), ctx.scratch.fd(), launcher);
            copy.map(|c| c.elapsed.as_secs_f64())
        })
        .collect();
    // Its own kind of work, no copy's price.
    let work = Work::new(Untimed::Copy, 0, 0);
    ctx.ledger.apart(work, began.elapsed().as_secs_f64());
    remove(ctx, &name, (0, 0));
    let samples_s = samples_s?;
    Ok(ProgramStartDetails {
        start_s: stats::median(&samples_s),
        samples_s,
    })
}
