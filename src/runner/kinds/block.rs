//! The block tests: blocks over one shared test file for a fixed time (CrystalDiskMark style).

use std::time::Duration;

use crate::engine::{Engine, Op};
use crate::error::{Error, Result};
use crate::platform;
use crate::stats::steady;
use crate::workload::{Direction, Pattern};

use crate::runner::ctx::{Ctx, Measured};
use crate::runner::hook::RepetitionHook;
use crate::runner::kinds::order::RandomOrder;
use crate::runner::kinds::stream::{self, Chunk, Recorder};
use crate::runner::kinds::test::{Rep, Shape, Test};
use crate::settings::RunPlan;

/// The shared file of the block tests, inside the scratch directory.
pub const TEST_FILE: &str = "blocks.dat";
/// Block size used to lay the test file down.
const FILL_BLOCK: usize = 1 << 20;
const FILL_DEPTH: usize = 8;

/// Fills every slot buffer with random bytes (once per engine; stamps make blocks unique later).
pub(in crate::runner) fn fill_buffers(ctx: &mut Ctx<'_>, engine: &mut dyn Engine, depth: usize) {
    for slot in 0..depth {
        ctx.stamper.fill(engine.buffer_mut(slot));
    }
}

/// The first part of the test file, timed on its own with its flush: what the destination makes
/// durable tells the run, before the rest, whether it fits the budget (a second at 16 MB/s).
const HEAD_BYTES: u64 = 16 << 20;

/// Writes the test file, untimed, durable; returns its size and how long it took on the
/// engine's clock. `head` hears how long its first part (of at most `size` bytes) took and
/// says the file's whole size (a multiple of 1 MiB, at least that part).
pub(in crate::runner) fn prepare_test_file(
    ctx: &mut Ctx<'_>,
    size: u64,
    head: &mut dyn FnMut(u64, Duration) -> u64,
) -> Result<(u64, Duration)> {
    let mut engine = ctx.build_engine(FILL_DEPTH)?;
    engine
        .prepare(FILL_DEPTH, FILL_BLOCK)
        .map_err(|e| Error::io("setting up I/O buffers", e))?;
    fill_buffers(ctx, engine.as_mut(), FILL_DEPTH);
    let what = || "writing the test file".to_string();
    let file = engine
        .open(ctx.scratch.fd(), TEST_FILE, ctx.access.open_how(true, true))
        .map_err(|e| Error::io(what(), e))?;
    let start = engine.now();
    let mut recorder = Recorder::new(start, Duration::from_secs(1));
    let mut offset = 0u64;
    let head_bytes = size.min(HEAD_BYTES);
    let mut size = size;
    for part in 0..2 {
        let end = if part == 0 { head_bytes } else { size };
        let next = || {
            (offset < end).then(|| {
                let chunk = Chunk {
                    offset,
                    len: FILL_BLOCK,
                    counted: FILL_BLOCK as u64,
                };
                offset += FILL_BLOCK as u64;
                chunk
            })
        };
        let stamper = &mut *ctx.stamper;
        stream::stream(
            engine.as_mut(),
            file,
            Op::Write,
            FILL_DEPTH,
            next,
            &mut |_, _| true,
            Some(stamper),
            &mut recorder,
            &what,
        )?;
        if part == 0 {
            // Flushed, so the head's time is what the destination makes durable: a share's
            // server can take writes into its memory many times faster.
            stream::sync(engine.as_mut(), file, &what)?;
            let took = engine.now() - start;
            if ctx.access.real_io && ctx.chain.is_some_and(crate::probe::Chain::is_network) {
                ctx.durable_write = Some(head_bytes as f64 / took.as_secs_f64().max(1e-6));
            }
            size = head(head_bytes, took).max(head_bytes);
        }
    }
    stream::sync(engine.as_mut(), file, &what)?;
    let took = engine.now() - start;
    engine.close(file).map_err(|e| Error::io(what(), e))?;
    Ok((size, took))
}

/// A block variant: `block`-byte requests over the shared test file for the block duration.
pub(in crate::runner) struct BlockTest {
    pub direction: Direction,
    pub pattern: Pattern,
    pub block: usize,
    pub depth: usize,
}

impl Test for BlockTest {
    fn shape(&self) -> Shape {
        Shape::io(self.block, self.depth)
    }

    fn planned_s(&self, plan: &RunPlan) -> f64 {
        plan.block_duration.as_secs_f64()
    }

    fn measure(&mut self, rep: Rep<'_, '_>) -> Result<Measured> {
        measure(rep.ctx, self, rep.plan, rep.index)
    }
}

/// The job's blocks of a `file_size`-byte file in its pattern, over and over with `wrap`, else
/// once; none once another client has finished its work (stonewalling: this one stops and
/// counts what it did).
fn chunks<'h>(
    job: &BlockTest,
    file_size: u64,
    wrap: bool,
    seed: u64,
    hook: &'h dyn RepetitionHook,
) -> impl FnMut() -> Option<Chunk> + use<'h> {
    let blocks = file_size / job.block as u64;
    let block = job.block as u64;
    let mut sequential = 0u64;
    let mut random = RandomOrder::new(blocks, seed);
    let pattern = job.pattern;
    move || {
        if hook.stop_requested() {
            return None;
        }
        let index = match pattern {
            Pattern::Sequential => {
                if !wrap && sequential == blocks {
                    return None;
                }
                sequential += 1;
                (sequential - 1) % blocks
            }
            Pattern::Random => {
                if !wrap && random.pass_complete() {
                    return None;
                }
                random.next_block()
            }
        };
        Some(Chunk {
            offset: index * block,
            len: block as usize,
            counted: block,
        })
    }
}

/// Complete intervals a block test needs before its rate can be called steady.
const MIN_STEADY_POINTS: usize = 4;

/// Whether a block test's rate is steady after `elapsed`: at least `min_time` and
/// [`MIN_STEADY_POINTS`] complete intervals, the first left out (the queue filling), flat by
/// `stats::steady`'s rule (the fitted drift within 5% and the spread within 10%).
fn steady(recorder: &Recorder, elapsed: Duration, min_time: Duration) -> bool {
    if elapsed < min_time {
        return false;
    }
    let interval = recorder.series.interval();
    let complete = (elapsed.as_nanos() / interval.as_nanos().max(1)) as usize;
    let rates = recorder.series.rates_mb_s(elapsed);
    let points = &rates[..complete.min(rates.len())];
    points.len() > MIN_STEADY_POINTS
        && steady::Flatness::of(&points[1..]).is_some_and(|f| f.is_flat())
}

/// On a share, a write repetition stops sending once it has written this many block durations
/// of what the destination makes durable (`Ctx::durable_write`): the flush at its end then
/// makes the repetition last about that long, so it may stop before `--min-time`, where a
/// server that took the writes into its memory at the wire's rate would be left flushing for
/// many block durations (docs/lab.md, "A share's parts"). Where writes are durable as they go,
/// it is not reached.
const DURABLE_DURATIONS: f64 = 1.25;

/// Whether a repetition that began at `start` keeps its queue full at engine time `now`: until
/// the block duration (or `cap` bytes, where given), or without `--duration` until its rate is
/// steady (judged once per series interval; the queue stays full until then, as a
/// CrystalDiskMark or fio run keeps it).
fn open_until(
    start: Duration,
    plan: &RunPlan,
    interval: Duration,
    cap: Option<u64>,
) -> impl FnMut(Duration, &Recorder) -> bool + use<> {
    let end = start + plan.block_duration;
    let (until_steady, min_time) = (plan.block_until_steady, plan.min_time);
    let mut judged = 0;
    move |now, recorder| {
        if now >= end || cap.is_some_and(|cap| recorder.bytes >= cap) {
            return false;
        }
        let intervals = (now - start).as_nanos() / interval.as_nanos().max(1);
        if !until_steady || intervals == judged {
            return true;
        }
        judged = intervals;
        !steady(recorder, now - start, min_time)
    }
}

/// One timed repetition of a block variant.
fn measure(ctx: &mut Ctx<'_>, job: &BlockTest, plan: &RunPlan, rep: usize) -> Result<Measured> {
    let mut engine = ctx.build_engine(job.depth)?;
    engine
        .prepare(job.depth, job.block)
        .map_err(|e| Error::io("setting up I/O buffers", e))?;
    let write = job.direction == Direction::Write;
    let what = || {
        format!(
            "{} the test file",
            if write { "writing" } else { "reading" }
        )
    };
    let file = engine
        .open(
            ctx.scratch.fd(),
            TEST_FILE,
            ctx.access.open_how(write, false),
        )
        .map_err(|e| Error::io(what(), e))?;
    let (method, warning) = if write {
        fill_buffers(ctx, engine.as_mut(), job.depth);
        (ctx.access.write_method(), None)
    } else {
        ctx.access
            .prepare_read(engine.as_mut(), file, plan.file_size)?
    };

    // Buffered runs stop after one pass: a second pass would rewrite or reread pages the
    // first one left in the page cache.
    let wrap = ctx.access.direct || !ctx.access.real_io;
    let next = chunks(job, plan.file_size, wrap, ctx.seed ^ rep as u64, ctx.hook);
    let cpu_start = platform::process_cpu_time();
    let start = engine.now();
    let mut recorder = Recorder::new(start, ctx.series_interval);
    let op = if write { Op::Write } else { Op::Read };
    let cap = ctx
        .durable_write
        .filter(|_| write)
        .map(|rate| (rate * plan.block_duration.as_secs_f64() * DURABLE_DURATIONS) as u64);
    let mut open = open_until(start, plan, ctx.series_interval, cap);
    let stamper = write.then_some(&mut *ctx.stamper);
    stream::stream(
        engine.as_mut(),
        file,
        op,
        job.depth,
        next,
        &mut open,
        stamper,
        &mut recorder,
        &what,
    )?;
    if write {
        stream::sync(engine.as_mut(), file, &what)?;
    }
    let elapsed = engine.now() - start;
    let cpu = platform::process_cpu_time().saturating_sub(cpu_start);
    engine.close(file).map_err(|e| Error::io(what(), e))?;
    Ok(Measured {
        warnings: warning.into_iter().collect(),
        ..Measured::streamed(recorder, elapsed, cpu, method, engine.kind())
    })
}
