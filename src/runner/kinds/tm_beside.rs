//! tm-backup beside a foreground reader: the replay again, at background I/O priority as
//! backupd runs, while a reader reads another file of the destination (the throttled test's
//! reader and its judgement of whether the priority can act). Each side's slowdown against
//! its rate alone.

use std::time::{Duration, Instant};

use crate::engine::{Engine, SyncEngine};
use crate::error::{Error, Result};
use crate::platform;
use crate::results::TmBesideReader;
use crate::results::TmPhaseFigures;
use crate::tree;

use crate::runner::ctx::Ctx;
use crate::runner::kinds::throttled::{self, Side, Target};
use crate::settings::RunPlan;

const READ_FILE: &str = "tm-read.dat";
const BLOCK: usize = 1 << 20;

/// The reader alone for the block duration, then beside `replay` (in a thread of its own, at
/// background priority) for as long as the replay took alone (`alone_s`); the replay's user
/// data rate alone is `alone_mb_s`. `replay` returns its first backup's figures.
pub(in crate::runner) fn beside_reader(
    ctx: &Ctx<'_>,
    plan: &RunPlan,
    replay: &(dyn Fn(&str) -> Result<TmPhaseFigures> + Sync),
    (alone_mb_s, alone_s): (f64, f64),
) -> Result<TmBesideReader> {
    // The replay's writes are buffered: writeback does not carry the writer's priority.
    let effect = throttled::priority_effect(ctx.chain, false);
    let len = plan.file_size / BLOCK as u64 * BLOCK as u64;
    let reader = Target {
        dir: ctx.scratch.fd(),
        name: READ_FILE,
        how: ctx.access.open_how(false, false),
    };
    let created = Target {
        how: ctx.access.open_how(true, true),
        ..reader
    };
    let io = |e| Error::io("reading beside the Time Machine replay", e);
    let name = format!("{}.sparsebundle", ctx.scratch.fresh_name("tm-beside"));
    let measured = (|| -> Result<(f64, f64, f64, f64)> {
        throttled::write_full(created, len, BLOCK, ctx.seed)?;
        let rate = |(bytes, s, _): (u64, f64, u64)| bytes as f64 / s.max(1e-9) / 1e6;
        let mut resident = evict(reader, len).map_err(io)?;
        let until = Instant::now() + plan.block_duration;
        let alone =
            rate(throttled::job(Side::Read, reader, len, BLOCK, until, ctx.seed).map_err(io)?);
        resident = resident.max(evict(reader, len).map_err(io)?);
        let window = Duration::from_secs_f64(alone_s.max(plan.block_duration.as_secs_f64()));
        std::thread::scope(|scope| {
            let writer = scope.spawn(|| {
                platform::set_background_io_priority()
                    .map_err(|e| Error::io("setting background I/O priority", e))?;
                replay(&name)
            });
            let until = Instant::now() + window;
            let read = throttled::job(Side::Read, reader, len, BLOCK, until, ctx.seed);
            let replayed = writer.join().map_err(|_| {
                Error::io("replaying", std::io::Error::other("a thread panicked"))
            })??;
            let first = replayed;
            let beside = first.user_bytes as f64 / first.seconds.max(1e-9) / 1e6;
            Ok((alone, rate(read.map_err(io)?), beside, resident))
        })
    })();
    tree::remove_all(&ctx.scratch.root(), &name, ctx.engines);
    ctx.remove_file(READ_FILE);
    let (reader_alone, reader_beside, replay_beside, resident) = measured?;
    let slowdown = |beside: f64, alone: f64| {
        if alone > 0.0 {
            1.0 - beside / alone
        } else {
            0.0
        }
    };
    Ok(TmBesideReader {
        priority_effective: effect.effective(),
        note: effect.note(),
        reader_alone_mb_s: reader_alone,
        reader_beside_mb_s: reader_beside,
        replay_beside_mb_s: replay_beside,
        reader_slowdown: slowdown(reader_beside, reader_alone),
        replay_slowdown: slowdown(replay_beside, alone_mb_s),
        reader_resident: resident,
    })
}

/// Drops the reader's file from the page cache before it is read (direct reads never use it);
/// returns the fraction still resident (0 when it cannot be told).
fn evict(target: Target<'_>, len: u64) -> std::io::Result<f64> {
    let mut engine = SyncEngine::new();
    let file = engine.open(target.dir, target.name, target.how)?;
    let resident = engine.evict(file, len);
    engine.close(file)?;
    Ok(resident?.unwrap_or(0.0))
}
