//! The I/O loop every test shares: keep `depth` requests in flight on one file until the source of
//! offsets runs dry or the deadline passes, recording every completion.

use std::io;
use std::time::Duration;

use crate::engine::{Completion, Engine, EngineKind, FileId, IoRequest, Op};
use crate::error::{Error, Result};
use crate::interrupt;
use crate::results::{Method, Repetition};
use crate::runner::ctx::Measured;
use crate::stats::{LatencyHistogram, ThroughputSeries};
use crate::units;
use crate::workload::DataStamper;

/// Counts what completed, relative to the test's start.
pub struct Recorder {
    pub start: Duration,
    pub latency: LatencyHistogram,
    pub series: ThroughputSeries,
    pub bytes: u64,
    pub ops: u64,
    /// Bytes kept out of the series until [`Recorder::settle`] spreads them (a segment whose
    /// flush belongs to its time); None while recording as they complete.
    held: Option<u64>,
}

impl Recorder {
    pub fn new(start: Duration, series_interval: Duration) -> Self {
        Recorder {
            start,
            latency: LatencyHistogram::default(),
            series: ThroughputSeries::new(series_interval),
            bytes: 0,
            ops: 0,
            held: None,
        }
    }

    /// From now on, completions' bytes wait for [`Recorder::settle`] instead of entering the
    /// series.
    pub fn hold(&mut self) {
        self.held.get_or_insert(0);
    }

    /// The bytes held since [`Recorder::hold`], spread evenly from `from` to `now` (engine
    /// time): a segment written into a cache, then flushed, enters the series at the rate of
    /// the two together.
    pub fn settle(&mut self, from: Duration, now: Duration) {
        if let Some(bytes) = self.held.take() {
            let (from, to) = (
                from.saturating_sub(self.start),
                now.saturating_sub(self.start),
            );
            self.series.record_span(from, to, bytes);
        }
    }

    /// A request of `bytes` completed at `now` (engine time) after `latency`: its bytes are
    /// spread over the time it was in flight. With several in flight, each interval holds the
    /// shares of those it overlapped: counted at their completions instead, a queue of eight
    /// that completes in clumps shows clumps.
    pub fn record(&mut self, now: Duration, bytes: u64, latency: Duration) {
        let at = now.saturating_sub(self.start);
        self.latency.record(latency);
        match self.held.as_mut() {
            Some(held) => *held += bytes,
            None => self
                .series
                .record_span(at.saturating_sub(latency), at, bytes),
        }
        self.bytes += bytes;
        self.ops += 1;
    }
}

/// One request's place in a file: offset, length issued, and the bytes of it that count (the
/// padded tail of a direct write issues a whole block but counts only the file's bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk {
    pub offset: u64,
    pub len: usize,
    pub counted: u64,
}

/// Streams `op` over `file` with up to `depth` requests in flight. `next` yields the chunks; it is
/// not called again once `open` (asked after each reap, with the engine's time and what was
/// recorded so far) has said no more, and what is in flight then completes. Write buffers are stamped
/// before each request so every block written is unique.
#[allow(clippy::too_many_arguments)]
pub fn stream(
    engine: &mut dyn Engine,
    file: FileId,
    op: Op,
    depth: usize,
    mut next: impl FnMut() -> Option<Chunk>,
    open: &mut dyn FnMut(Duration, &Recorder) -> bool,
    mut stamper: Option<&mut DataStamper>,
    recorder: &mut Recorder,
    what: &dyn Fn() -> String,
) -> Result<()> {
    let mut issued: Vec<Option<Chunk>> = vec![None; depth];
    let mut in_flight = 0usize;
    let mut submit = |engine: &mut dyn Engine, slot: usize, chunk: Chunk| -> Result<()> {
        if let Some(stamper) = stamper.as_deref_mut() {
            stamper.stamp(&mut engine.buffer_mut(slot)[..chunk.len]);
        }
        let request = IoRequest {
            slot,
            file,
            op,
            offset: chunk.offset,
            len: chunk.len,
        };
        engine.submit(request).map_err(|e| Error::io(what(), e))
    };
    for (slot, issued) in issued.iter_mut().enumerate() {
        let Some(chunk) = next() else { break };
        submit(engine, slot, chunk)?;
        *issued = Some(chunk);
        in_flight += 1;
    }
    let mut done: Vec<Completion> = Vec::with_capacity(depth);
    let mut closed = false;
    while in_flight > 0 {
        interrupt::check()?;
        done.clear();
        engine
            .reap(1, &mut done)
            .map_err(|e| Error::io(what(), e))?;
        let now = engine.now();
        closed = closed || !open(now, recorder);
        for completion in done.drain(..) {
            in_flight -= 1;
            let slot = completion.slot;
            let chunk = issued[slot].take().expect("completion for an issued slot");
            let transferred = completion.result.map_err(|e| Error::io(what(), e))?;
            if op == Op::Write && transferred < chunk.len {
                return Err(Error::io(
                    what(),
                    io::Error::new(io::ErrorKind::WriteZero, "short write"),
                ));
            }
            recorder.record(
                now,
                chunk.counted.min(transferred as u64),
                completion.latency,
            );
            if !closed && let Some(next_chunk) = next() {
                submit(engine, slot, next_chunk)?;
                issued[slot] = Some(next_chunk);
                in_flight += 1;
            }
        }
    }
    Ok(())
}

/// Makes `file` durable (fdatasync) through the engine, inside the caller's timing.
pub fn sync(engine: &mut dyn Engine, file: FileId, what: &dyn Fn() -> String) -> Result<()> {
    let completion = engine
        .run_one(IoRequest {
            slot: 0,
            file,
            op: Op::Sync,
            offset: 0,
            len: 0,
        })
        .map_err(|e| Error::io(what(), e))?;
    completion.result.map_err(|e| Error::io(what(), e))?;
    Ok(())
}

impl Measured {
    /// A repetition of streamed I/O: the recorder's bytes over `elapsed`, in MB/s, and its
    /// counts, series and latencies. Callers add what else they know.
    pub(in crate::runner) fn streamed(
        recorder: Recorder,
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
                passes: None,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Each request's bytes land in the time it was in flight: two of 1 MB over 0-0.1 s and
    /// 0.05-0.1 s, one of 5 MB over 0.1-0.6 s.
    #[test]
    fn a_request_moves_its_bytes_while_in_flight() {
        let ms = Duration::from_millis;
        let mut recorder = Recorder::new(ms(1000), ms(250));
        recorder.record(ms(1100), 1_000_000, ms(100));
        recorder.record(ms(1100), 1_000_000, ms(50));
        recorder.record(ms(1600), 5_000_000, ms(500));
        let rates = recorder.series.rates_mb_s(ms(750));
        // 2 MB, then 1 MB per 0.1 s from 0.1 s: 2 + 1.5 MB, 2.5 MB, 1 MB.
        let expected = [14.0, 10.0, 4.0];
        assert_eq!(rates.len(), 3);
        for (rate, want) in rates.iter().zip(expected) {
            assert!((rate - want).abs() < 1e-6, "{rates:?}");
        }
        assert_eq!((recorder.bytes, recorder.ops), (7_000_000, 3));
    }
}
