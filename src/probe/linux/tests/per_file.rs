//! A share's per-file cost in the verdict: where it is measured from, and whether it is round
//! trips or bandwidth.

use super::{chain, result, seq};
use crate::results::TestResult;
use crate::verdict::judge;
use crate::workload::TestId;

/// Time Machine's 500 small files on a share, each taking `ms` until durable (median).
fn small_files(ms: f64) -> TestResult {
    let mut r = taking(result(TestId::TmCheck, "500x4KB", 4096.0 / (ms * 1e3)), ms);
    // As the runner records it: 32 files in flight.
    r.queue_depth = 32;
    r
}

/// `r` as a result of file operations whose median took `ms`.
fn taking(mut r: TestResult, ms: f64) -> TestResult {
    r.op_kind = crate::results::OpKind::File;
    r.latency_us = Some(crate::stats::LatencySummary {
        p50: ms * 1e3,
        p99: ms * 2e3,
        p999: ms * 3e3,
        mean: ms * 1e3,
        max: ms * 4e3,
    });
    r
}

/// A share's per-file cost is named with what it is made of: far more than a 4 KB transfer at
/// the measured rate is round trips; about that much is bandwidth; in between, both.
#[test]
fn share_per_file_cost_says_round_trips_or_bandwidth() {
    let c = chain("cifs-gige", "/mnt/nas");
    let mut results = seq(100.0, 110.0);
    results.push(small_files(12.0));
    let v = judge(Some(&c), &results);
    assert!(
        v.details.contains(&"small files: each 4 KB file takes ~12.0 ms until durable over the network, 32 in flight (tm-check 500x4KB, median; each also waits for the others): round trips, not bandwidth (its 4 KB take 0.04 ms at 100 MB/s)".to_string()),
        "{:?}",
        v.details
    );
    // A slow link: 4 KB at 1 MB/s is 4.1 ms, so 5 ms a file is the bytes, not the waits.
    let mut results = seq(1.0, 1.0);
    results.push(small_files(5.0));
    let v = judge(Some(&c), &results);
    let line = v
        .details
        .iter()
        .find(|d| d.starts_with("small files"))
        .expect("the line");
    assert!(
        line.contains(": mostly bandwidth (its 4 KB take 4.10 ms at 1 MB/s)"),
        "{line}"
    );
    // 9 ms against 4.1: neither alone.
    let mut results = seq(1.0, 1.0);
    results.push(small_files(9.0));
    let v = judge(Some(&c), &results);
    let said = v.details.join("\n");
    assert!(
        said.contains(": round trips and bandwidth both (its 4 KB"),
        "{said}"
    );
}

/// The small set copied one file after another, each fsync'd: `files` files of `bytes` in all,
/// at `per_s` files a second.
fn one_file_at_a_time(files: u64, bytes: u64, per_s: f64) -> TestResult {
    let mut r = result(TestId::FilesCopy, "small-1t-cache-off", 1.0);
    r.op_kind = crate::results::OpKind::File;
    r.ops_per_s_median = per_s;
    r.file_set = Some(crate::results::FileSetInfo {
        name: "small".into(),
        files,
        bytes,
        ..Default::default()
    });
    r
}

/// Where the small set was copied one file after another, that is the per-file cost: each file
/// waits for its own round trips only, where Time Machine's 32 in flight also wait for each
/// other. The line names the files' mean size and how the cost was measured.
#[test]
fn share_per_file_cost_prefers_one_file_at_a_time() {
    let c = chain("cifs-gige", "/mnt/nas");
    let mut results = seq(100.0, 110.0);
    results.push(small_files(90.0));
    results.push(one_file_at_a_time(200, 200 * 16384, 40.0));
    let v = judge(Some(&c), &results);
    assert_eq!(v.per_file_ms, Some(25.0));
    assert!(
        v.details.contains(&"small files: each 16 KiB file takes ~25.0 ms copied one after another, each fsync'd (files-copy small-1t-cache-off, median): round trips, not bandwidth (its 16 KiB take 0.16 ms at 100 MB/s)".to_string()),
        "{:?}",
        v.details
    );
}

/// A metadata operation's result whose median request took `ms`.
fn meta(op: &str, ms: f64) -> TestResult {
    taking(result(TestId::Meta, op, 1.0), ms)
}

/// Where the run timed a rename and a delete, the faster one's median is what a request that
/// moves no data takes, and a small file's time beyond its bytes is counted in them; a stat,
/// answered from the client's attribute cache, is no request.
#[test]
fn a_files_cost_is_counted_in_requests_that_move_no_data() {
    let c = chain("cifs-gige", "/mnt/nas");
    let mut results = seq(100.0, 110.0);
    results.push(one_file_at_a_time(200, 200 * 16384, 40.0));
    results.extend([
        meta("stat", 0.015),
        meta("rename", 12.0),
        meta("delete", 10.0),
    ]);
    let v = judge(Some(&c), &results);
    assert_eq!(v.request_ms, Some(10.0));
    let said = v.details.join("\n");
    // 25 ms a file, 0.16 ms of it the bytes: 24.84 ms, about 2 requests of 10 ms.
    assert!(
        said.contains("; a request and its reply take 10.00 ms (meta delete, median): the rest of a file's time is about 2 of them"),
        "{said}"
    );
    let without = judge(Some(&c), &results[..3]);
    assert_eq!(without.request_ms, None);
}

/// A 4 KiB block read directly at queue depth 1 is one request and its reply, a round trip: it
/// is preferred to a rename or a delete (two round trips on cifs); a read through the client's
/// cache is no round trip, and the delete stands in again.
#[test]
fn a_round_trip_is_a_direct_4k_read_at_depth_1() {
    let c = chain("cifs-gige", "/mnt/nas");
    let mut results = seq(100.0, 110.0);
    results.push(one_file_at_a_time(200, 200 * 16384, 40.0));
    results.push(meta("delete", 10.0));
    results.push(taking(result(TestId::FourKRead, "RND4K-Q1T1", 1.0), 4.0));
    let v = judge(Some(&c), &results);
    assert_eq!(v.request_ms, Some(4.0));
    let said = v.details.join("\n");
    assert!(
        said.contains("; a request and its reply take 4.00 ms (4k-read RND4K-Q1T1, median)"),
        "{said}"
    );
    results.last_mut().unwrap().method = crate::results::Method::PageCache;
    assert_eq!(judge(Some(&c), &results).request_ms, Some(10.0));
}
