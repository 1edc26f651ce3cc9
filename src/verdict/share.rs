//! A share's time, in parts: the figures the verdict already reads off a network destination's
//! run (the wire, the block write, new files each flushed, a request, a file), each named with
//! its result, and what limits the share. Pure code: no I/O. The limit is decided here and only
//! here ([`limit`]); the reports draw the parts ([`Share::time_for`]).

use super::words::{file_rate, is_round_trips, requests, transfer_ms};
use super::{PerFile, durable_write, large_sequential, request_ms, sequential};
use crate::probe::{Chain, Key, Value};
use crate::results::{Share, ShareLimit, TestResult, Verdict, VerdictKind};
use crate::workload::{Direction, TestId, Workload};

/// The share's figures and limit, from the run's chain, results and the verdict judged of them;
/// None off a network (or where the chain was not probed).
pub fn of(chain: Option<&Chain>, results: &[TestResult], verdict: &Verdict) -> Option<Share> {
    let chain = chain.filter(|c| c.is_network())?;
    let name = |r: &TestResult| format!("{} {}", r.test, r.variant);
    let wire = fastest_read(results);
    let block = sequential(results, TestId::SeqWrite, Direction::Write)
        .filter(|r| matches!(r.workload, Some(Workload::Block { .. })));
    let durable = durable_write(results);
    let request = request_ms(results);
    let per_file = PerFile::of(results);
    let cost = per_file
        .as_ref()
        .and_then(|p| Some((p, file_rate(verdict)?)));
    let requests_per_file = cost.and_then(|(p, rate)| {
        let (ms, _) = request.as_ref()?;
        Some(requests(p, transfer_ms(p, rate), *ms))
    });
    let round_trips = cost.is_some_and(|(p, rate)| is_round_trips(p, transfer_ms(p, rate)));
    Some(Share {
        wire_mb_s: wire.map(|r| r.median),
        wire_by: wire.map(name),
        block_write_mb_s: block.map(|r| r.median),
        block_write_by: block.map(name),
        durable_write_mb_s: durable.map(|r| r.median),
        durable_by: durable.map(name),
        request_ms: request.as_ref().map(|(ms, _)| *ms),
        request_by: request.map(|(_, by)| by),
        per_file_ms: per_file.as_ref().map(|p| p.ms),
        per_file_by: per_file.as_ref().map(|p| p.how.clone()),
        per_file_bytes: per_file.as_ref().map(|p| p.bytes),
        requests_per_file,
        signing: fact(chain, Key::Signing),
        encryption: fact(chain, Key::Encryption),
        limit: limit(verdict.kind, round_trips),
    })
}

/// What limits a share: the link where the verdict says so, the server's disks where it says
/// so; else round trips where a small file costs at least three times its bytes' time
/// (`words::is_round_trips`), else the server or the protocol.
pub fn limit(kind: VerdictKind, round_trips: bool) -> ShareLimit {
    match kind {
        VerdictKind::LimitedByLink => ShareLimit::Network,
        VerdictKind::ServerStorage => ShareLimit::ServerDisks,
        _ if round_trips => ShareLimit::RoundTrips,
        _ => ShareLimit::ServerOrProtocol,
    }
}

/// The fastest of the large sequential reads the run made (1 MiB blocks eight in flight, whole
/// files at whatever sizes the run made them): the server hands back a file it has just been
/// sent, usually from its memory, so the read is the wire without the server's disks.
fn fastest_read(results: &[TestResult]) -> Option<&TestResult> {
    let [blocks, _] = large_sequential(Direction::Read);
    results
        .iter()
        .filter(|r| r.test == TestId::SeqRead)
        .filter(|r| {
            r.workload.as_ref() == Some(&blocks)
                || matches!(r.workload, Some(Workload::WholeFiles { .. }))
        })
        .max_by(|a, b| a.median.total_cmp(&b.median))
}

/// A yes-or-no fact of the chain's (signing, encryption), where a node has it.
pub(super) fn fact(chain: &Chain, key: Key) -> Option<bool> {
    chain.nodes().into_iter().find_map(|n| match n.get(key) {
        Some(Value::Signing(on) | Value::Encryption(on)) => Some(*on),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::probe::links;
    use crate::probe::{Bandwidth, NodeKind};
    use crate::results::RunDocument;
    use crate::verdict::judge;
    use crate::verdict::tests::disk_behind;

    /// `disk_behind`'s chain made a share: its disk a server with `facts`, its bus a gigabit
    /// Ethernet interface (else a link of unknown speed). Returns the link's practical MB/s.
    fn smb_share(gigabit: bool, facts: &[Value]) -> (Chain, f64) {
        let mut chain = disk_behind(None);
        let server = &mut chain.root.children[0];
        server.kind = NodeKind::Server;
        for f in facts {
            server.fact(f.clone(), "a test");
        }
        let link = &mut server.children[0];
        link.kind = NodeKind::Interface;
        link.label = "interface eth0".into();
        let ceiling = links::row("ethernet").ceiling_of_rate(1000.0);
        let practical = ceiling.practical_mb_s;
        if gigabit {
            link.bandwidth = Bandwidth::Known(ceiling);
        }
        (chain, practical)
    }

    /// Results as a run document holds them (each with its variant's workload): `[test,
    /// variant, median]`, with `more` fields merged into the result of the same index.
    fn results(rows: &[(&str, &str, f64)], more: &[(usize, serde_json::Value)]) -> Vec<TestResult> {
        let mut list: Vec<serde_json::Value> = rows
            .iter()
            .map(|(test, variant, median)| {
                json!({ "test": test, "variant": variant, "median": median,
                        "method": "direct", "engine": "sync" })
            })
            .collect();
        for (i, fields) in more {
            for (k, v) in fields.as_object().expect("fields") {
                list[*i][k] = v.clone();
            }
        }
        let doc: RunDocument = serde_json::from_value(json!({ "results": list })).unwrap();
        doc.results
    }

    /// The share judged as the run judges it: the verdict first (of `kind`), then its parts.
    fn share_of(chain: &Chain, results: &[TestResult], kind: VerdictKind) -> Share {
        let verdict = judge(Some(chain), results);
        assert_eq!(verdict.kind, kind, "{verdict:?}");
        of(Some(chain), results, &verdict).expect("a share")
    }

    /// Near the link's ceiling the network is the limit; the wire is the fastest read, named
    /// with its result, whichever the verdict preferred.
    #[test]
    fn near_its_links_ceiling_a_share_is_limited_by_the_network() {
        let (chain, link) = smb_share(true, &[]);
        let run = results(
            &[
                ("seq-write", "SEQ1M-Q8T1", link * 0.90),
                ("seq-write", "20-100MB", link * 0.80),
                ("seq-read", "SEQ1M-Q8T1", link * 0.93),
                ("seq-read", "20-100MB", link * 0.95),
            ],
            &[],
        );
        let share = share_of(&chain, &run, VerdictKind::LimitedByLink);
        assert_eq!(share.limit, ShareLimit::Network);
        assert_eq!(share.wire_mb_s, Some(link * 0.95));
        assert_eq!(share.wire_by.as_deref(), Some("seq-read 20-100MB"));
        assert_eq!(share.block_write_mb_s, Some(link * 0.90));
        assert_eq!(
            share.block_write_by.as_deref(),
            Some("seq-write SEQ1M-Q8T1")
        );
        assert_eq!(share.durable_write_mb_s, Some(link * 0.80));
        assert_eq!(share.durable_by.as_deref(), Some("seq-write 20-100MB"));
        assert_eq!((share.request_ms, share.per_file_ms), (None, None));
        assert_eq!((share.signing, share.encryption), (None, None));
    }

    /// New files far slower than what crossed the network: the server's disks; the server's
    /// SMB facts are read from the chain.
    #[test]
    fn a_share_whose_new_files_lag_its_network_is_limited_by_the_servers_disks() {
        let facts = [Value::Signing(true), Value::Encryption(false)];
        let (chain, link) = smb_share(true, &facts);
        let run = results(
            &[
                ("seq-write", "SEQ1M-Q8T1", link * 0.75),
                ("seq-write", "20-100MB", link * 0.30),
                ("seq-read", "SEQ1M-Q8T1", link * 0.95),
            ],
            &[],
        );
        let share = share_of(&chain, &run, VerdictKind::ServerStorage);
        assert_eq!(share.limit, ShareLimit::ServerDisks);
        assert_eq!(share.durable_write_mb_s, Some(link * 0.30));
        assert_eq!((share.signing, share.encryption), (Some(true), Some(false)));
    }

    /// The small set copied one file at a time, `per_s` files a second of `bytes` each, and a
    /// delete whose median took `delete_ms`; the link's speed unknown, new files at `durable`.
    fn small_files(per_s: f64, bytes: u64, delete_ms: f64, durable: f64) -> Vec<TestResult> {
        let files = 200;
        results(
            &[
                ("seq-write", "20-100MB", durable),
                ("seq-read", "SEQ1M-Q8T1", durable * 1.2),
                ("files-copy", "small-1t-cache-off", 1.0),
                ("meta", "delete", 1.0),
            ],
            &[
                (
                    2,
                    json!({ "op_kind": "file", "ops_per_s_median": per_s,
                            "file_set": { "name": "small", "files": files,
                                          "bytes": files * bytes } }),
                ),
                (
                    3,
                    json!({ "op_kind": "file", "latency_us": { "p50": delete_ms * 1e3,
                            "p99": delete_ms * 2e3, "p999": delete_ms * 3e3,
                            "mean": delete_ms * 1e3, "max": delete_ms * 4e3 } }),
                ),
            ],
        )
    }

    /// A small file that costs many times its bytes' time is round trips: its time beyond the
    /// bytes is counted in requests that move no data.
    #[test]
    fn a_share_whose_small_files_cost_far_more_than_their_bytes_is_limited_by_round_trips() {
        let (chain, _) = smb_share(false, &[]);
        let (durable, bytes, per_s, delete_ms) = (50.0, 16384, 40.0, 10.0);
        let run = small_files(per_s, bytes, delete_ms, durable);
        let share = share_of(&chain, &run, VerdictKind::LinkUnknown);
        assert_eq!(share.limit, ShareLimit::RoundTrips);
        let per_file_ms = 1e3 / per_s;
        assert_eq!(share.per_file_ms, Some(per_file_ms));
        assert_eq!(share.per_file_bytes, Some(bytes as f64));
        assert_eq!(share.request_ms, Some(delete_ms));
        assert_eq!(share.request_by.as_deref(), Some("meta delete"));
        let transfer_ms = bytes as f64 / (durable * 1e6) * 1e3;
        let requests = share.requests_per_file.expect("requests per file");
        assert!(
            (requests - (per_file_ms - transfer_ms) / delete_ms).abs() < 1e-9,
            "{requests}"
        );
        // The same share's parts: its round trips are the files' requests.
        let parts = share.time_for(1_000_000, 100);
        assert!((parts.round_trips_s - 100.0 * requests * delete_ms / 1e3).abs() < 1e-9);
    }

    /// Files that cost under three times their bytes' time are not round trips: the server or
    /// the protocol.
    #[test]
    fn a_share_whose_files_cost_about_their_bytes_is_limited_by_the_server_or_protocol() {
        let (chain, _) = smb_share(false, &[]);
        let (durable, bytes) = (50.0, 16_000_000);
        let bytes_ms = bytes as f64 / (durable * 1e6) * 1e3;
        // Just under three times the bytes' time, then just over.
        let under = small_files(1e3 / (bytes_ms * 2.9), bytes, 10.0, durable);
        let share = share_of(&chain, &under, VerdictKind::LinkUnknown);
        assert_eq!(share.limit, ShareLimit::ServerOrProtocol);
        let over = small_files(1e3 / (bytes_ms * 3.01), bytes, 10.0, durable);
        let share = share_of(&chain, &over, VerdictKind::LinkUnknown);
        assert_eq!(share.limit, ShareLimit::RoundTrips);
    }

    /// The link's and the server's disks' verdicts come before round trips.
    #[test]
    fn the_verdicts_own_limit_comes_before_round_trips() {
        assert_eq!(limit(VerdictKind::LimitedByLink, true), ShareLimit::Network);
        assert_eq!(
            limit(VerdictKind::ServerStorage, true),
            ShareLimit::ServerDisks
        );
        assert_eq!(
            limit(VerdictKind::LinkUnknown, true),
            ShareLimit::RoundTrips
        );
        assert_eq!(
            limit(VerdictKind::DeviceOrProtocol, false),
            ShareLimit::ServerOrProtocol
        );
    }

    /// Off a network, and where the chain was not probed, there is no share.
    #[test]
    fn there_is_no_share_off_a_network() {
        let run = small_files(40.0, 16384, 10.0, 50.0);
        let disk = disk_behind(None);
        let v = judge(Some(&disk), &run);
        assert_eq!(of(Some(&disk), &run, &v), None);
        assert_eq!(of(None, &run, &judge(None, &run)), None);
        let (chain, _) = smb_share(false, &[]);
        assert!(of(Some(&chain), &run, &v).is_some());
    }
}
