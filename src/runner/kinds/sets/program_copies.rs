//! The file sets copied by another program, as a backup tool runs it (`rsync -a`): a copy into
//! a fresh directory of the scratch, or the program again onto its own unchanged copy (an
//! update: the walk a routine backup makes). The program does the I/O (`tree::timed_copy`);
//! these turn what it did into a repetition of the file-set test.

use std::time::Duration;

use crate::engine::EngineKind;
use crate::error::Result;
use crate::results::{FileSetInfo, Method, Warning, WarningKind};
use crate::stats::{LatencyHistogram, ThroughputSeries};
use crate::tree::{self, Listed, Outcome, ProgramCopy, Skipped};
use crate::workload::CopyProgram;

use crate::runner::ctx::Ctx;
use crate::runner::kinds::sets::prepared::{PreparedCopy, remove};
use crate::runner::sources::SourceSet;

/// One timed copy of the set by `program` into a fresh directory, removed untimed after.
pub(in crate::runner) fn copy_pass(
    ctx: &mut Ctx<'_>,
    program: CopyProgram,
    (rep, pass): (usize, u64),
    source: &SourceSet,
) -> Result<(Outcome, Method, Vec<Warning>)> {
    let name = ctx.scratch.fresh_name(&format!("{program}-{rep}-{pass}"));
    tree::make_dir(&ctx.scratch.root(), &name, ctx.engines)?;
    let dst = ctx.scratch.path().join(&name);
    let copy = tree::timed_copy(
        program,
        (&source.root.path(), &dst),
        ctx.scratch.fd(),
        ctx.launcher()?,
    );
    remove(ctx, &name, (source.info.bytes, source.info.files));
    let copy = copy?;
    let outcome = program_outcome(&source.info, &copy, ctx.series_interval);
    Ok((outcome, ctx.access.method(Method::Syncfs), left_out(&copy)))
}

/// One timed run of `program` onto its own copy of the set, which nothing changed: its files
/// walked, no data moved.
pub(in crate::runner) fn update_pass(
    ctx: &mut Ctx<'_>,
    program: CopyProgram,
    prepared: &PreparedCopy,
    source: &SourceSet,
) -> Result<(Outcome, Method, Vec<Warning>)> {
    let dst = ctx.scratch.path().join(&prepared.name);
    let copy = tree::timed_copy(
        program,
        (&source.root.path(), &dst),
        ctx.scratch.fd(),
        ctx.launcher()?,
    )?;
    let mut outcome = program_outcome(&source.info, &copy, ctx.series_interval);
    outcome.bytes = 0;
    Ok((outcome, ctx.access.method(Method::Syncfs), left_out(&copy)))
}

/// What another program's copy of the set did, as a tree task's outcome: the set's files and
/// bytes in the time it took, no series (the program reports none).
fn program_outcome(set: &FileSetInfo, copy: &ProgramCopy, interval: Duration) -> Outcome {
    Outcome {
        files: set.files,
        bytes: set.bytes,
        dirs: 0,
        special: Listed::default(),
        unreadable: Listed::default(),
        skipped: Skipped::default(),
        mismatches: Listed::default(),
        latency: LatencyHistogram::default(),
        series: ThroughputSeries::new(interval),
        elapsed: copy.elapsed,
        cpu: copy.cpu.unwrap_or_default(),
        engine: EngineKind::Program,
    }
}

/// The warning of a program's copy that left files of the set out, where it did.
fn left_out(copy: &ProgramCopy) -> Vec<Warning> {
    copy.incomplete
        .iter()
        .map(|said| Warning::new(WarningKind::SkippedFiles, said.clone()))
        .collect()
}
