//! The sustained write: one new file, written from its start, until the rate has been steady
//! for as long as everything before it (`stats::steady`), or `--time`, or the size cap. Finds the
//! cliff an SSD's SLC cache or an enclosure's thermal throttle makes, and how much was written
//! before it.
//!
//! The write goes in segments of [`SEGMENT`]: after each, the time series so far is checked.
//! Between segments the queue drains for an instant, which costs far less than the interval the
//! series is measured in. Without direct I/O, and on a network filesystem (direct I/O bypasses
//! the client's cache, not the server's), each segment ends with `fdatasync`, inside the
//! timing, so the series follows the device rather than a page cache.

use std::time::Duration;

use crate::engine::Op;
use crate::error::{Error, Result};
use crate::platform;
use crate::results::{CliffDetails, Details, SustainedDetails, SustainedStop};
use crate::results::{Warning, WarningKind};
use crate::settings::defs;
use crate::stats::steady;
use crate::units;

use crate::runner::ctx::{Ctx, Measured};
use crate::runner::kinds::block::fill_buffers;
use crate::runner::kinds::stream::{self, Chunk, Recorder};
use crate::runner::kinds::test::{Rep, Shape, Test};
use crate::settings::RunPlan;

const FILE: &str = "sustained.dat";
/// Width of one point of the series the steady state and the cliff are found in: fine enough
/// to place a cliff within a few percent of a cache of a few hundred MB at SSD speeds.
pub const INTERVAL: Duration = Duration::from_millis(200);
/// Intervals per point of the steadiness check (one second).
const STEADY_BIN: usize = 5;
/// How often the series is checked.
const SEGMENT: Duration = Duration::from_millis(1000);
/// Share of the free space the test may fill.
const SPACE_SHARE: f64 = 0.9;
/// After a drop, fewer bytes than this many queues hold, completed over at least
/// [`STALL_S`] by requests of which one waited that long, are no rate but a stall: a device
/// that writes on keeps its requests coming back, however slowly (a 3 MB/s stick: a 1 MiB
/// request eight deep in under 3 s).
const STALL_QUEUES: u64 = 2;
const STALL_S: f64 = 5.0;

/// The sustained write: one new file, `block`-byte requests, `depth` in flight, until steady.
pub(in crate::runner) struct SustainedTest {
    pub block: usize,
    pub depth: usize,
}

impl Test for SustainedTest {
    fn shape(&self) -> Shape {
        Shape::io(self.block, self.depth)
    }

    fn planned_s(&self, plan: &RunPlan) -> f64 {
        plan.sustained_time.as_secs_f64()
    }

    fn measure(&mut self, rep: Rep<'_, '_>) -> Result<Measured> {
        measure(rep.ctx, rep.plan, self.block, self.depth)
    }
}

fn measure(ctx: &mut Ctx<'_>, plan: &RunPlan, block: usize, depth: usize) -> Result<Measured> {
    let block_u = block as u64;
    let cap = size_cap(ctx, plan, block_u, depth)?;
    let mut engine = ctx.build_engine(depth)?;
    engine
        .prepare(depth, block)
        .map_err(|e| Error::io("setting up I/O buffers", e))?;
    fill_buffers(ctx, engine.as_mut(), depth);
    let what = || format!("writing {FILE}");
    let file = engine
        .open(ctx.scratch.fd(), FILE, ctx.access.open_how(true, true))
        .map_err(|e| Error::io(what(), e))?;
    let outcome = write_until_steady(ctx, plan, engine.as_mut(), file, depth, block_u, cap);
    let _ = engine.close(file);
    ctx.remove_file(FILE);
    let (recorder, elapsed, cpu, stopped) = outcome?;
    let details = describe(&recorder, elapsed, stopped, block_u * depth as u64);
    let mut warnings = Vec::new();
    if stopped != SustainedStop::Steady {
        warnings.push(Warning::new(WarningKind::NotSteady, format!(
            "the rate was not yet steady when the {stopped} was reached: the final rate may still change (raise {} or {})",
            defs::TIME,
            defs::SIZE
        )));
    }
    Ok(Measured {
        warnings,
        details: Some(Details::Sustained(details)),
        ..Measured::streamed(
            recorder,
            elapsed,
            cpu,
            ctx.access.write_method(),
            engine.kind(),
        )
    })
}

/// The most the test may write: `--size`, or the share of the free space, in whole blocks; Err
/// when not even one block per slot fits.
fn size_cap(ctx: &Ctx<'_>, plan: &RunPlan, block: u64, depth: usize) -> Result<u64> {
    let free = platform::available_space(ctx.scratch.path()).map_err(|e| {
        Error::io(
            format!("checking free space on {}", ctx.scratch.path().display()),
            e,
        )
    })?;
    let cap = (plan.sustained_size.min((free as f64 * SPACE_SHARE) as u64)) / block * block;
    if cap < block * depth as u64 {
        return Err(Error::Destination {
            path: plan.destination.clone(),
            problem: format!(
                "not enough free space for the sustained write ({} free)",
                units::format_bytes(free)
            ),
        });
    }
    Ok(cap)
}

/// The write's figures: its complete intervals' rates, the cliff in them if there is one, and
/// the rate it settled at (after the cliff, else the second half's mean). Past a cliff where
/// the writes stalled ([`STALL_QUEUES`] of `queue_bytes`), the rate after it is the whole
/// write's, its final flush included.
fn describe(
    recorder: &Recorder,
    elapsed: Duration,
    stopped: SustainedStop,
    queue_bytes: u64,
) -> SustainedDetails {
    let complete = (elapsed.as_nanos() / INTERVAL.as_nanos()) as usize;
    let rates: Vec<f64> = recorder
        .series
        .rates_mb_s(elapsed)
        .into_iter()
        .take(complete)
        .collect();
    let dt = INTERVAL.as_secs_f64();
    let cliff = steady::find_cliff(&rates).map(|c| {
        let after_bytes = rates[c.index..].iter().sum::<f64>() * dt * 1e6;
        let after_s = (rates.len() - c.index) as f64 * dt;
        let longest_s = recorder.latency.summary().map_or(0.0, |l| l.max / 1e6);
        let stalled = after_bytes < (STALL_QUEUES * queue_bytes) as f64
            && after_s >= STALL_S
            && longest_s >= STALL_S;
        CliffDetails {
            bytes_before: (steady::megabytes_before(&rates, &c, dt) * 1e6) as u64,
            seconds_before: c.index as f64 * dt,
            before_mb_s: c.before_mb_s,
            after_mb_s: if stalled {
                units::mb_per_s(recorder.bytes, elapsed.as_secs_f64())
            } else {
                c.after_mb_s
            },
            stalled_s: stalled.then_some(after_s),
        }
    });
    let final_mb_s = match (&cliff, rates.len()) {
        (_, 0) => units::mb_per_s(recorder.bytes, elapsed.as_secs_f64()),
        (Some(c), _) => c.after_mb_s,
        (None, n) => rates[n / 2..].iter().sum::<f64>() / (n - n / 2) as f64,
    };
    SustainedDetails {
        bytes_written: recorder.bytes,
        seconds: elapsed.as_secs_f64(),
        stopped: Some(stopped),
        final_mb_s,
        cliff,
        series_interval_s: dt,
        series_mb_s: rates,
    }
}

type Written = (Recorder, Duration, Duration, SustainedStop);

fn write_until_steady(
    ctx: &mut Ctx<'_>,
    plan: &RunPlan,
    engine: &mut dyn crate::engine::Engine,
    file: crate::engine::FileId,
    depth: usize,
    block: u64,
    cap: u64,
) -> Result<Written> {
    let what = || format!("writing {FILE}");
    // A server takes direct writes into its memory: unflushed, a share's gigabyte went in at
    // 360 MB/s, then the queue stalled 49 s while the server wrote it to its 20 MB/s disk. A
    // flushed segment's bytes are spread over its time, flush included.
    let sync_each = !ctx.access.direct || ctx.chain.is_some_and(crate::probe::Chain::is_network);
    let cpu_start = platform::process_cpu_time();
    let start = engine.now();
    let mut recorder = Recorder::new(start, INTERVAL);
    let mut offset = 0u64;
    let mut segment_end = start;
    // A flat start is believed only after a quarter of --time (see stats::steady).
    let min_points = (plan.sustained_time.as_nanos() / 4 / INTERVAL.as_nanos()) as usize;
    let stopped = loop {
        let segment_start = engine.now();
        if sync_each {
            recorder.hold();
        }
        segment_end += SEGMENT;
        let deadline = segment_end.min(start + plan.sustained_time);
        let next = || {
            (offset < cap).then(|| {
                let chunk = Chunk {
                    offset,
                    len: block as usize,
                    counted: block,
                };
                offset += block;
                chunk
            })
        };
        let stamper = &mut *ctx.stamper;
        stream::stream(
            engine,
            file,
            Op::Write,
            depth,
            next,
            &mut |now, _| now < deadline,
            Some(stamper),
            &mut recorder,
            &what,
        )?;
        if sync_each {
            stream::sync(engine, file, &what)?;
            recorder.settle(segment_start, engine.now());
        }
        let elapsed = engine.now() - start;
        if offset >= cap {
            break SustainedStop::SizeCap;
        }
        if elapsed >= plan.sustained_time {
            break SustainedStop::TimeCap;
        }
        let complete = (elapsed.as_nanos() / INTERVAL.as_nanos()) as usize;
        let rates = recorder.series.rates_mb_s(elapsed);
        let points = steady::rebin(&rates[..complete.min(rates.len())], STEADY_BIN);
        if steady::is_steady(&points, min_points / STEADY_BIN) {
            break SustainedStop::Steady;
        }
    };
    // Durable before the clock stops, as every write figure (direct writes too: the drive's
    // cache).
    stream::sync(engine, file, &what)?;
    let elapsed = engine.now() - start;
    Ok((
        recorder,
        elapsed,
        platform::process_cpu_time().saturating_sub(cpu_start),
        stopped,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MB: u64 = 1_000_000;

    /// A recorder that took `fast` MB in its first 2 s, then `slow_mb_s` for `slow_s` seconds,
    /// in requests of 1 MB.
    fn recorder(fast: u64, slow_mb_s: f64, slow_s: f64) -> Recorder {
        let mut r = Recorder::new(Duration::ZERO, INTERVAL);
        for i in 0..fast {
            let at = Duration::from_secs_f64(2.0 * (i + 1) as f64 / fast as f64);
            r.record(at, MB, Duration::from_millis(1));
        }
        let slow = (slow_mb_s * slow_s).round() as u64;
        for i in 0..slow {
            let at = Duration::from_secs_f64(2.0 + slow_s * (i + 1) as f64 / slow as f64);
            r.record(at, MB, Duration::from_secs_f64(slow_s / slow as f64));
        }
        r
    }

    /// Past a cache a disk writes on at its own rate: the rate after the drop is the series'.
    /// A server that takes 1 GB into its memory and then holds the queue while it writes it
    /// out completes a few requests over the stall: no rate, so the rate after the drop is the
    /// whole write's, its flush included, and the stall is said.
    #[test]
    fn a_stall_after_the_drop_is_no_rate() {
        let elapsed = Duration::from_secs(12);
        let d = describe(
            &recorder(1000, 20.0, 10.0),
            elapsed,
            SustainedStop::TimeCap,
            8 * MB,
        );
        let c = d.cliff.expect("a cliff");
        assert_eq!(c.stalled_s, None);
        assert!((c.after_mb_s / 20.0 - 1.0).abs() < 0.05, "{c:?}");
        // A slow stick past its cache still writes: 1.5 MB/s for 8 s is a rate.
        let elapsed = Duration::from_secs(10);
        let d = describe(
            &recorder(1000, 1.5, 8.0),
            elapsed,
            SustainedStop::TimeCap,
            8 * MB,
        );
        let c = d.cliff.expect("a cliff");
        assert_eq!(c.stalled_s, None, "{c:?}");
        assert!((c.after_mb_s / 1.5 - 1.0).abs() < 0.1, "{c:?}");
        let elapsed = Duration::from_secs(52);
        let d = describe(
            &recorder(1000, 0.16, 50.0),
            elapsed,
            SustainedStop::TimeCap,
            8 * MB,
        );
        let c = d.cliff.expect("a cliff");
        assert!(c.stalled_s.is_some_and(|s| (s - 50.0).abs() < 1.0), "{c:?}");
        // 1,008 MB in 52 s.
        assert!((c.after_mb_s - 1008.0 / 52.0).abs() < 0.1, "{c:?}");
        assert_eq!(d.final_mb_s, c.after_mb_s);
    }
}
