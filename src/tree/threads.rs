//! A task on real threads: one dispatcher thread streams batches of files (all from one directory)
//! into a bounded channel, N workers take them, each with engines of its own; the clock is the
//! wall clock. Each thread stamps the instant it ends and sends it to the supervisor, so a task's
//! time runs to its last file (then its final flush), not to the supervisor's next progress tick.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::interrupt;

use super::dispatch::Dispatcher;
use super::file::{self, Engines};
use super::walk::Place;
use super::{Job, Live, Ran, Task, WorkerResult};

/// Batches waiting for a worker, at most.
const QUEUE: usize = 64;
/// Files in one batch, at most (all from one directory).
const BATCH: usize = 8;
/// How often progress is shown and interruption checked; no time is measured with it.
const TICK: Duration = Duration::from_millis(50);

/// Runs `task` with `threads` workers; returns what they did and the time from the start of the
/// walk to the end of the final flush.
pub(super) fn run(job: &Job<'_>, tick: &mut dyn FnMut(&Live)) -> Result<(Ran, Duration)> {
    let (task, series_interval) = (job.task, job.series_interval);
    let start = Instant::now();
    let mut dispatcher = Dispatcher::new(task, job.root, job.engines)?;
    let live = Live::default();
    let stop = AtomicBool::new(false);
    let fatal: Mutex<Option<Error>> = Mutex::new(None);
    let fail = |e: Error| {
        stop.store(true, Ordering::SeqCst);
        let mut slot = fatal.lock().expect("fatal lock");
        slot.get_or_insert(e);
    };
    let (sender, receiver) = crossbeam_channel::bounded::<Vec<Place>>(QUEUE);
    // Each thread sends the instant it ended, so the work's end is exact.
    let (ended, ends) = crossbeam_channel::unbounded::<Instant>();
    let mut engine = None;
    let mut last_end = start;

    let workers = std::thread::scope(|scope| {
        let dispatcher_ended = ended.clone();
        let walking = scope.spawn(|| {
            feed(&mut dispatcher, task, sender, &stop, &fail);
            let _ = dispatcher_ended.send(Instant::now());
            drop(dispatcher_ended);
        });
        let handles: Vec<_> = (0..job.threads)
            .map(|_| {
                let receiver = receiver.clone();
                let mut engines = job.worker_engines();
                let (live, stop, fail) = (&live, &stop, &fail);
                let ended = ended.clone();
                scope.spawn(move || {
                    let kind = engines.tree.kind();
                    let result = worker(
                        task,
                        &mut engines,
                        &receiver,
                        start,
                        series_interval,
                        live,
                        stop,
                        fail,
                    );
                    let _ = ended.send(Instant::now());
                    (result, kind)
                })
            })
            .collect();
        drop(receiver);
        drop(ended);
        last_end = supervise(&ends, job.threads + 1, start, &live, tick, &fail);
        walking.join().expect("dispatcher thread");
        handles
            .into_iter()
            .map(|h| {
                let (result, kind) = h.join().expect("worker thread");
                engine = Some(kind);
                result
            })
            .collect::<Vec<WorkerResult>>()
    });
    let mut fatal = fatal.into_inner().expect("fatal lock");
    // The final flush is timed on its own and added: joining the threads is not the task's work.
    let flush_start = Instant::now();
    if fatal.is_none()
        && let Err(e) = dispatcher.finish(task)
    {
        fatal = Some(e);
    }
    let flushed = flush_start.elapsed();
    let ran = Ran {
        walked: dispatcher.walked,
        workers,
        fatal,
        engine: engine.unwrap_or(crate::engine::EngineKind::Sync),
    };
    Ok((ran, last_end.duration_since(start) + flushed))
}

/// The dispatcher's side: sends the files in batches until the walk ends or the task stops.
fn feed(
    dispatcher: &mut Dispatcher,
    task: &Task,
    sender: crossbeam_channel::Sender<Vec<Place>>,
    stop: &AtomicBool,
    fail: &(dyn Fn(Error) + Sync),
) {
    let mut batch: Vec<Place> = Vec::with_capacity(BATCH);
    while !stop.load(Ordering::Relaxed) {
        let place = match dispatcher.next_file(task) {
            Ok(Some(place)) => place,
            Ok(None) => break,
            Err(e) => {
                fail(e);
                break;
            }
        };
        // A batch holds files of one directory, so threads mostly work in different
        // directories instead of queueing on one directory's lock.
        let other_dir = batch
            .last()
            .is_some_and(|last| last.rel.parent() != place.rel.parent());
        if (other_dir || batch.len() == BATCH) && sender.send(std::mem::take(&mut batch)).is_err() {
            return;
        }
        batch.push(place);
    }
    if !batch.is_empty() {
        let _ = sender.send(batch);
    }
}

/// Waits until `running` threads have said they ended, showing progress and checking for an
/// interruption meanwhile; returns the last instant one ended (`start` when none said).
fn supervise(
    ends: &crossbeam_channel::Receiver<Instant>,
    mut running: usize,
    start: Instant,
    live: &Live,
    tick: &mut dyn FnMut(&Live),
    fail: &(dyn Fn(Error) + Sync),
) -> Instant {
    let mut last_end = start;
    while running > 0 {
        match ends.recv_timeout(TICK) {
            Ok(at) => {
                running -= 1;
                last_end = last_end.max(at);
            }
            Err(crossbeam_channel::RecvTimeoutError::Timeout) => {
                tick(live);
                if let Err(e) = interrupt::check() {
                    fail(e);
                }
            }
            // A thread that panicked sends nothing; joining it shows it.
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => break,
        }
    }
    tick(live);
    last_end
}

#[allow(clippy::too_many_arguments)]
fn worker(
    task: &Task,
    engines: &mut Engines,
    queue: &crossbeam_channel::Receiver<Vec<Place>>,
    start: Instant,
    series_interval: Duration,
    live: &Live,
    stop: &AtomicBool,
    fail: &(dyn Fn(Error) + Sync),
) -> WorkerResult {
    let mut result = WorkerResult::new(series_interval);
    'batches: for batch in queue.iter() {
        for place in &batch {
            if stop.load(Ordering::Relaxed) {
                break 'batches;
            }
            let began = Instant::now();
            let done = file::handle(task, engines, place);
            let latency = began.elapsed();
            if let Err(e) = result.record(&place.rel, done, latency, start.elapsed(), live) {
                fail(e);
                break 'batches;
            }
        }
    }
    result
}
