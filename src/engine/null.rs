//! The `null` engine: no I/O, deterministic latencies on a virtual clock.
//!
//! Every data request takes exactly `io_latency`, every `Sync` takes `sync_latency`, every open
//! takes `open_latency`, and up to the prepared depth run in parallel. (File-tree operations have
//! their own costs: `tree/null.rs`.) Time only moves when the
//! engine says so, so the runner, the statistics and the reports can be checked against figures
//! computed by hand.

use std::collections::VecDeque;
use std::io;
use std::time::Duration;

use super::{AlignedBuf, Completion, Engine, EngineKind, FileId, IoRequest, Op};
use crate::platform::HandleRef;
use crate::platform::OpenHow;

/// The fixed costs the null engine pretends to pay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NullTiming {
    pub io_latency: Duration,
    pub sync_latency: Duration,
    pub open_latency: Duration,
    /// A file-tree metadata operation (create, mkdir, stat, rename, unlink, ...).
    pub meta_latency: Duration,
}

impl Default for NullTiming {
    /// 100 µs per request, 1 ms per sync, free opens, 10 µs per tree metadata operation: round
    /// numbers for tests.
    fn default() -> Self {
        NullTiming {
            io_latency: Duration::from_micros(100),
            sync_latency: Duration::from_millis(1),
            open_latency: Duration::ZERO,
            meta_latency: Duration::from_micros(10),
        }
    }
}

struct Pending {
    slot: usize,
    len: usize,
    submitted: Duration,
    done_at: Duration,
}

pub struct NullEngine {
    timing: NullTiming,
    clock: Duration,
    buffers: Vec<AlignedBuf>,
    /// In submission order; all requests take the same time per kind, so completion order is
    /// submission order within a kind, and we pick the earliest below.
    pending: VecDeque<Pending>,
    next_file: usize,
}

impl NullEngine {
    pub fn new(timing: NullTiming) -> Self {
        NullEngine {
            timing,
            clock: Duration::ZERO,
            buffers: Vec::new(),
            pending: VecDeque::new(),
            next_file: 0,
        }
    }

    fn pop_earliest(&mut self) -> Option<Pending> {
        let index = self
            .pending
            .iter()
            .enumerate()
            .min_by_key(|(_, p)| p.done_at)
            .map(|(i, _)| i)?;
        self.pending.remove(index)
    }
}

impl Engine for NullEngine {
    fn kind(&self) -> EngineKind {
        EngineKind::Null
    }

    fn now(&self) -> Duration {
        self.clock
    }

    fn prepare(&mut self, depth: usize, buffer_len: usize) -> io::Result<()> {
        if !self.pending.is_empty() {
            return Err(io::Error::other("prepare with I/O in flight"));
        }
        self.buffers = (0..depth.max(1))
            .map(|_| AlignedBuf::new(buffer_len))
            .collect();
        Ok(())
    }

    fn buffer_mut(&mut self, slot: usize) -> &mut [u8] {
        self.buffers[slot].as_mut_slice()
    }

    fn submit(&mut self, request: IoRequest) -> io::Result<()> {
        let cost = match request.op {
            Op::Sync | Op::FullSync => self.timing.sync_latency,
            Op::Read | Op::Write => self.timing.io_latency,
        };
        self.pending.push_back(Pending {
            slot: request.slot,
            len: match request.op {
                Op::Sync | Op::FullSync => 0,
                Op::Read | Op::Write => request.len,
            },
            submitted: self.clock,
            done_at: self.clock + cost,
        });
        Ok(())
    }

    fn reap(&mut self, min: usize, out: &mut Vec<Completion>) -> io::Result<()> {
        let mut reaped = 0;
        loop {
            let ready = self.pending.iter().any(|p| p.done_at <= self.clock);
            if reaped >= min && !ready {
                return Ok(());
            }
            let Some(done) = self.pop_earliest() else {
                return Ok(());
            };
            self.clock = self.clock.max(done.done_at);
            out.push(Completion {
                slot: done.slot,
                result: Ok(done.len),
                latency: done.done_at - done.submitted,
            });
            reaped += 1;
        }
    }

    fn open(&mut self, _dir: HandleRef<'_>, _name: &str, _how: OpenHow) -> io::Result<FileId> {
        self.clock += self.timing.open_latency;
        self.next_file += 1;
        Ok(FileId(self.next_file - 1))
    }

    fn close(&mut self, _file: FileId) -> io::Result<()> {
        Ok(())
    }

    fn set_len(&mut self, _file: FileId, _len: u64) -> io::Result<()> {
        Ok(())
    }

    fn evict(&mut self, _file: FileId, _len: u64) -> io::Result<Option<f64>> {
        Ok(Some(0.0))
    }

    fn unlink(&mut self, _dir: HandleRef<'_>, _name: &str) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(slot: usize, op: Op) -> IoRequest {
        IoRequest {
            slot,
            file: FileId(0),
            op,
            offset: 0,
            len: 4096,
        }
    }

    #[test]
    fn parallel_requests_complete_together_on_the_virtual_clock() {
        let mut engine = NullEngine::new(NullTiming::default());
        engine.prepare(4, 4096).unwrap();
        for slot in 0..4 {
            engine.submit(request(slot, Op::Read)).unwrap();
        }
        let mut out = Vec::new();
        engine.reap(1, &mut out).unwrap();
        assert_eq!(out.len(), 4, "all four finish at the same instant");
        assert_eq!(engine.now(), Duration::from_micros(100));
        assert!(out.iter().all(|c| c.latency == Duration::from_micros(100)));
    }

    #[test]
    fn sync_costs_its_own_latency() {
        let mut engine = NullEngine::new(NullTiming::default());
        engine.prepare(1, 4096).unwrap();
        let done = engine.run_one(request(0, Op::Sync)).unwrap();
        assert_eq!(done.latency, Duration::from_millis(1));
        assert_eq!(done.result.unwrap(), 0);
    }
}
