//! The throttled test: does a backup at background I/O priority stay out of the way of the
//! foreground, and what does it cost the backup? Four phases of the run's block duration each:
//! the backup-shaped write alone, a foreground reader of the same device alone, both at normal
//! priority, and both with the writer in the idle I/O class. Each side's slowdown is its rate
//! beside the other against its rate alone.
//!
//! Whether the priority can take effect is decided from the device the filesystem sits on, not
//! guessed from the figures: only schedulers that honour priorities (bfq, mq-deadline) act on
//! them; `none` and `kyber` do not; buffered writes reach the disk through the kernel's
//! writeback, which does not carry the writer's priority; a network filesystem has no local
//! queue at all. Where it cannot, the report says why and the figures are labelled as showing
//! no effect of the priority.

use std::time::{Duration, Instant};

use crate::engine::{Engine, EngineKind, FileId, IoRequest, Op, SyncEngine};
use crate::error::{Error, Result};
use crate::platform::HandleRef;
use crate::platform::{self, OpenHow};
use crate::probe::{Chain, Key, NodeKind, Value};
use crate::results::{Blocker, Details, PairRates, PriorityEffect, Repetition, ThrottledDetails};
use crate::results::{Warning, WarningKind};
use crate::stats::ThroughputSeries;
use crate::workload::DataStamper;

use crate::runner::ctx::{Ctx, Measured};
use crate::runner::kinds::test::{Rep, Shape, Test};
use crate::settings::RunPlan;

const READ_FILE: &str = "throttled-read.dat";
const WRITE_FILE: &str = "throttled-write.dat";
/// Schedulers that act on I/O priority classes.
const HONOURING: [&str; 3] = ["bfq", "mq-deadline", "cfq"];

/// The phases, each of the block duration, as (writer, reader, writer in the idle class): the
/// backup alone, the reader alone, both at normal priority, both with the backup in the idle
/// class. The plan's time and the run take them from here.
const PHASES: [(bool, bool, bool); 4] = [
    (true, false, false),
    (false, true, false),
    (true, true, false),
    (true, true, true),
];

/// The throttled test: a `block`-byte backup write beside a foreground reader.
pub(in crate::runner) struct ThrottledTest {
    pub block: usize,
}

impl Test for ThrottledTest {
    fn shape(&self) -> Shape {
        Shape::io(self.block, 1)
    }

    /// The reader's file and the writer's, each the block-test file size.
    fn space_needed(&self, plan: &RunPlan) -> u64 {
        2 * plan.file_size
    }

    fn planned_s(&self, plan: &RunPlan) -> f64 {
        PHASES.len() as f64 * plan.block_duration.as_secs_f64()
    }

    fn measure(&mut self, rep: Rep<'_, '_>) -> Result<Measured> {
        measure(rep.ctx, rep.plan, self.block)
    }
}

/// Whether background priority can act on this destination, from the device the filesystem
/// sits on and whether writes are direct.
pub fn priority_effect(chain: Option<&Chain>, direct: bool) -> PriorityEffect {
    match platform::THREAD_IO_THROTTLE {
        Some(throttle) => throttle_effect(chain, direct, throttle),
        None => scheduler_effect(chain, direct),
    }
}

/// Where the kernel throttles a thread's I/O itself (macOS): it acts on local disks and, since
/// macOS 10.15, on SMB and AFP shares; buffered writes reach the disk from other threads.
fn throttle_effect(chain: Option<&Chain>, direct: bool, throttle: &str) -> PriorityEffect {
    let filesystem = chain.and_then(Chain::filesystem);
    let device = chain.and_then(|c| {
        c.nodes()
            .into_iter()
            .find(|n| matches!(n.kind, NodeKind::Disk | NodeKind::Server))
            .map(|n| n.label.clone())
    });
    let blocker =
        if chain.is_some_and(Chain::is_network) && !matches!(filesystem, Some("smbfs" | "afpfs")) {
            Some(Blocker::Network)
        } else if !direct {
            Some(Blocker::Buffered)
        } else {
            None
        };
    PriorityEffect {
        device,
        scheduler: Some(throttle.to_string()),
        blocker,
    }
}

/// Where priorities are the block scheduler's (Linux): the first block device under the mount
/// and its scheduler.
fn scheduler_effect(chain: Option<&Chain>, direct: bool) -> PriorityEffect {
    let blocked = |device: Option<&str>, scheduler: Option<&str>, blocker| PriorityEffect {
        device: device.map(str::to_string),
        scheduler: scheduler.map(str::to_string),
        blocker: Some(blocker),
    };
    let Some(chain) = chain else {
        return blocked(None, None, Blocker::UnknownDevice);
    };
    if chain.is_network() {
        return blocked(None, None, Blocker::Network);
    }
    // The first block device under the mount; a partition's queue is its disk's.
    let device = chain.nodes().into_iter().find(|n| {
        matches!(
            n.kind,
            NodeKind::Loop | NodeKind::DeviceMapper | NodeKind::Raid | NodeKind::Disk
        )
    });
    let Some(device) = device else {
        return blocked(None, None, Blocker::NoBlockDevice);
    };
    let label = device.label.clone();
    let Some(Value::Scheduler(scheduler)) = device.get(Key::Scheduler) else {
        return blocked(
            Some(&label),
            None,
            Blocker::NoScheduler {
                device: label.clone(),
            },
        );
    };
    let blocker = if !HONOURING.contains(&scheduler.as_str()) {
        Some(Blocker::IgnoresPriorities {
            device: label.clone(),
            scheduler: scheduler.to_string(),
        })
    } else if !direct {
        Some(Blocker::Buffered)
    } else {
        None
    };
    PriorityEffect {
        device: Some(label),
        scheduler: Some(scheduler.to_string()),
        blocker,
    }
}

/// Which side a job plays.
#[derive(Clone, Copy)]
pub(in crate::runner) enum Side {
    Write,
    Read,
}

/// The file a phase works on, opened by each of its threads.
#[derive(Clone, Copy)]
pub(in crate::runner) struct Target<'a> {
    pub dir: HandleRef<'a>,
    pub name: &'a str,
    pub how: OpenHow,
}

/// An engine of the test's own for one thread, with one slot of `block` bytes and `target`
/// open. I/O priority classes follow the thread that issues the I/O, so each side issues its own
/// system calls (the `sync` engine at depth 1) whatever `--engine` says.
fn open_engine(target: Target<'_>, block: usize) -> std::io::Result<(SyncEngine, FileId)> {
    let mut engine = SyncEngine::new();
    engine.prepare(1, block)?;
    let file = engine.open(target.dir, target.name, target.how)?;
    Ok((engine, file))
}

/// One request on slot 0; returns the bytes moved.
fn one(
    engine: &mut SyncEngine,
    file: FileId,
    op: Op,
    offset: u64,
    len: usize,
) -> std::io::Result<usize> {
    engine
        .run_one(IoRequest {
            slot: 0,
            file,
            op,
            offset,
            len,
        })?
        .result
}

/// Runs one job until `until`; returns bytes, seconds (writes: until durable) and requests.
pub(in crate::runner) fn job(
    side: Side,
    target: Target<'_>,
    len: u64,
    block: usize,
    until: Instant,
    seed: u64,
) -> std::io::Result<(u64, f64, u64)> {
    let (mut engine, file) = open_engine(target, block)?;
    let start = Instant::now();
    let mut stamper = DataStamper::new(seed);
    stamper.fill(engine.buffer_mut(0));
    let (mut offset, mut bytes, mut requests) = (0u64, 0u64, 0u64);
    let result = (|| {
        while Instant::now() < until {
            if offset + block as u64 > len {
                offset = 0;
                if let Side::Read = side {
                    // Buffered reads must not come from the cache on the second pass (direct
                    // reads never do; the call is then a no-op).
                    engine.evict(file, len)?;
                }
            }
            let op = match side {
                Side::Write => {
                    stamper.stamp(engine.buffer_mut(0));
                    Op::Write
                }
                Side::Read => Op::Read,
            };
            let n = one(&mut engine, file, op, offset, block)?;
            if n == 0 {
                offset = len;
                continue;
            }
            offset += n as u64;
            bytes += n as u64;
            requests += 1;
        }
        if let Side::Write = side {
            one(&mut engine, file, Op::Sync, 0, 0)?;
        }
        Ok((bytes, start.elapsed().as_secs_f64(), requests))
    })();
    let _ = engine.close(file);
    result
}

/// One phase: the writer and/or the reader for `duration`; the writer in the idle class when
/// `background`. Returns MB/s of each side that ran (0 for a side that did not) and the
/// writer's requests.
fn phase(
    targets: (Target<'_>, Target<'_>),
    len: u64,
    block: usize,
    duration: Duration,
    (write, read, background): (bool, bool, bool),
    seed: u64,
) -> std::io::Result<(PairRates, u64)> {
    let until = Instant::now() + duration;
    let rate = |(b, s, _): (u64, f64, u64)| if s > 0.0 { b as f64 / s / 1e6 } else { 0.0 };
    std::thread::scope(|scope| {
        let writer = write.then(|| {
            scope.spawn(move || {
                if background {
                    platform::set_background_io_priority()?;
                }
                job(Side::Write, targets.0, len, block, until, seed)
            })
        });
        let reader =
            read.then(|| scope.spawn(move || job(Side::Read, targets.1, len, block, until, seed)));
        type Job = std::io::Result<(u64, f64, u64)>;
        let join = |h: Option<std::thread::ScopedJoinHandle<'_, Job>>| {
            h.map_or(Ok((0, 0.0, 0)), |h| {
                h.join()
                    .unwrap_or_else(|_| Err(std::io::Error::other("an I/O thread panicked")))
            })
        };
        let (written, read) = (join(writer)?, join(reader)?);
        let rates = PairRates {
            write_mb_s: rate(written),
            read_mb_s: rate(read),
        };
        Ok((rates, written.2))
    })
}

fn measure(ctx: &mut Ctx<'_>, plan: &RunPlan, block: usize) -> Result<Measured> {
    let effect = priority_effect(ctx.chain, ctx.access.direct);
    let len = plan.file_size / block as u64 * block as u64;
    let target = |name| Target {
        dir: ctx.scratch.fd(),
        name,
        how: ctx.access.open_how(true, false),
    };
    let outcome = (|| -> Result<(PairRates, PairRates, PairRates, Duration, u64)> {
        let create = |name| Target {
            how: ctx.access.open_how(true, true),
            ..target(name)
        };
        // The reader's file, untimed; the writer's starts empty.
        write_full(create(READ_FILE), len, block, ctx.seed)?;
        write_full(create(WRITE_FILE), 0, block, ctx.seed)?;
        let d = plan.block_duration;
        let io = |e| Error::io("running the throttled test", e);
        let fds = (target(WRITE_FILE), target(READ_FILE));
        let mut phases = Vec::with_capacity(PHASES.len());
        for roles in PHASES {
            phases.push(phase(fds, len, block, d, roles, ctx.seed).map_err(io)?);
        }
        let [
            (write_alone, _),
            (read_alone, _),
            (normal, _),
            (background, requests),
        ] = phases[..]
        else {
            unreachable!("one result per phase")
        };
        let alone = PairRates {
            write_mb_s: write_alone.write_mb_s,
            read_mb_s: read_alone.read_mb_s,
        };
        Ok((alone, normal, background, d, requests))
    })();
    ctx.remove_file(READ_FILE);
    ctx.remove_file(WRITE_FILE);
    let (alone, normal, background, d, requests) = outcome?;
    let (details, conclusion) = ThrottledDetails::judged(effect, alone, normal, background);
    let mut warnings = Vec::new();
    // Worth a warning: a priority that cannot act, or one that acted without shielding the
    // reader. A reader that was never slowed is no problem.
    if !details.priority_effective || conclusion.idle_class_helped() == Some(false) {
        warnings.push(Warning::new(WarningKind::Priority, conclusion.to_string()));
    }
    Ok(Measured {
        repetition: Repetition {
            // The row is the backup side of the background phase: its rate and its requests.
            rate: background.write_mb_s,
            bytes: (background.write_mb_s * d.as_secs_f64() * 1e6) as u64,
            ops: requests,
            elapsed: d,
            cpu: Duration::ZERO,
            series: ThroughputSeries::new(d),
            passes: None,
        },
        latency: Default::default(),
        method: ctx.access.write_method(),
        engine: EngineKind::Sync,
        warnings,
        file_set: None,
        integrity_error: None,
        details: Some(Details::Throttled(details)),
    })
}

/// Creates the target's file with `len` bytes, durable.
pub(in crate::runner) fn write_full(
    target: Target<'_>,
    len: u64,
    block: usize,
    seed: u64,
) -> Result<()> {
    let io = |e| Error::io(format!("creating {}", target.name), e);
    let (mut engine, file) = open_engine(target, block).map_err(io)?;
    let mut stamper = DataStamper::new(seed);
    stamper.fill(engine.buffer_mut(0));
    let written = (|| {
        let mut offset = 0;
        while offset < len {
            crate::interrupt::check()?;
            stamper.stamp(engine.buffer_mut(0));
            offset += one(&mut engine, file, Op::Write, offset, block).map_err(io)? as u64;
        }
        one(&mut engine, file, Op::Sync, 0, 0).map_err(io).map(drop)
    })();
    let closed = engine.close(file).map_err(io);
    written.and(closed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::Node;
    use std::path::PathBuf;

    fn chain_with(kind: NodeKind, scheduler: Option<&str>) -> Chain {
        let mut root = Node::new(NodeKind::Mount, "ext4 at /mnt");
        let mut dev = Node::new(kind, "disk sdb");
        if let Some(s) = scheduler {
            dev.fact(Value::Scheduler(s.into()), "/sys/block/sdb/queue/scheduler");
        }
        root.children.push(dev);
        Chain {
            path: PathBuf::from("/mnt"),
            root,
            notes: Vec::new(),
        }
    }

    #[test]
    fn priority_counts_only_where_the_scheduler_honours_it() {
        let effect = scheduler_effect(Some(&chain_with(NodeKind::Disk, Some("none"))), true);
        assert_eq!(effect.scheduler.as_deref(), Some("none"));
        assert!(
            !effect.effective() && effect.note().contains("`none`"),
            "{effect:?}"
        );
        assert!(scheduler_effect(Some(&chain_with(NodeKind::Disk, Some("bfq"))), true).effective());
        let buffered = scheduler_effect(
            Some(&chain_with(NodeKind::Loop, Some("mq-deadline"))),
            false,
        );
        assert_eq!(buffered.blocker, Some(Blocker::Buffered));
        assert!(buffered.note().contains("writeback"));
        let stacked = scheduler_effect(Some(&chain_with(NodeKind::DeviceMapper, None)), true);
        assert!(stacked.note().contains("no I/O scheduler"), "{stacked:?}");
        assert_eq!(
            scheduler_effect(None, true).blocker,
            Some(Blocker::UnknownDevice)
        );
    }

    #[test]
    fn where_the_kernel_throttles_threads_it_acts_on_disks_and_smb_not_nfs() {
        let throttle = "XNU throttling";
        let on = |fs: &str, network: bool, direct: bool| {
            let mut root = Node::new(NodeKind::Mount, format!("{fs} at /Volumes/b"));
            root.fact(Value::Filesystem(fs.into()), "statfs");
            let kind = if network {
                NodeKind::Server
            } else {
                NodeKind::Disk
            };
            root.children.push(Node::new(kind, "disk4 or server nas"));
            let chain = Chain {
                path: PathBuf::from("/Volumes/b"),
                root,
                notes: Vec::new(),
            };
            throttle_effect(Some(&chain), direct, throttle)
        };
        let disk = on("apfs", false, true);
        assert!(disk.effective(), "{disk:?}");
        assert_eq!(disk.scheduler.as_deref(), Some(throttle));
        assert_eq!(disk.device.as_deref(), Some("disk4 or server nas"));
        assert!(on("smbfs", true, true).effective());
        assert_eq!(on("nfs", true, true).blocker, Some(Blocker::Network));
        assert_eq!(on("apfs", false, false).blocker, Some(Blocker::Buffered));
    }
}
