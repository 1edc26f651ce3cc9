//! The verdict: which link of the chain holds the destination back, from the chain and the
//! measured large sequential rate. Pure code: no I/O, so it is tested with exact numbers.
//!
//! Rules (docs/links.md): the bottleneck is the known link with the smallest practical
//! ceiling; a measured rate at or above [`LIMITED_AT`] of it means "limited by this link"; far
//! below every ceiling, the device (or, over a network, the server and protocol) is the limit;
//! a figure above the top of the narrowest link's practical range (with [`CACHE_MARGIN`] for
//! the table's own uncertainty) cannot have crossed that link: it is a cache. Links whose speed
//! is unknown stay unknown: they are named, never filled in.
//!
//! The verdict's value ([`Verdict`]) lives with the run document in `crate::results`; this
//! module only judges a run ([`of`]) and returns that value. Cached figures name their result by
//! its index in the run's results, so the reports can show the warning beside it without the
//! results being changed.

pub mod share;
mod words;

#[cfg(test)]
pub(crate) mod tests;

use std::borrow::Cow;

use crate::probe::{Ceiling, Chain, NodeKind, RemovalPolicy};
pub use crate::results::{CachedFigure, LinkRef, Verdict, VerdictKind};
use crate::results::{OpKind, RunDocument, TestResult, round_mb_s};

use crate::workload::{
    Direction, FileOp, MetaOp, Pattern, SetKind, SetName, TRANSFER_SIZES, TestId, Workload,
};

/// A measured rate at or above this fraction of a link's practical ceiling is limited by it.
pub const LIMITED_AT: f64 = 0.85;
/// A figure above the narrowest link's practical maximum times this is a cache. The table's
/// figures are approximate (±10% between enclosures and hosts), so only beyond that margin is
/// the figure impossible for the link.
pub const CACHE_MARGIN: f64 = 1.10;
/// The large sequential rate, in order of preference: 1 MiB blocks eight in flight, then
/// QuickBench's whole files of 20-100 MB.
fn large_sequential(direction: Direction) -> [Workload; 2] {
    [
        Workload::Block {
            direction,
            pattern: Pattern::Sequential,
            block: 1 << 20,
            depth: 8,
        },
        Workload::WholeFiles {
            direction,
            sizes: Cow::Borrowed(TRANSFER_SIZES),
            block: 1 << 20,
        },
    ]
}

/// The preferred large sequential result of `test`.
fn sequential(results: &[TestResult], test: TestId, direction: Direction) -> Option<&TestResult> {
    large_sequential(direction).into_iter().find_map(|w| {
        results
            .iter()
            .find(|r| r.test == test && r.workload.as_ref() == Some(&w))
    })
}

/// The large sequential results, write and read: what the verdict judges but for a share's write
/// ([`judged_results`]).
pub fn large_sequential_results(results: &[TestResult]) -> [Option<&TestResult>; 2] {
    [
        sequential(results, TestId::SeqWrite, Direction::Write),
        sequential(results, TestId::SeqRead, Direction::Read),
    ]
}

/// On a share the block writes overwrite one file, which the server may keep in its memory
/// (O_DIRECT bypasses the client's cache, not the server's), so a share's write is judged by
/// new files, each flushed: the whole-file transfers, at whatever sizes the run made them.
fn durable_write(results: &[TestResult]) -> Option<&TestResult> {
    results.iter().find(|r| {
        r.test == TestId::SeqWrite
            && matches!(
                r.workload,
                Some(Workload::WholeFiles {
                    direction: Direction::Write,
                    ..
                })
            )
    })
}

/// The write and the read the verdict judges: the large sequential ones, a share's write its
/// [`durable_write`] where the run made one.
pub fn judged_results(results: &[TestResult], network: bool) -> [Option<&TestResult>; 2] {
    let [write, read] = large_sequential_results(results);
    let durable = network.then(|| durable_write(results)).flatten();
    [durable.or(write), read]
}

/// The result the verdict judges: the better of the judged write and read.
fn judged(results: &[TestResult], network: bool) -> Option<&TestResult> {
    match judged_results(results, network) {
        [Some(w), Some(r)] => Some(if r.median > w.median { r } else { w }),
        [w, r] => w.or(r),
    }
}

/// What the verdict's words need beyond the verdict itself.
struct Facts {
    network: bool,
    /// The network interface's label, over a network.
    interface: Option<String>,
    /// The narrowest known link's practical maximum, MB/s.
    narrowest_max_mb_s: Option<f64>,
    per_file: Option<PerFile>,
    /// Windows' removal policy of a removable disk (its write cache), with the disk's label.
    removal_policy: Option<(String, RemovalPolicy)>,
    server_memory: Option<ServerMemory>,
    server_storage: Option<ServerStorage>,
    /// A share's protection that costs the client's and the server's CPU on every byte, where
    /// the chain shows it on: "encryption" or "signing".
    protection: Option<&'static str>,
}

/// A share's durable write far below what crossed its network.
struct ServerStorage {
    durable: String,
    durable_mb_s: f64,
    carried: String,
    carried_mb_s: f64,
}

impl ServerStorage {
    /// The network carried at least this many times the durable write: the wire is not what
    /// holds the writes back.
    const CARRIED_OVER: f64 = 2.0;

    /// The durable write against the fastest large sequential figure that crossed the network
    /// (the read, or the block write the server may have held in its memory).
    fn of(results: &[TestResult]) -> Option<ServerStorage> {
        let durable = durable_write(results)?;
        let [block, read] = large_sequential_results(results);
        let carried = [block, read]
            .into_iter()
            .flatten()
            .max_by(|a, b| a.median.total_cmp(&b.median))?;
        let name = |r: &TestResult| format!("{} {}", r.test, r.variant);
        (carried.median >= durable.median * Self::CARRIED_OVER && durable.median > 0.0).then(|| {
            ServerStorage {
                durable: name(durable),
                durable_mb_s: durable.median,
                carried: name(carried),
                carried_mb_s: carried.median,
            }
        })
    }
}

/// A share's block write well above its new files, each flushed: the server's memory took it.
struct ServerMemory {
    block: String,
    block_mb_s: f64,
    durable: String,
    durable_mb_s: f64,
}

impl ServerMemory {
    /// A block write this many times the durable one is more than their noise.
    const ABOVE: f64 = 1.25;

    fn of(results: &[TestResult]) -> Option<ServerMemory> {
        let [block, _] = large_sequential_results(results);
        let (block, durable) = (block?, durable_write(results)?);
        let name = |r: &TestResult| format!("{} {}", r.test, r.variant);
        (block.median > durable.median * Self::ABOVE && !std::ptr::eq(block, durable)).then(|| {
            ServerMemory {
                block: name(block),
                block_mb_s: block.median,
                durable: name(durable),
                durable_mb_s: durable.median,
            }
        })
    }
}

/// The verdict over a chain (None when it could not be probed) and a run's results: classified
/// first (`classify`), then put in words (`words`).
pub fn judge(chain: Option<&Chain>, results: &[TestResult]) -> Verdict {
    let (mut v, facts) = classify(chain, results);
    v.summary = words::summary(&v, &facts);
    v.details = words::details(&v, &facts);
    v.alarm = chain.and_then(crate::probe::health::alarm);
    v.details.extend(chain.and_then(words::past_cache));
    v
}

/// The large sequential figures judged: the better of write and read, and each.
fn measured(results: &[TestResult], network: bool) -> Verdict {
    let best = judged(results, network);
    let [write, read] = judged_results(results, network);
    Verdict {
        measured_mb_s: best.map(|b| b.median),
        measured_by: best.map(|b| format!("{} {}", b.test, b.variant)),
        write_mb_s: write.map(|w| w.median),
        read_mb_s: read.map(|r| r.median),
        ..Verdict::default()
    }
}

/// The verdict's kind and figures, without words.
fn classify(chain: Option<&Chain>, results: &[TestResult]) -> (Verdict, Facts) {
    let network = chain.is_some_and(Chain::is_network);
    let mut v = measured(results, network);
    let mut facts = Facts {
        network,
        interface: None,
        narrowest_max_mb_s: None,
        per_file: None,
        removal_policy: None,
        server_memory: network.then(|| ServerMemory::of(results)).flatten(),
        server_storage: network.then(|| ServerStorage::of(results)).flatten(),
        protection: chain.and_then(protection),
    };
    let Some(chain) = chain else {
        v.kind = VerdictKind::NoChain;
        return (v, facts);
    };
    if chain.is_memory() {
        v.kind = VerdictKind::Memory;
        return (v, facts);
    }
    let known = chain.known_links();
    let refs: Vec<LinkRef> = known.iter().map(|(n, c)| link_ref(&n.label, c)).collect();
    v.unknown_links = chain
        .unknown_links()
        .iter()
        .map(|(n, why)| format!("{}: {why}", n.label))
        .collect();
    facts.narrowest_max_mb_s = known.first().map(|(_, c)| c.practical_max_mb_s);
    if let Some((_, narrowest)) = known.first() {
        v.cached = cached_figures(results, narrowest);
    }
    facts.interface = chain
        .nodes()
        .into_iter()
        .find(|n| n.kind == NodeKind::Interface)
        .map(|n| n.label.clone());
    facts.per_file = facts.network.then(|| PerFile::of(results)).flatten();
    facts.removal_policy = chain
        .nodes()
        .into_iter()
        .find_map(|n| RemovalPolicy::of(n).map(|p| (n.label.clone(), p)));
    v.per_file_ms = facts.per_file.as_ref().map(|p| p.ms);
    v.request_ms = facts
        .per_file
        .as_ref()
        .and_then(|p| p.request.as_ref())
        .map(|(ms, _)| *ms);
    v.kind = match (v.measured_mb_s, refs.first()) {
        (None, _) => VerdictKind::NeedsSequentialTests,
        (Some(_), None) => VerdictKind::LinkUnknown,
        (Some(measured), Some(bottleneck)) => {
            let pct = measured / bottleneck.practical_mb_s * 100.0;
            v.percent_of_ceiling = Some(pct);
            v.next = refs.get(1).cloned();
            v.bottleneck = Some(bottleneck.clone());
            if measured > known[0].1.practical_max_mb_s * CACHE_MARGIN {
                VerdictKind::Cached
            } else if pct >= LIMITED_AT * 100.0 {
                VerdictKind::LimitedByLink
            } else {
                VerdictKind::DeviceOrProtocol
            }
        }
    };
    // A backup writes: where the network carries far more than reaches the server's disks,
    // those are the limit, whatever the link.
    if let (Some(s), Some(_)) = (&facts.server_storage, v.measured_mb_s) {
        v.kind = VerdictKind::ServerStorage;
        v.measured_mb_s = Some(s.durable_mb_s);
        v.measured_by = Some(s.durable.clone());
        v.network_mb_s = Some(s.carried_mb_s);
        v.percent_of_ceiling = refs
            .first()
            .map(|b| s.durable_mb_s / b.practical_mb_s * 100.0);
    }
    (v, facts)
}

/// Encryption, else signing, where a node of the chain shows it on.
fn protection(chain: &Chain) -> Option<&'static str> {
    use crate::probe::Key;
    let on = |key| share::fact(chain, key) == Some(true);
    if on(Key::Encryption) {
        Some("encryption")
    } else if on(Key::Signing) {
        Some("signing")
    } else {
        None
    }
}

fn link_ref(label: &str, c: &Ceiling) -> LinkRef {
    LinkRef {
        node: label.to_string(),
        link: c.link.clone(),
        rated: c.rated.clone(),
        practical_mb_s: c.practical_mb_s,
        declared: c.declared,
    }
}

/// The results above what the narrowest link can carry (with the table's margin).
fn cached_figures(results: &[TestResult], narrowest: &Ceiling) -> Vec<CachedFigure> {
    let limit = narrowest.practical_max_mb_s * CACHE_MARGIN;
    results
        .iter()
        .enumerate()
        .filter(|(_, r)| r.median > limit)
        .map(|(index, r)| CachedFigure {
            result: Some(index),
            test: r.test.to_string(),
            variant: r.variant.clone(),
            median_mb_s: r.median,
            ceiling_mb_s: narrowest.practical_max_mb_s,
            link: narrowest.link.clone(),
        })
        .collect()
}

/// What one small file costs on a share, and how it was measured.
struct PerFile {
    ms: f64,
    /// The files' mean size, bytes, and as the line names it.
    bytes: f64,
    size: String,
    how: String,
    /// What a request and its reply take, ms, and the result it comes from (`request_ms`).
    request: Option<(f64, String)>,
}

/// The metadata operations a share answers without moving data (a rename, a delete): the
/// fastest one's median stands in for a round trip where the run read no 4 KiB block directly
/// at depth 1. A stat is left out: clients answer it from their attribute cache (sshfs: 15 µs
/// against 90 µs for a delete). On cifs a delete is two round trips (lab: 45 ms with 20 ms
/// added to each), so these count a file's time in requests, not round trips.
const ONE_REQUEST: [MetaOp; 2] = [MetaOp::Rename, MetaOp::Delete];

/// A round trip: one 4 KiB block read at queue depth 1 past the client's cache (4k-read
/// RND4K-Q1T1, direct): one request and its reply, the block from the server's memory.
fn round_trip(r: &TestResult) -> bool {
    r.workload
        == Some(Workload::Block {
            direction: Direction::Read,
            pattern: Pattern::Random,
            block: 4096,
            depth: 1,
        })
        && r.method == crate::results::Method::Direct
}

/// What a request and its reply take, ms, median, with the result it comes from: a round trip
/// (`round_trip`) where the run has one, else the fastest of [`ONE_REQUEST`].
fn request_ms(results: &[TestResult]) -> Option<(f64, String)> {
    let ms = |r: &TestResult| {
        let ms = r.latency_us?.p50 / 1000.0;
        (ms > 0.0).then(|| (ms, format!("{} {}", r.test, r.variant)))
    };
    if let Some(trip) = results.iter().filter(|r| round_trip(r)).find_map(ms) {
        return Some(trip);
    }
    results
        .iter()
        .filter(
            |r| matches!(r.workload, Some(Workload::Meta { op, .. }) if ONE_REQUEST.contains(&op)),
        )
        .filter_map(ms)
        .min_by(|a, b| a.0.total_cmp(&b.0))
}

impl PerFile {
    /// A backup's cost of a file is best seen one file at a time: the single-threaded copy of
    /// the small set with every file fsync'd, where each file waits for its own round trips
    /// and nothing else. Without it, Time Machine's 500 files, whose median time includes
    /// waiting behind the other 31 in flight: in the lab's guest (one emulated CPU) 32 worker
    /// threads on cifs took 85-128 ms a file with no delay and 89-92 ms with 20 ms more per
    /// round trip, the queue hiding the wire.
    fn of(results: &[TestResult]) -> Option<PerFile> {
        let one_at_a_time = results.iter().find(|r| {
            r.workload
                == Some(Workload::FileSet {
                    op: FileOp::Copy { cache_on: false },
                    set: SetName::Generated(SetKind::Small),
                    threads: 1,
                })
                && r.ops_per_s_median > 0.0
        });
        if let Some(r) = one_at_a_time {
            let bytes = r
                .file_set
                .as_ref()
                .filter(|s| s.files > 0)
                .map_or(4096.0, |s| s.bytes as f64 / s.files as f64);
            return Some(PerFile {
                ms: 1e3 / r.ops_per_s_median,
                bytes,
                size: crate::units::format_bytes(bytes.round() as u64),
                how:
                    "copied one after another, each fsync'd (files-copy small-1t-cache-off, median)"
                        .into(),
                request: request_ms(results),
            });
        }
        let concurrent = results
            .iter()
            .find(|r| r.test == TestId::TmCheck && r.op_kind == OpKind::File)?;
        Some(PerFile {
            ms: concurrent.latency_us?.p50 / 1000.0,
            bytes: 4096.0,
            // Time Machine's own unit: its "4 KB" files are 4096 bytes.
            size: "4 KB".into(),
            how: format!(
                "until durable over the network, {} in flight (tm-check 500x4KB, median; each \
                 also waits for the others)",
                concurrent.queue_depth
            ),
            request: request_ms(results),
        })
    }
}

/// The verdict of a finished run: judged from the chain its document carries (probed before
/// the run) and its results. The run is only read.
///
/// With several clients (`cluster`) the results are their aggregates, so the narrowest link of
/// the chain (the one they share, as far as rank 0 sees it) is judged against the aggregate; a
/// detail then sets each client's own rate against the same link, as its own share of it.
pub fn of(run: &RunDocument) -> Verdict {
    let mut verdict = judge(run.chain.as_ref(), &run.results);
    let network = run.chain.as_ref().is_some_and(Chain::is_network);
    if let Some(info) = run.cluster.as_ref().filter(|c| c.clients > 1) {
        let aggregate = judged(&run.results, network).and_then(|r| {
            info.aggregates
                .iter()
                .find(|a| a.test == r.test && a.variant == r.variant)
        });
        verdict
            .details
            .insert(0, clients_detail(&verdict, info, aggregate));
    }
    verdict
}

/// "3 clients share it: ..." with the judged result's per-client rates.
fn clients_detail(
    v: &Verdict,
    info: &crate::results::ClusterInfo,
    judged: Option<&crate::results::Aggregate>,
) -> String {
    let per_client = judged.map(|a| &a.per_client);
    let mut line = format!(
        "{} clients on {} host(s) share the destination: the figure judged is their aggregate (all bytes over the earliest start to the latest end)",
        info.clients,
        info.hosts.len()
    );
    if let Some(pc) = per_client {
        line.push_str(&format!(
            "; each client alone got {}-{} MB/s (median {})",
            round_mb_s(pc.min),
            round_mb_s(pc.max),
            round_mb_s(pc.median)
        ));
        if let Some(link) = &v.bottleneck {
            line.push_str(&format!(
                ", {:.0}% of {} per client, {:.0}% of it being the fair share",
                pc.median / link.practical_mb_s * 100.0,
                link.link,
                100.0 / info.clients as f64
            ));
        }
    }
    line
}

/// The write and the read the verdict judges in `run` (its chain says whether it is a share).
pub fn judged_in(run: &RunDocument) -> [Option<&TestResult>; 2] {
    judged_results(
        &run.results,
        run.chain.as_ref().is_some_and(Chain::is_network),
    )
}
