//! The `uring` engine: io_uring through the `io-uring` crate.
//!
//! One thread keeps the whole queue depth in flight. Each request enters the kernel as soon as it
//! is submitted; `reap` waits for completions. Slot buffers
//! are registered with the ring (fixed buffers) when the kernel allows it, which saves the
//! per-request page pinning; otherwise plain read/write opcodes are used.

use std::io;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use io_uring::{IoUring, Probe, opcode, squeue, types};

use super::{AlignedBuf, Completion, Engine, EngineKind, FileTable, IoRequest, Op};

/// Checks that io_uring can be set up here and has the opcodes we use.
pub fn probe() -> Result<(), String> {
    let ring = IoUring::new(8).map_err(|e| format!("io_uring_setup failed: {e}"))?;
    let mut probe = Probe::new();
    ring.submitter()
        .register_probe(&mut probe)
        .map_err(|e| format!("io_uring probe failed: {e}"))?;
    let needed = [
        ("READ", opcode::Read::CODE),
        ("WRITE", opcode::Write::CODE),
        ("FSYNC", opcode::Fsync::CODE),
    ];
    let missing: Vec<&str> = needed
        .iter()
        .filter(|(_, code)| !probe.is_supported(*code))
        .map(|(name, _)| *name)
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "kernel lacks io_uring opcodes {}",
            missing.join(", ")
        ))
    }
}

/// A ring for one submitting thread. Completion work is deferred to our own `io_uring_enter`
/// (single issuer, deferred task run, kernel 6.1+) instead of interrupting the thread, which saves
/// CPU per request; older kernels get a plain ring.
fn new_ring(entries: u32) -> io::Result<IoUring> {
    IoUring::builder()
        .setup_single_issuer()
        .setup_defer_taskrun()
        .build(entries)
        .or_else(|_| IoUring::new(entries))
}

pub struct UringEngine {
    origin: Instant,
    ring: IoUring,
    files: FileTable,
    buffers: Vec<AlignedBuf>,
    registered: bool,
    submitted_at: Vec<Instant>,
    ops: Vec<Op>,
    /// Slots whose request the kernel may still be using: their buffers are off limits (the
    /// buffer contract is checked here, not only written down).
    busy: Vec<bool>,
    in_flight: usize,
}

impl UringEngine {
    /// A ring sized for `depth` requests in flight.
    pub fn new(depth: usize) -> io::Result<Self> {
        let entries = (depth.max(1) as u32).next_power_of_two().max(8);
        Ok(UringEngine {
            origin: Instant::now(),
            ring: new_ring(entries)?,
            files: FileTable::default(),
            buffers: Vec::new(),
            registered: false,
            submitted_at: Vec::new(),
            ops: Vec::new(),
            busy: Vec::new(),
            in_flight: 0,
        })
    }

    /// Waits until every request in flight has completed, discarding the results: the kernel must
    /// be done with the buffers before they are freed or replaced.
    fn drain(&mut self) {
        while self.in_flight > 0 {
            match self.ring.submit_and_wait(1) {
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => return,
            }
            let done = self.ring.completion().count();
            self.in_flight = self.in_flight.saturating_sub(done);
        }
        if self.in_flight == 0 {
            self.busy.fill(false);
        }
    }

    fn entry_for(&mut self, request: &IoRequest) -> io::Result<squeue::Entry> {
        let fd = types::Fd(self.files.get(request.file)?.as_raw_fd());
        let slot = request.slot;
        let len = u32::try_from(request.len).map_err(|_| io::Error::other("request too large"))?;
        let buf = self.buffers[slot].as_mut_ptr();
        let index = slot as u16;
        let entry = match (request.op, self.registered) {
            (Op::Read, true) => opcode::ReadFixed::new(fd, buf, len, index)
                .offset(request.offset)
                .build(),
            (Op::Write, true) => opcode::WriteFixed::new(fd, buf, len, index)
                .offset(request.offset)
                .build(),
            (Op::Read, false) => opcode::Read::new(fd, buf, len)
                .offset(request.offset)
                .build(),
            (Op::Write, false) => opcode::Write::new(fd, buf, len)
                .offset(request.offset)
                .build(),
            (Op::Sync, _) => opcode::Fsync::new(fd)
                .flags(types::FsyncFlags::DATASYNC)
                .build(),
            (Op::FullSync, _) => opcode::Fsync::new(fd).build(),
        };
        Ok(entry.user_data(slot as u64))
    }
}

impl Drop for UringEngine {
    fn drop(&mut self) {
        self.drain();
        if self.in_flight > 0 {
            // The ring failed with requests the kernel may still complete into these buffers:
            // leak them rather than free memory it could write.
            std::mem::forget(std::mem::take(&mut self.buffers));
        }
    }
}

impl Engine for UringEngine {
    fn kind(&self) -> EngineKind {
        EngineKind::Uring
    }

    fn now(&self) -> Duration {
        self.origin.elapsed()
    }

    fn prepare(&mut self, depth: usize, buffer_len: usize) -> io::Result<()> {
        if self.in_flight > 0 {
            return Err(io::Error::other("prepare with I/O in flight"));
        }
        if self.registered {
            self.ring.submitter().unregister_buffers()?;
            self.registered = false;
        }
        let depth = depth.max(1);
        if depth > self.ring.params().sq_entries() as usize {
            self.ring = new_ring((depth as u32).next_power_of_two())?;
        }
        self.buffers = (0..depth).map(|_| AlignedBuf::new(buffer_len)).collect();
        self.submitted_at = vec![Instant::now(); depth];
        self.ops = vec![Op::Read; depth];
        self.busy = vec![false; depth];
        let iovecs: Vec<libc::iovec> = self
            .buffers
            .iter_mut()
            .map(|b| libc::iovec {
                iov_base: b.as_mut_ptr().cast(),
                iov_len: b.len(),
            })
            .collect();
        // SAFETY: the iovecs describe the buffers in `self.buffers`, which stay allocated and in
        // place until they are unregistered (next `prepare`) or the ring is dropped with them.
        self.registered = depth <= u16::MAX as usize
            && unsafe { self.ring.submitter().register_buffers(&iovecs) }.is_ok();
        Ok(())
    }

    fn buffer_mut(&mut self, slot: usize) -> &mut [u8] {
        assert!(!self.busy[slot], "buffer of a slot with I/O in flight");
        self.buffers[slot].as_mut_slice()
    }

    fn submit(&mut self, request: IoRequest) -> io::Result<()> {
        if self.busy[request.slot] {
            return Err(io::Error::other("slot already in flight"));
        }
        let entry = self.entry_for(&request)?;
        self.submitted_at[request.slot] = Instant::now();
        self.ops[request.slot] = request.op;
        loop {
            // SAFETY: the entry points at the slot's buffer and an open descriptor (the kernel
            // takes its own reference to the file at submission). The slot is marked busy below
            // until its completion is reaped, so `buffer_mut`, `submit` and `prepare` cannot
            // touch or free the buffer meanwhile, and `Drop` drains in-flight requests first.
            let pushed = unsafe { self.ring.submission().push(&entry) };
            if pushed.is_ok() {
                break;
            }
            self.ring.submit()?;
        }
        self.busy[request.slot] = true;
        self.in_flight += 1;
        // Into the kernel at once, as fio does by default: held back until the next reap, the
        // device's queue ran short while a batch of completions was processed.
        self.ring.submit()?;
        Ok(())
    }

    fn reap(&mut self, min: usize, out: &mut Vec<Completion>) -> io::Result<()> {
        let want = min.min(self.in_flight);
        loop {
            match self.ring.submit_and_wait(want) {
                Ok(_) => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
        let now = Instant::now();
        for cqe in self.ring.completion() {
            let slot = cqe.user_data() as usize;
            let res = cqe.result();
            self.in_flight -= 1;
            self.busy[slot] = false;
            out.push(Completion {
                slot,
                result: if res < 0 {
                    Err(io::Error::from_raw_os_error(-res))
                } else {
                    Ok(res as usize)
                },
                latency: now.saturating_duration_since(self.submitted_at[slot]),
            });
        }
        Ok(())
    }

    crate::engine::files::file_ops_through_table!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Engine;
    use crate::platform::OpenHow;

    /// A slot's buffer is off limits while the kernel may use it: asking for it panics, and a
    /// second request on the slot is refused, until the completion is reaped.
    #[test]
    fn a_busy_slot_keeps_its_buffer_from_the_caller() {
        let Ok(mut engine) = UringEngine::new(2) else {
            eprintln!("SKIPPED: io_uring is not usable here");
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let scratch = std::fs::File::open(dir.path()).unwrap();
        engine.prepare(2, 4096).unwrap();
        let how = OpenHow {
            write: true,
            create: true,
            direct: false,
        };
        let file = engine
            .open(std::os::fd::AsFd::as_fd(&scratch), "f", how)
            .unwrap();
        let write = IoRequest {
            slot: 0,
            file,
            op: Op::Write,
            offset: 0,
            len: 4096,
        };
        engine.submit(write).unwrap();
        assert!(engine.submit(write).is_err(), "the slot is in flight");
        let touched = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            engine.buffer_mut(0).fill(1);
        }));
        assert!(touched.is_err(), "the buffer of a busy slot was handed out");
        let mut done = Vec::new();
        engine.reap(1, &mut done).unwrap();
        assert_eq!(done[0].result.as_ref().unwrap(), &4096);
        engine.buffer_mut(0).fill(1);
        engine.close(file).unwrap();
    }
}
