//! A task on virtual lanes, for engines without real I/O (`null`): the workers are lanes in one
//! thread, each with its own engine and virtual clock, and each file goes to the lane whose clock
//! is earliest (the first such lane on a tie), as it would go to the first idle thread. The dispatcher
//! is a lane of its own. Everything is deterministic, so the figures can be computed by hand: with
//! files of equal cost `c`, `n` files on `t` lanes take `ceil(n / t) * c`.

use std::time::Duration;

use crate::error::Result;
use crate::interrupt;

use super::dispatch::Dispatcher;
use super::file::{self, Engines};
use super::{Job, Live, Ran, WorkerResult};

/// Progress is reported every this many files.
const TICK_FILES: u64 = 256;

/// Runs `task` on `threads` lanes; returns what they did and the virtual time from the start of
/// the walk to the end of the final flush.
pub(super) fn run(job: &Job<'_>, tick: &mut dyn FnMut(&Live)) -> Result<(Ran, Duration)> {
    let task = job.task;
    let mut dispatcher = Dispatcher::new(task, job.root, job.engines)?;
    let walk_start = dispatcher.now();
    let live = Live::default();
    let mut lanes: Vec<(Engines, Duration, WorkerResult)> = (0..job.threads)
        .map(|_| {
            let engines = job.worker_engines();
            let start = engines.tree.now();
            (engines, start, WorkerResult::new(job.series_interval))
        })
        .collect();
    let engine = lanes[0].0.tree.kind();
    let mut fatal = None;
    let mut handed = 0u64;
    loop {
        let place = match dispatcher.next_file(task) {
            Ok(Some(place)) => place,
            Ok(None) => break,
            Err(e) => {
                fatal = Some(e);
                break;
            }
        };
        handed += 1;
        if handed.is_multiple_of(TICK_FILES) {
            interrupt::check()?;
            tick(&live);
        }
        let (engines, start, result) = lanes
            .iter_mut()
            .min_by_key(|(engines, start, _)| engines.tree.now() - *start)
            .expect("at least one lane");
        let began = engines.tree.now();
        let done = file::handle(task, engines, &place);
        let now = engines.tree.now();
        if let Err(e) = result.record(&place.rel, done, now - began, now - *start, &live) {
            fatal = Some(e);
            break;
        }
    }
    let walked_for = dispatcher.now() - walk_start;
    let busiest = lanes
        .iter()
        .map(|(engines, start, _)| engines.tree.now() - *start)
        .max()
        .unwrap_or_default();
    // The end of the task waits for the dispatcher and every lane.
    let finish_start = dispatcher.now();
    if fatal.is_none()
        && let Err(e) = dispatcher.finish(task)
    {
        fatal = Some(e);
    }
    let elapsed = walked_for.max(busiest) + (dispatcher.now() - finish_start);
    tick(&live);
    let ran = Ran {
        walked: dispatcher.walked,
        workers: lanes.into_iter().map(|(_, _, result)| result).collect(),
        fatal,
        engine,
    };
    Ok((ran, elapsed))
}
