//! The `sync` engine: `pread`/`pwrite`/`fdatasync`.
//!
//! At queue depth 1 the request runs inline in `submit`, with no thread hand-off, so its CPU cost
//! per I/O is that of the system call. Above depth 1 the requests go to as many worker threads as
//! slots, each doing blocking calls, which is how a thread-per-request tool reaches a queue depth.

use std::collections::VecDeque;
use std::io;
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::{AlignedBuf, Completion, Engine, EngineKind, FileTable, IoRequest, Op};
use crate::platform;
use crate::platform::{AsHandleRef, Handle, HandleRef};

pub struct SyncEngine {
    origin: Instant,
    files: FileTable,
    /// A slot's buffer is `None` while a worker holds it.
    slots: Vec<Option<AlignedBuf>>,
    ready: VecDeque<Completion>,
    pool: Option<WorkerPool>,
    in_flight: usize,
}

impl SyncEngine {
    pub fn new() -> Self {
        SyncEngine {
            origin: Instant::now(),
            files: FileTable::default(),
            slots: Vec::new(),
            ready: VecDeque::new(),
            pool: None,
            in_flight: 0,
        }
    }
}

impl Default for SyncEngine {
    fn default() -> Self {
        Self::new()
    }
}

/// Performs one request with blocking calls. Writes loop over short writes so that a full disk
/// surfaces as the `ENOSPC` error rather than as a short count.
fn perform(
    fd: HandleRef<'_>,
    op: Op,
    buf: &mut [u8],
    offset: u64,
    len: usize,
) -> io::Result<usize> {
    match op {
        Op::Read => platform::pread(fd, &mut buf[..len], offset),
        Op::Write => {
            let mut done = 0;
            while done < len {
                match platform::pwrite(fd, &buf[done..len], offset + done as u64)? {
                    0 => return Err(io::Error::from(io::ErrorKind::WriteZero)),
                    n => done += n,
                }
            }
            Ok(done)
        }
        Op::Sync => platform::datasync(fd).map(|()| 0),
        Op::FullSync => platform::fsync(fd).map(|()| 0),
    }
}

struct Job {
    slot: usize,
    op: Op,
    fd: Arc<Handle>,
    offset: u64,
    len: usize,
    buf: AlignedBuf,
    submitted: Instant,
}

struct Done {
    slot: usize,
    buf: AlignedBuf,
    result: io::Result<usize>,
    latency: Duration,
}

struct WorkerPool {
    jobs: Option<mpsc::Sender<Job>>,
    done: mpsc::Receiver<Done>,
    workers: Vec<JoinHandle<()>>,
}

impl WorkerPool {
    fn new(threads: usize) -> Self {
        let (job_tx, job_rx) = mpsc::channel::<Job>();
        let (done_tx, done_rx) = mpsc::channel::<Done>();
        let job_rx = Arc::new(Mutex::new(job_rx));
        let workers = (0..threads)
            .map(|_| {
                let jobs = Arc::clone(&job_rx);
                let done = done_tx.clone();
                std::thread::spawn(move || {
                    loop {
                        let next = jobs.lock().map(|rx| rx.recv());
                        let Ok(Ok(mut job)) = next else { return };
                        let result = perform(
                            job.fd.handle_ref(),
                            job.op,
                            job.buf.as_mut_slice(),
                            job.offset,
                            job.len,
                        );
                        let finished = Done {
                            slot: job.slot,
                            latency: job.submitted.elapsed(),
                            buf: job.buf,
                            result,
                        };
                        if done.send(finished).is_err() {
                            return;
                        }
                    }
                })
            })
            .collect();
        WorkerPool {
            jobs: Some(job_tx),
            done: done_rx,
            workers,
        }
    }
}

impl Drop for WorkerPool {
    fn drop(&mut self) {
        // Closing the channel ends each worker's loop once it finishes its current request.
        self.jobs = None;
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

impl SyncEngine {
    fn take_done(&mut self, done: Done) {
        self.slots[done.slot] = Some(done.buf);
        self.in_flight -= 1;
        self.ready.push_back(Completion {
            slot: done.slot,
            result: done.result,
            latency: done.latency,
        });
    }
}

impl Engine for SyncEngine {
    fn kind(&self) -> EngineKind {
        EngineKind::Sync
    }

    fn now(&self) -> Duration {
        self.origin.elapsed()
    }

    fn prepare(&mut self, depth: usize, buffer_len: usize) -> io::Result<()> {
        if self.in_flight > 0 {
            return Err(io::Error::other("prepare with I/O in flight"));
        }
        let depth = depth.max(1);
        self.slots = (0..depth)
            .map(|_| Some(AlignedBuf::new(buffer_len)))
            .collect();
        self.pool = (depth > 1).then(|| WorkerPool::new(depth));
        Ok(())
    }

    fn buffer_mut(&mut self, slot: usize) -> &mut [u8] {
        self.slots[slot]
            .as_mut()
            .expect("buffer of a slot with I/O in flight")
            .as_mut_slice()
    }

    fn submit(&mut self, request: IoRequest) -> io::Result<()> {
        let fd = Arc::clone(self.files.get(request.file)?);
        let mut buf = self.slots[request.slot]
            .take()
            .ok_or_else(|| io::Error::other("slot already in flight"))?;
        self.in_flight += 1;
        let submitted = Instant::now();
        match &self.pool {
            Some(pool) => {
                let job = Job {
                    slot: request.slot,
                    op: request.op,
                    fd,
                    offset: request.offset,
                    len: request.len,
                    buf,
                    submitted,
                };
                let sender = pool.jobs.as_ref().expect("pool is running");
                sender
                    .send(job)
                    .map_err(|_| io::Error::other("I/O worker thread ended"))?;
            }
            None => {
                let result = perform(
                    fd.handle_ref(),
                    request.op,
                    buf.as_mut_slice(),
                    request.offset,
                    request.len,
                );
                let latency = submitted.elapsed();
                self.take_done(Done {
                    slot: request.slot,
                    buf,
                    result,
                    latency,
                });
            }
        }
        Ok(())
    }

    fn reap(&mut self, min: usize, out: &mut Vec<Completion>) -> io::Result<()> {
        if let Some(pool) = &self.pool {
            let mut received = Vec::new();
            while self.ready.len() + received.len() < min && self.in_flight > received.len() {
                match pool.done.recv() {
                    Ok(done) => received.push(done),
                    Err(_) => return Err(io::Error::other("I/O worker threads ended")),
                }
            }
            while let Ok(done) = pool.done.try_recv() {
                received.push(done);
            }
            for done in received {
                self.take_done(done);
            }
        }
        out.extend(self.ready.drain(..));
        Ok(())
    }

    crate::engine::files::file_ops_through_table!();
}
