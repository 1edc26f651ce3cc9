//! The verdict in words: a summary line and its details, written from a verdict already
//! classified (`super::classify`). Nothing here decides; every figure comes from the verdict.

use super::{Facts, PerFile, ServerMemory, ServerStorage, large_sequential};
use crate::probe::RemovalPolicy;
use crate::results::{Verdict, VerdictKind, round_mb_s};
use crate::workload::Direction;

/// A small file whose cost is this many times its bytes' transfer time is bound by round trips.
const ROUND_TRIP_BOUND: f64 = 3.0;
/// One that costs under this many times its bytes' time is mostly bandwidth; in between, both.
const BANDWIDTH_BOUND: f64 = 1.5;

/// What the disk's kind (the chain's fact) says of the rate judged: an SMR or QLC disk writes
/// into a cache first, and a run of some GB measures the cache.
pub(super) fn past_cache(chain: &crate::probe::Chain) -> Option<String> {
    use crate::probe::health::Recording;
    let kind = crate::probe::health::drive_kind(chain)?;
    let what = match kind.recording {
        Recording::Smr => "an SMR disk",
        Recording::Qlc => "a QLC SSD",
        Recording::Cmr | Recording::Tlc => return None,
    };
    Some(format!(
        "{what} ({}): the write rate is its cache's; past the cache it writes slower",
        kind.basis
    ))
}

/// The verdict's first sentence, in plain words: at most 25 words, no nested parentheses, no
/// test or variant names (the details and tables have those), MB/s as the only unit. The
/// terminal, the HTML report and the page all show this sentence (`Verdict::summary`).
pub(super) fn summary(v: &Verdict, facts: &Facts) -> String {
    let measured = round_mb_s(v.measured_mb_s.unwrap_or_default());
    if let (VerdictKind::ServerStorage, Some(s)) = (v.kind, &facts.server_storage) {
        return format!(
            "The server's disks are the limit: the network carries {} MB/s, writes that must \
             reach its disks {measured} MB/s.",
            round_mb_s(s.carried_mb_s)
        );
    }
    let Some(link) = v.bottleneck.as_ref() else {
        return match v.kind {
            VerdictKind::NoChain => {
                "The path to the destination could not be probed, so there is no verdict.".into()
            }
            VerdictKind::Memory => {
                "The destination is memory: no device or link holds it back.".into()
            }
            VerdictKind::NeedsSequentialTests => {
                "There is no verdict without a large sequential test; the details say which.".into()
            }
            _ => format!(
                "{}, so the limit is unknown; {}.",
                capitalised(&unknown_what(facts)),
                rates(v)
            ),
        };
    };
    let pct = v.percent_of_ceiling.unwrap_or_default();
    let practical = round_mb_s(link.practical_mb_s);
    let name = capitalised(&link.link);
    match v.kind {
        VerdictKind::Cached => format!(
            "A cache answered, not the device: {measured} MB/s is more than {} can carry.",
            link.link
        ),
        VerdictKind::LimitedByLink => {
            format!(
                "{name} is the limit: {measured} MB/s, {pct:.0}% of its practical ~{practical} MB/s."
            )
        }
        _ => format!(
            "{} is the limit{}: {measured} MB/s is {pct:.0}% of what {} can carry.",
            capitalised(device_or_protocol(v, facts)),
            facts
                .protection
                .filter(|_| facts.network)
                .map_or(String::new(), |p| format!(", with {p} on")),
            link.link
        ),
    }
}

/// Where the share is far below its link with encryption or signing on: what that costs and
/// how to price it.
fn protection(v: &Verdict, facts: &Facts) -> Option<String> {
    let on = facts.protection.filter(|_| facts.network)?;
    (v.kind == VerdictKind::DeviceOrProtocol).then(|| {
        format!(
            "{on} is on for this share: the client and the server work on every byte; to price \
             it, run destbench on a second mount without it and compare the two runs \
             (destbench compare)"
        )
    })
}

/// "it wrote 120 MB/s and read 1464 MB/s", or the one figure there is.
fn rates(v: &Verdict) -> String {
    match (v.write_mb_s, v.read_mb_s) {
        (Some(w), Some(r)) => format!(
            "it wrote {} MB/s and read {} MB/s",
            round_mb_s(w),
            round_mb_s(r)
        ),
        (Some(w), None) => format!("it wrote {} MB/s", round_mb_s(w)),
        (None, Some(r)) => format!("it read {} MB/s", round_mb_s(r)),
        (None, None) => "it measured no rate".into(),
    }
}

/// `text` with its first letter in upper case.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// What did not report its speed, when no link did.
fn unknown_what(facts: &Facts) -> String {
    match (&facts.interface, facts.network) {
        (Some(_), true) => "the network link did not report its speed".into(),
        (None, true) => "the network path did not report its speed".into(),
        (_, false) => "no link on the path reported its speed".into(),
    }
}

/// Who limits a destination far below its links.
fn device_or_protocol(v: &Verdict, facts: &Facts) -> &'static str {
    match (facts.network, v.unknown_links.is_empty()) {
        (true, true) => "the server or the protocol",
        (false, true) => "the device itself",
        (true, false) => "the server, the protocol or a link of unknown speed",
        (false, false) => "the device or a link of unknown speed",
    }
}

/// The details under the summary, in order: the next link, links of unknown speed, what to do
/// about them, the per-file cost over a network, the figures that were a cache.
pub(super) fn details(v: &Verdict, facts: &Facts) -> Vec<String> {
    let mut details = Vec::new();
    let policy = facts
        .removal_policy
        .as_ref()
        .map(|(disk, p)| removal_policy(v, disk, *p));
    match v.kind {
        VerdictKind::NoChain | VerdictKind::Memory => return details,
        VerdictKind::NeedsSequentialTests => {
            let [blocks, files] = large_sequential(Direction::Write);
            details.push(format!(
                "the verdict needs seq-write or seq-read ({} or {})",
                blocks.name(),
                files.name()
            ));
            details.extend(policy);
            details.extend(cached(v));
            return details;
        }
        VerdictKind::LimitedByLink => details.extend(next_link(v, facts)),
        _ => {}
    }
    details.extend(facts.server_storage.as_ref().map(server_storage));
    details.extend(protection(v, facts));
    details.extend(judged_by(v, facts));
    details.extend(v.unknown_links.iter().map(|u| format!("unknown: {u}")));
    if v.kind == VerdictKind::LinkUnknown && facts.network {
        details.push(format!(
            "declare the link's speed with {} (e.g. 1gbit) to compare against it",
            crate::settings::defs::LINK_SPEED
        ));
    }
    details.extend(facts.server_memory.as_ref().map(server_memory));
    details.extend(facts.per_file.as_ref().map(|p| per_file(v, p)));
    details.extend(policy);
    details.extend(cached(v));
    details
}

/// The figure judged and the test that measured it; over an unreported network link, its name.
fn judged_by(v: &Verdict, facts: &Facts) -> Option<String> {
    let by = v.measured_by.as_deref()?;
    let measured = round_mb_s(v.measured_mb_s?);
    let interface = match (&facts.interface, v.bottleneck.is_none() && facts.network) {
        (Some(i), true) => format!("; the interface that did not report its speed: {i}"),
        _ => String::new(),
    };
    Some(format!("judged by {by}: {measured} MB/s{interface}"))
}

/// Windows' removal policy, which decides whether writes wait for the device.
fn removal_policy(v: &Verdict, disk: &str, policy: RemovalPolicy) -> String {
    let writes = v.write_mb_s.map_or(String::new(), |w| {
        format!(" (the writes measured {w:.0} MB/s under it)")
    });
    let named = format!("{disk}: \"{}\"", policy);
    match policy {
        RemovalPolicy::QuickRemoval => format!(
            "{named}: the device's write cache is off, every write waits for the medium{writes}; \
             \"better performance\" (Device Manager, the disk's Policies) turns it on"
        ),
        RemovalPolicy::BetterPerformance => format!(
            "{named}: writes are acknowledged from the device's cache{writes}; eject before \
             unplugging, or choose \"quick removal\""
        ),
    }
}

/// What would limit next if the bottleneck were faster.
fn next_link(v: &Verdict, facts: &Facts) -> Option<String> {
    let link = &v.bottleneck.as_ref()?.link;
    Some(match (&v.next, v.unknown_links.is_empty()) {
        (Some(next), _) => format!(
            "if {link} were faster, the next link, {}, would allow ~{} MB/s",
            next.link,
            round_mb_s(next.practical_mb_s)
        ),
        (None, true) => format!(
            "if {link} were faster, {} would be the limit",
            if facts.network {
                "the server or the protocol"
            } else {
                "the device itself"
            }
        ),
        (None, false) => format!(
            "if {link} were faster, the next limit is unknown (links of unknown speed are on the path)"
        ),
    })
}

/// The per-file cost of a share, and what it is made of: a small file that takes far longer
/// than its bytes take at the measured write rate pays for the protocol's round trips (create,
/// write, commit, close each wait for the server), which no faster link removes.
fn per_file(v: &Verdict, p: &PerFile) -> String {
    let (ms, size, how) = (p.ms, &p.size, &p.how);
    let what = format!("small files: each {size} file takes");
    match file_rate(v) {
        Some(rate) => {
            let transfer_ms = transfer_ms(p, rate);
            let cause = if is_round_trips(p, transfer_ms) {
                "round trips, not bandwidth"
            } else if ms >= BANDWIDTH_BOUND * transfer_ms {
                "round trips and bandwidth both"
            } else {
                "mostly bandwidth"
            };
            let requests = p
                .request
                .as_ref()
                .map_or(String::new(), |(request_ms, name)| {
                    format!(
                        "; a request and its reply take {request_ms:.2} ms ({name}, median): \
                     the rest of a file's time is about {:.0} of them",
                        requests(p, transfer_ms, *request_ms)
                    )
                });
            format!(
                "{what} ~{ms:.1} ms {how}: {cause} (its {size} take {transfer_ms:.2} ms at {} MB/s){requests}",
                round_mb_s(rate)
            )
        }
        None => format!("{what} ~{ms:.1} ms {how}"),
    }
}

/// The rate a small file's bytes are counted at: the judged write (on a share its new files,
/// each flushed), else the judged figure.
pub(super) fn file_rate(v: &Verdict) -> Option<f64> {
    v.write_mb_s.or(v.measured_mb_s).filter(|r| *r > 0.0)
}

/// What a file's bytes take at `rate` MB/s, ms.
pub(super) fn transfer_ms(p: &PerFile, rate: f64) -> f64 {
    p.bytes / (rate * 1e6) * 1e3
}

/// Whether a file's cost is its round trips, not its bytes' time (`transfer_ms`).
pub(super) fn is_round_trips(p: &PerFile, transfer_ms: f64) -> bool {
    p.ms >= ROUND_TRIP_BOUND * transfer_ms
}

/// A file's time beyond its bytes', counted in requests of `request_ms` each.
pub(super) fn requests(p: &PerFile, transfer_ms: f64, request_ms: f64) -> f64 {
    ((p.ms - transfer_ms) / request_ms).max(0.0)
}

/// One line per figure that was a cache.
fn cached(v: &Verdict) -> Vec<String> {
    v.cached
        .iter()
        .map(|c| {
            format!(
                "{} {}: {} MB/s is above what {} can carry (~{} MB/s): likely cached",
                c.test,
                c.variant,
                round_mb_s(c.median_mb_s),
                c.link,
                round_mb_s(c.ceiling_mb_s)
            )
        })
        .collect()
}

/// "seq-write SEQ1M-Q8T1 wrote 87.6 MB/s, 4.4 times the 19.9 MB/s of new files each flushed
/// (seq-write 4-20MB): ..."
fn server_memory(m: &ServerMemory) -> String {
    format!(
        "{} wrote {} MB/s, {:.1} times the {} MB/s of new files each flushed ({}): it overwrote \
         one file, which the server may hold in its memory; the verdict judges this share's writes \
         by the flushed files",
        m.block,
        round_mb_s(m.block_mb_s),
        m.block_mb_s / m.durable_mb_s,
        round_mb_s(m.durable_mb_s),
        m.durable
    )
}

/// "the server's disks, or how it makes writes durable: ..."
fn server_storage(s: &ServerStorage) -> String {
    format!(
        "the server's disks, or how it makes writes durable (its sync policy, a RAID's parity): \
         new files each flushed wrote {} MB/s ({}), where {} crossed the network at {} MB/s",
        round_mb_s(s.durable_mb_s),
        s.durable,
        s.carried,
        round_mb_s(s.carried_mb_s)
    )
}
