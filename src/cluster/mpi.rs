//! The MPI side (cargo feature `mpi`, the `mpi` crate over the system's MPI library): start-up
//! (rank 0's command line to every rank, the clocks' offsets), the repetition hook (a checkpoint
//! before each repetition that is also how a failure reaches every rank, stonewall messages),
//! and the hand-over of every rank's document to rank 0.
//!
//! Every collective call after start-up is one kind, a checkpoint (a sum over the ranks of
//! "failed" and "sent a stonewall message"), so a rank that failed anywhere joins whichever
//! checkpoint the others wait at, and they all learn of it there and stop cleanly.

use std::cell::{Cell, RefCell};
use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::time::{SystemTime, UNIX_EPOCH};

use mpi::collective::SystemOperation;
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;

use super::{Coordination, RankPart, combine};
use crate::error::{EXIT_RUNTIME, Error, Result};
use crate::interrupt;
use crate::probe::Chain;
use crate::results::{RankWindow, Repetition, RunDocument};
use crate::runner::{self, Progress, RepetitionHook, RunPlan};
use crate::workload::Variant;

/// The message tags of point-to-point messages, one per kind, so a receive never takes a
/// message of another kind.
#[repr(i32)]
#[derive(Clone, Copy)]
enum Tag {
    Clock = 11,
    Stonewall = 12,
    Part = 13,
    Error = 14,
}

impl Tag {
    /// The tag as the MPI calls take it.
    fn id(self) -> i32 {
        self as i32
    }
}
/// Ping-pongs per rank to measure its clock's offset; the one with the shortest round trip wins.
const CLOCK_ROUNDS: usize = 20;

/// This process as one rank of an MPI job.
pub struct Session {
    // Dropping the universe finalises MPI: it lives as long as the session.
    _universe: mpi::environment::Universe,
    world: SimpleCommunicator,
    pub rank: usize,
    pub size: usize,
    pub host: String,
    /// This rank's clock minus rank 0's, in seconds.
    pub clock_offset_s: f64,
    pub mpi_library: String,
}

/// What one step (one number of active clients) left this rank with.
pub enum StepOutcome {
    /// Rank 0: the combined document.
    Combined(Box<RunDocument>),
    /// Another rank, or one not active in this step.
    Done,
}

impl Session {
    /// Initialises MPI and hands rank 0's command line to every rank (returned, to be parsed
    /// the same way everywhere), then measures the clocks' offsets to rank 0.
    pub fn start(args: Vec<OsString>) -> Result<(Session, Vec<OsString>)> {
        let universe = mpi::initialize().ok_or_else(|| {
            Error::Cluster("MPI could not be initialised (was it already?)".into())
        })?;
        let world = universe.world();
        let rank = world.rank() as usize;
        let size = world.size() as usize;
        let host = mpi::environment::processor_name().unwrap_or_else(|_| "unknown".into());
        let mpi_library = mpi::environment::library_version()
            .ok()
            .and_then(|v| {
                // "Open MPI v4.1.4, package: ...": the name and version are enough.
                let first = v.lines().next()?;
                Some(first.split(',').next().unwrap_or(first).trim().to_string())
            })
            .unwrap_or_default();
        let joined: Vec<u8> = args
            .iter()
            .map(|a| a.as_bytes())
            .collect::<Vec<_>>()
            .join(&0u8);
        let joined = broadcast_bytes(&world, joined);
        let args = joined
            .split(|&b| b == 0)
            .map(|a| OsString::from_vec(a.to_vec()))
            .collect();
        let clock_offset_s = clock_offset(&world, rank, size);
        Ok((
            Session {
                _universe: universe,
                world,
                rank,
                size,
                host,
                clock_offset_s,
                mpi_library,
            },
            args,
        ))
    }

    /// Waits for every rank (the last call before MPI is finalised).
    pub fn barrier(&self) {
        interrupt::waiting_on_others(|| self.world.barrier());
    }

    /// Every rank goes on only if every rank's `result` is Ok: rank 0 returns its own error
    /// (it alone prints), the others a quiet one. For what every rank computes alike (the plan)
    /// or rank 0 alone (the history database), so no rank waits for one that gave up.
    pub fn agree<T>(&self, result: Result<T>) -> Result<T> {
        let failed = checkpoint(&self.world, result.is_err(), false)[0] > 0;
        match result {
            Err(e) if self.rank == 0 => Err(e),
            Err(e) => Err(Error::ReportedByRankZero(e.exit_code())),
            Ok(_) if failed && self.rank == 0 => Err(Error::Cluster(
                "another rank could not start (its destination or settings)".into(),
            )),
            Ok(_) if failed => Err(Error::ReportedByRankZero(EXIT_RUNTIME)),
            Ok(value) => Ok(value),
        }
    }

    /// Refuses to go on unless every rank's destination is the same filesystem, by what each
    /// sees of the mount and its source (rank 0 judges).
    pub fn check_same_filesystem(&self, chain: Option<&Chain>) -> Result<()> {
        let id = super::filesystem_identity(chain);
        let line = format!("{}\n{}", self.host, id).into_bytes();
        let lines = gather_bytes(&self.world, self.rank, self.size, line, Tag::Part);
        let ids: Vec<(usize, String, String)> = lines
            .iter()
            .enumerate()
            .map(|(rank, l)| {
                let text = String::from_utf8_lossy(l);
                let (host, id) = text.split_once('\n').unwrap_or(("?", ""));
                (rank, host.to_string(), id.to_string())
            })
            .collect();
        self.agree(super::check_same_filesystem(&ids))
    }

    /// Runs the plan with the first `clients` ranks; the others wait. Every rank learns whether
    /// any rank failed, and rank 0 then returns the error naming the rank, its host and why.
    pub fn step(
        &self,
        clients: usize,
        plan: &RunPlan,
        chain: Option<&Chain>,
        stonewall: bool,
        progress: &mut dyn Progress,
    ) -> Result<StepOutcome> {
        let active = self.rank < clients;
        let color = if active {
            Color::with_value(0)
        } else {
            Color::undefined()
        };
        let outcome = match self.world.split_by_color(color) {
            Some(comm) => self.run_active(&comm, plan, chain, stonewall, progress),
            None => Ok(None),
        };
        // Every rank, active or not, learns whether the step failed anywhere.
        let own_failure = matches!(&outcome, Err(e) if !matches!(e, Error::OtherClientFailed));
        let failed = checkpoint(&self.world, outcome.is_err(), false)[0] > 0;
        if !failed {
            return Ok(match outcome {
                Ok(Some(doc)) => StepOutcome::Combined(Box::new(doc)),
                _ => StepOutcome::Done,
            });
        }
        let message = match &outcome {
            Err(e) if own_failure => e.to_string(),
            _ => String::new(),
        };
        let lines = gather_bytes(
            &self.world,
            self.rank,
            self.size,
            format!("{}\n{message}", self.host).into_bytes(),
            Tag::Error,
        );
        if self.rank != 0 {
            let code = match outcome {
                Err(e) if own_failure => e.exit_code(),
                _ => EXIT_RUNTIME,
            };
            return Err(Error::ReportedByRankZero(code));
        }
        let named: Vec<String> = lines
            .iter()
            .enumerate()
            .filter_map(|(rank, l)| {
                let text = String::from_utf8_lossy(l);
                let (host, why) = text.split_once('\n')?;
                (!why.is_empty()).then(|| format!("rank {rank} on {host} failed: {why}"))
            })
            .collect();
        Err(Error::Cluster(format!(
            "{}; every client stopped and removed its scratch directory",
            if named.is_empty() {
                "a client failed".to_string()
            } else {
                named.join("; ")
            }
        )))
    }

    /// One step on the active ranks' communicator: measure, then hand the parts to rank 0.
    fn run_active(
        &self,
        comm: &SimpleCommunicator,
        plan: &RunPlan,
        chain: Option<&Chain>,
        stonewall: bool,
        progress: &mut dyn Progress,
    ) -> Result<Option<RunDocument>> {
        let hook = MpiHook {
            comm,
            clock_offset_s: self.clock_offset_s,
            stonewall,
            tag: super::scratch_tag(self.rank, &self.host),
            windows: RefCell::new(Vec::new()),
            stopped: Cell::new(false),
            learned_failure: Cell::new(false),
        };
        let measured = runner::run_with(plan, chain.cloned(), progress, &hook);
        if hook.learned_failure.get() {
            return measured.and(Err(Error::OtherClientFailed));
        }
        // The last checkpoint: a failure anywhere after the last repetition shows here.
        let failed = checkpoint(comm, measured.is_err(), false)[0] > 0;
        let report = measured?;
        if failed {
            return Err(Error::OtherClientFailed);
        }
        let part = RankPart {
            rank: self.rank,
            host: self.host.clone(),
            clock_offset_s: self.clock_offset_s,
            windows: hook.windows.take(),
            scratch: format!(
                "{}/{}{}-*",
                plan.destination.display(),
                crate::scratch::PREFIX,
                hook.tag
            ),
            report,
        };
        let json = serde_json::to_vec(&part).expect("a rank's part serialises");
        let size = comm.size() as usize;
        let parts = gather_bytes(comm, comm.rank() as usize, size, json, Tag::Part);
        if comm.rank() != 0 {
            return Ok(None);
        }
        let parts: Vec<RankPart> = parts
            .iter()
            .map(|bytes| serde_json::from_slice(bytes))
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| Error::Cluster(format!("a rank's results could not be read: {e}")))?;
        Ok(Some(combine(
            parts,
            &Coordination {
                mpi_library: self.mpi_library.clone(),
                stonewall,
            },
        )))
    }
}

/// The hook of one active rank.
struct MpiHook<'a> {
    comm: &'a SimpleCommunicator,
    clock_offset_s: f64,
    stonewall: bool,
    tag: String,
    windows: RefCell<Vec<RankWindow>>,
    /// This repetition's work was stopped by another rank's stonewall message.
    stopped: Cell<bool>,
    /// A checkpoint said another rank failed: this one must not wait at another.
    learned_failure: Cell<bool>,
}

impl MpiHook<'_> {
    fn failed(&self) -> Result<()> {
        self.learned_failure.set(true);
        Err(Error::OtherClientFailed)
    }
}

impl RepetitionHook for MpiHook<'_> {
    fn scratch_tag(&self) -> Option<String> {
        Some(self.tag.clone())
    }

    fn before(&self, _variant: &Variant, _rep: usize) -> Result<()> {
        self.stopped.set(false);
        if checkpoint(self.comm, false, false)[0] > 0 {
            return self.failed();
        }
        // A signal that came during the wait (the watchdog may have removed the scratch
        // directory meanwhile): stop before any I/O, named as the signal.
        interrupt::check()
    }

    fn after(
        &self,
        variant: &Variant,
        rep: usize,
        repetition: &Repetition,
        ended: SystemTime,
    ) -> Result<()> {
        let end = unix_s(ended) - self.clock_offset_s;
        let stonewalled = self.stopped.get();
        self.windows.borrow_mut().push(RankWindow {
            test: variant.test,
            variant: variant.name.to_string(),
            repetition: rep,
            start_unix_s: end - repetition.elapsed.as_secs_f64(),
            end_unix_s: end,
            bytes: repetition.bytes,
            ops: repetition.ops,
            rate: repetition.rate,
            stonewalled,
        });
        if !self.stonewall {
            return Ok(());
        }
        // The first to finish tells the others to stop; every message is received before the
        // next repetition so none is mistaken for the next one's.
        let me = self.comm.rank();
        let sent = !stonewalled;
        if sent {
            for other in (0..self.comm.size()).filter(|&r| r != me) {
                self.comm
                    .process_at_rank(other)
                    .send_with_tag(&(rep as u64), Tag::Stonewall.id());
            }
        }
        let [failed, senders] = checkpoint(self.comm, false, sent);
        for _ in 0..senders - i64::from(sent) {
            let _: (u64, _) = self
                .comm
                .any_process()
                .receive_with_tag::<u64>(Tag::Stonewall.id());
        }
        if failed > 0 {
            return self.failed();
        }
        Ok(())
    }

    fn stop_requested(&self) -> bool {
        if self.stonewall && !self.stopped.get() {
            let arrived = self
                .comm
                .any_process()
                .immediate_probe_with_tag(Tag::Stonewall.id())
                .is_some();
            self.stopped.set(arrived);
        }
        self.stopped.get()
    }

    fn failures_end_run(&self) -> bool {
        true
    }

    fn with_others(&self) -> bool {
        true
    }
}

/// The one collective of a run: sums (failed, sent a stonewall message) over the ranks.
fn checkpoint(comm: &SimpleCommunicator, failed: bool, sent: bool) -> [i64; 2] {
    let mine = [i64::from(failed), i64::from(sent)];
    let mut sum = [0i64; 2];
    interrupt::waiting_on_others(|| {
        comm.all_reduce_into(&mine[..], &mut sum[..], SystemOperation::sum())
    });
    sum
}

/// Rank 0's bytes on every rank.
fn broadcast_bytes(comm: &SimpleCommunicator, mut bytes: Vec<u8>) -> Vec<u8> {
    let root = comm.process_at_rank(0);
    let mut len = bytes.len() as u64;
    root.broadcast_into(&mut len);
    bytes.resize(len as usize, 0);
    root.broadcast_into(&mut bytes[..]);
    bytes
}

/// Every rank's bytes on rank 0, in rank order (empty on the others).
fn gather_bytes(
    comm: &SimpleCommunicator,
    rank: usize,
    size: usize,
    bytes: Vec<u8>,
    tag: Tag,
) -> Vec<Vec<u8>> {
    if rank != 0 {
        comm.process_at_rank(0).send_with_tag(&bytes[..], tag.id());
        return Vec::new();
    }
    let mut all = vec![bytes];
    for other in 1..size {
        let (got, _) = interrupt::waiting_on_others(|| {
            comm.process_at_rank(other as i32)
                .receive_vec_with_tag::<u8>(tag.id())
        });
        all.push(got);
    }
    all
}

fn unix_s(time: SystemTime) -> f64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// This rank's clock minus rank 0's, as IOR and mdtest measure it: ping-pongs with rank 0, the
/// one with the shortest round trip taken, rank 0's time assumed halfway through it.
fn clock_offset(comm: &SimpleCommunicator, rank: usize, size: usize) -> f64 {
    let now = || unix_s(SystemTime::now());
    if rank == 0 {
        for other in 1..size {
            let peer = comm.process_at_rank(other as i32);
            for _ in 0..CLOCK_ROUNDS {
                let _: (f64, _) = peer.receive_with_tag::<f64>(Tag::Clock.id());
                peer.send_with_tag(&now(), Tag::Clock.id());
            }
        }
        return 0.0;
    }
    let root = comm.process_at_rank(0);
    let mut best = (f64::INFINITY, 0.0);
    for _ in 0..CLOCK_ROUNDS {
        let sent = now();
        root.send_with_tag(&sent, Tag::Clock.id());
        let (theirs, _) = root.receive_with_tag::<f64>(Tag::Clock.id());
        let back = now();
        let round_trip = back - sent;
        if round_trip < best.0 {
            best = (round_trip, (sent + back) / 2.0 - theirs);
        }
    }
    best.1
}
