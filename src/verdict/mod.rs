//! The verdict: which link of the chain holds the destination back, from the chain and the
//! measured large sequential rate. Pure code: no I/O, so it is tested with exact numbers.
//!
//! Rules (from LINKS.md): the bottleneck is the known link with the smallest practical
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

use crate::probe::{Chain, NodeKind};
pub use crate::results::{CachedFigure, LinkRef, Verdict, VerdictKind};
use crate::results::{OpKind, RunReport, TestResult, round_mb_s};
use crate::workload::TestId;

/// A measured rate at or above this fraction of a link's practical ceiling is limited by it.
pub const LIMITED_AT: f64 = 0.85;
/// A figure above the narrowest link's practical maximum times this is a cache. The table's
/// figures are approximate (±10% between enclosures and hosts), so only beyond that margin is
/// the figure impossible for the link.
pub const CACHE_MARGIN: f64 = 1.10;
/// The variants that measure the large sequential rate, in order of preference.
pub const SEQUENTIAL_VARIANTS: [&str; 2] = ["SEQ1M-Q8T1", "20-100MB"];

/// The median of the preferred large sequential variant of `test`, with its name.
fn sequential(results: &[TestResult], test: TestId) -> Option<(f64, String)> {
    SEQUENTIAL_VARIANTS.iter().find_map(|v| {
        results
            .iter()
            .find(|r| r.test == test && r.variant == *v)
            .map(|r| (r.median, format!("{} {}", r.test, r.variant)))
    })
}

/// The verdict over a chain (None when it could not be probed) and a run's results.
pub fn judge(chain: Option<&Chain>, results: &[TestResult]) -> Verdict {
    let write = sequential(results, TestId::SeqWrite);
    let read = sequential(results, TestId::SeqRead);
    let best = match (&write, &read) {
        (Some(w), Some(r)) => Some(if r.0 > w.0 { r.clone() } else { w.clone() }),
        (w, r) => w.clone().or(r.clone()),
    };
    let mut v = Verdict {
        kind: VerdictKind::NoChain,
        summary: String::new(),
        details: Vec::new(),
        measured_mb_s: best.as_ref().map(|b| b.0),
        measured_by: best.as_ref().map(|b| b.1.clone()),
        write_mb_s: write.map(|w| w.0),
        read_mb_s: read.map(|r| r.0),
        bottleneck: None,
        percent_of_ceiling: None,
        next: None,
        unknown_links: Vec::new(),
        cached: Vec::new(),
        per_file_ms: None,
    };
    let Some(chain) = chain else {
        v.summary = "the chain could not be probed: no verdict".into();
        return v;
    };
    if chain.is_memory() {
        v.kind = VerdictKind::Memory;
        v.summary = "the destination is memory (tmpfs): no device or link holds it back".into();
        return v;
    }
    let known = chain.known_links();
    let refs: Vec<LinkRef> = known
        .iter()
        .map(|(n, c)| LinkRef {
            node: n.label.clone(),
            link: c.link.clone(),
            rated: c.rated.clone(),
            practical_mb_s: c.practical_mb_s,
            declared: c.declared,
        })
        .collect();
    v.unknown_links = chain
        .unknown_links()
        .iter()
        .map(|(n, why)| format!("{}: {why}", n.label))
        .collect();
    if let Some((_, narrowest)) = known.first() {
        let limit = narrowest.practical_max_mb_s * CACHE_MARGIN;
        v.cached = results
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
            .collect();
    }
    let network = chain.is_network();
    let per_file = network.then(|| PerFile::of(results)).flatten();
    v.per_file_ms = per_file.as_ref().map(|p| p.ms);
    let Some(measured) = v.measured_mb_s else {
        v.kind = VerdictKind::NeedsSequentialTests;
        v.summary = format!(
            "the verdict needs seq-write or seq-read ({} or {})",
            SEQUENTIAL_VARIANTS[0], SEQUENTIAL_VARIANTS[1]
        );
        push_cached(&mut v);
        return v;
    };
    let Some(bottleneck) = refs.first().cloned() else {
        v.kind = VerdictKind::LinkUnknown;
        let what = if network {
            let iface = chain
                .nodes()
                .into_iter()
                .find(|n| n.kind == NodeKind::Interface)
                .map(|n| n.label.clone());
            match iface {
                Some(i) => format!("the network link ({i}) did not report its speed"),
                None => "the network path did not report its speed".into(),
            }
        } else {
            "no link on the path reported its speed".into()
        };
        v.summary = format!(
            "{what}: the limit is unknown; measured {} MB/s ({})",
            round_mb_s(measured),
            v.measured_by.as_deref().unwrap_or_default()
        );
        v.details
            .extend(v.unknown_links.iter().map(|u| format!("unknown: {u}")));
        if network {
            v.details.push(
                "declare the link's speed with --link-speed (e.g. 1gbit) to compare against it"
                    .into(),
            );
        }
        push_per_file(&mut v, per_file.as_ref());
        return v;
    };
    let pct = measured / bottleneck.practical_mb_s * 100.0;
    v.percent_of_ceiling = Some(pct);
    v.next = refs.get(1).cloned();
    v.bottleneck = Some(bottleneck.clone());
    let narrowest_max = known[0].1.practical_max_mb_s;
    if measured > narrowest_max * CACHE_MARGIN {
        v.kind = VerdictKind::Cached;
        v.summary = format!(
            "{} MB/s is more than {} can carry (~{} MB/s at most): a cache answered, not the device",
            round_mb_s(measured),
            bottleneck.link,
            round_mb_s(narrowest_max)
        );
    } else if pct >= LIMITED_AT * 100.0 {
        v.kind = VerdictKind::LimitedByLink;
        v.summary = format!(
            "limited by {}: {} MB/s of a practical ~{} MB/s ({pct:.0}%)",
            bottleneck.link,
            round_mb_s(measured),
            round_mb_s(bottleneck.practical_mb_s)
        );
        v.details.push(match (&v.next, v.unknown_links.is_empty()) {
            (Some(next), _) => format!(
                "if {} were faster, the next link, {}, would allow ~{} MB/s",
                bottleneck.link,
                next.link,
                round_mb_s(next.practical_mb_s)
            ),
            (None, true) => format!(
                "if {} were faster, {} would be the limit",
                bottleneck.link,
                if network {
                    "the server or the protocol"
                } else {
                    "the device itself"
                }
            ),
            (None, false) => format!(
                "if {} were faster, the next limit is unknown (links of unknown speed are on the path)",
                bottleneck.link
            ),
        });
    } else {
        v.kind = VerdictKind::DeviceOrProtocol;
        let who = match (network, v.unknown_links.is_empty()) {
            (true, true) => "the server or the protocol",
            (false, true) => "the device itself",
            (true, false) => "the server, the protocol or a link of unknown speed",
            (false, false) => "the device or a link of unknown speed",
        };
        v.summary = format!(
            "{who} is the limit: {} MB/s is {pct:.0}% of the narrowest link, {} (~{} MB/s)",
            round_mb_s(measured),
            bottleneck.link,
            round_mb_s(bottleneck.practical_mb_s)
        );
    }
    v.details
        .extend(v.unknown_links.iter().map(|u| format!("unknown: {u}")));
    push_per_file(&mut v, per_file.as_ref());
    push_cached(&mut v);
    v
}

/// What one small file costs on a share, and how it was measured.
struct PerFile {
    ms: f64,
    /// The files' mean size, bytes, and as the line names it.
    bytes: f64,
    size: String,
    how: String,
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
            r.test == TestId::FilesCopy
                && r.variant == "small-1t-cache-off"
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
        })
    }
}

/// The per-file cost of a share, and what it is made of: a small file that takes far longer
/// than its bytes take at the measured write rate pays for the protocol's round trips (create,
/// write, commit, close each wait for the server), which no faster link removes.
fn push_per_file(v: &mut Verdict, per_file: Option<&PerFile>) {
    let Some(&PerFile {
        ms,
        bytes,
        ref size,
        ref how,
    }) = per_file
    else {
        return;
    };
    let what = format!("small files: each {size} file takes");
    let line = match v.write_mb_s.or(v.measured_mb_s).filter(|r| *r > 0.0) {
        Some(rate) => {
            let transfer_ms = bytes / (rate * 1e6) * 1e3;
            let cause = if ms >= ROUND_TRIP_BOUND * transfer_ms {
                "round trips, not bandwidth"
            } else {
                "mostly bandwidth"
            };
            format!(
                "{what} ~{ms:.1} ms {how}: {cause} (its {size} take {transfer_ms:.2} ms at {} MB/s)",
                round_mb_s(rate)
            )
        }
        None => format!("{what} ~{ms:.1} ms {how}"),
    };
    v.details.push(line);
}

/// A small file whose cost is this many times its bytes' transfer time is bound by round trips.
const ROUND_TRIP_BOUND: f64 = 3.0;

fn push_cached(v: &mut Verdict) {
    for c in &v.cached {
        v.details.push(format!(
            "{} {}: {} MB/s is above what {} can carry (~{} MB/s): likely cached",
            c.test,
            c.variant,
            round_mb_s(c.median_mb_s),
            c.link,
            round_mb_s(c.ceiling_mb_s)
        ));
    }
}

/// The verdict of a finished run: judged from the chain its document carries (probed before
/// the run) and its results. The run is only read.
///
/// With several clients (`cluster`) the results are their aggregates, so the narrowest link of
/// the chain (the one they share, as far as rank 0 sees it) is judged against the aggregate; a
/// detail then sets each client's own rate against the same link, as its own share of it.
pub fn of(run: &RunReport) -> Verdict {
    let mut verdict = judge(run.chain.as_ref(), &run.results);
    if let Some(info) = run.cluster.as_ref().filter(|c| c.clients > 1) {
        verdict.details.insert(0, clients_detail(&verdict, info));
    }
    verdict
}

/// "3 clients share it: ..." with the judged result's per-client rates.
fn clients_detail(v: &Verdict, info: &crate::results::ClusterInfo) -> String {
    let per_client = v.measured_by.as_ref().and_then(|by| {
        info.aggregates
            .iter()
            .find(|a| format!("{} {}", a.test, a.variant) == *by)
            .map(|a| &a.per_client)
    });
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
