//! The null engine through the whole pipeline: every figure is known in advance.
//!
//! The null engine takes exactly 100 µs per request, 1 ms per fdatasync, and runs up to the
//! queue depth in parallel on a virtual clock (engine/null.rs). Its file-tree operations cost
//! 10 µs per metadata operation, 100 µs per started MiB of data and 1 ms per fsync or syncfs,
//! with each copy thread a lane of its own (engine/tree/null.rs, tree/lanes.rs).

use crate::support::{entries, result, run_json, run_on, test_variants};

const IO_S: f64 = 100e-6;
const SYNC_S: f64 = 1e-3;
const META_S: f64 = 10e-6;
const MIB: f64 = 1_048_576.0;

fn close(actual: &serde_json::Value, expected: f64) {
    let actual = actual.as_f64().expect("a number");
    assert!(
        (actual - expected).abs() <= expected * 1e-9,
        "expected {expected}, got {actual}"
    );
}

fn null_run(dir: &std::path::Path, extra: &[&str]) -> serde_json::Value {
    let path = dir.to_str().unwrap();
    let mut args = vec![
        "run",
        path,
        "--engine",
        "null",
        "--json",
        "--runs",
        "2",
        "--duration",
        "0.5",
        "--size",
        "64MiB",
        "--seed",
        "1",
    ];
    args.extend_from_slice(extra);
    run_json(&args)
}

/// Rate of one whole file on the null engine: 1 MiB chunks, four in flight, then one sync.
fn whole_file_rate(size: f64, write: bool) -> f64 {
    let chunks = (size / MIB).ceil();
    let rounds = (chunks / 4.0).ceil();
    let seconds = rounds * IO_S + if write { SYNC_S } else { 0.0 };
    size / seconds / 1e6
}

/// The block, whole-file and Time Machine tests (the file-set tests have their own below).
const BLOCK_TESTS: &str = "seq-write,seq-read,4k-write,4k-read,tm-check";

#[test]
fn exact_figures_for_every_block_test() {
    let dir = tempfile::tempdir().unwrap();
    let doc = null_run(dir.path(), &["--tests", BLOCK_TESTS]);
    assert_eq!(doc["schema"], "destbench.run/2");
    assert_eq!(doc["destination"]["path"], dir.path().to_str().unwrap());

    // Block tests: 0.5 s of requests; writes add one sync.
    let reads_q1 = 0.5 / IO_S;
    close(
        &result(&doc, "seq-read", "SEQ1M-Q1T1")["median"],
        reads_q1 * MIB / 0.5 / 1e6,
    );
    close(
        &result(&doc, "seq-read", "SEQ1M-Q8T1")["median"],
        8.0 * reads_q1 * MIB / 0.5 / 1e6,
    );
    close(
        &result(&doc, "seq-write", "SEQ1M-Q1T1")["median"],
        reads_q1 * MIB / (0.5 + SYNC_S) / 1e6,
    );
    close(
        &result(&doc, "4k-read", "RND4K-Q32T1")["median"],
        32.0 * reads_q1 * 4096.0 / 0.5 / 1e6,
    );
    close(
        &result(&doc, "4k-read", "RND4K-Q32T1")["ops_per_s_median"],
        32.0 * reads_q1 / 0.5,
    );

    // Whole files: the mean of the five files' rates, as QuickBench averages.
    let sizes = [20e6, 40e6, 60e6, 80e6, 100e6];
    for (test, write) in [("seq-write", true), ("seq-read", false)] {
        let mean = sizes
            .iter()
            .map(|&s| whole_file_rate(s, write))
            .sum::<f64>()
            / 5.0;
        close(&result(&doc, test, "20-100MB")["median"], mean);
    }
    close(
        &result(&doc, "tm-check", "50MB")["median"],
        whole_file_rate(50e6, true),
    );

    // 500 files, 32 at a time, each a write then a sync: slots work through 16 files at most.
    let tm = result(&doc, "tm-check", "500x4KB");
    close(
        &tm["median"],
        500.0 * 4096.0 / (16.0 * (IO_S + SYNC_S)) / 1e6,
    );
    assert_eq!(tm["op_kind"], "file");
    let p50 = tm["latency_us"]["p50"].as_f64().unwrap();
    assert!((p50 - 1100.0).abs() <= 1.1, "per-file latency {p50} µs");

    for r in doc["results"].as_array().unwrap() {
        assert_eq!(r["unit"], "MB/s");
        assert_eq!(r["method"], "null");
        assert_eq!(r["engine"], "null");
        assert_eq!(r["samples"].as_array().unwrap().len(), 2, "{r}");
        assert_eq!(r["cv"], 0.0, "a deterministic engine has no spread");
        assert_eq!(r["min"], r["max"]);
        if r["op_kind"] == "io" {
            let p50 = r["latency_us"]["p50"].as_f64().unwrap();
            assert!(
                (p50 - 100.0).abs() <= 0.1,
                "{} {} p50 {p50}",
                r["test"],
                r["variant"]
            );
        }
    }
    assert_eq!(doc["results"].as_array().unwrap().len(), 14);
    assert!(doc["failures"].as_array().unwrap().is_empty());
    let log = doc["time_machine_log"].as_array().unwrap();
    assert!(
        log[0]
            .as_str()
            .unwrap()
            .starts_with("Wrote 1 50 MB file at ")
    );
    assert!(
        log[1]
            .as_str()
            .unwrap()
            .starts_with("Concurrently wrote 500 4 KB files at 116.36 MB/s")
    );
    assert!(entries(dir.path()).is_empty(), "scratch left behind");
}

/// The small set of 20 MB from seed 7: 934 files in the root and 3 directories, every file under
/// 100 KiB (one chunk). Copy threads are lanes, each taking the next file when it is free.
#[test]
fn exact_figures_for_the_file_set_tests() {
    const FILES: f64 = 934.0;
    const BYTES: f64 = 20e6;
    const DIRS: f64 = 3.0;
    let dir = tempfile::tempdir().unwrap();
    let sources = tempfile::tempdir().unwrap();
    let doc = run_on(
        dir.path(),
        &format!(
            "--engine null --runs 2 --seed 7 --sets small --set-size 20MB --threads 1,3 \
             --source-dir {} --tests files-copy,files-restore,files-delete,meta",
            sources.path().display()
        ),
    );
    // Files per lane: all of them on one thread, the first lane's share on three.
    let per_lane = |threads: f64| (FILES / threads).ceil();
    let mb_s = |seconds: f64| BYTES / seconds / 1e6;
    for (threads, name) in [(1.0, "1t"), (3.0, "3t")] {
        // A copy: create (10 µs) and one chunk (100 µs) per file, an fsync each with the cache
        // off (and of each directory once its metadata is set), one syncfs at the end.
        let copy = per_lane(threads) * (META_S + IO_S);
        close(
            &result(&doc, "files-copy", &format!("small-{name}-cache-on"))["median"],
            mb_s(copy + SYNC_S),
        );
        close(
            &result(&doc, "files-copy", &format!("small-{name}-cache-off"))["median"],
            mb_s(copy + per_lane(threads) * SYNC_S + DIRS * SYNC_S + SYNC_S),
        );
        // A restore: open and one chunk per file; nothing to evict, nothing to flush.
        close(
            &result(&doc, "files-restore", &format!("small-{name}"))["median"],
            mb_s(copy),
        );
        // A delete: an unlink per file, then the directories and one syncfs.
        close(
            &result(&doc, "files-delete", &format!("small-{name}"))["median"],
            FILES / (per_lane(threads) * META_S + DIRS * META_S + SYNC_S),
        );
    }
    // 500 files in one directory, one operation each; all but stat end with a syncfs.
    for (op, seconds) in [
        ("create", 500.0 * META_S + SYNC_S),
        ("stat", 500.0 * META_S),
        ("rename", 500.0 * META_S + SYNC_S),
        ("delete", 500.0 * META_S + SYNC_S),
    ] {
        close(&result(&doc, "meta", op)["median"], 500.0 / seconds);
    }
    // --min-time 0.75 s (the backup profile's): a pass of the 1-thread copy lasts 934 x 110 µs
    // + 1 ms = 0.10374 s, so a repetition copies the set 8 times (0.82992 s); on 3 threads a
    // pass lasts 312 x 110 µs + 1 ms = 0.03532 s, 22 passes (0.77704 s).
    for (variant, passes, seconds) in [
        ("small-1t-cache-on", 8, 0.82992),
        ("small-3t-cache-on", 22, 0.77704),
    ] {
        let r = result(&doc, "files-copy", variant);
        for rep in r["repetitions"].as_array().unwrap() {
            assert_eq!(rep["passes"], passes, "{rep}");
            close(&rep["elapsed_s"], seconds);
            assert_eq!(rep["bytes"], passes * 20_000_000);
            assert_eq!(rep["ops"], passes * 934);
        }
        assert!(!r["warnings"].to_string().contains("short-sample"), "{r}");
    }
    // 500 metadata operations take 5-6 ms, and the test's work is fixed.
    let create = result(&doc, "meta", "create");
    assert!(create["warnings"][0]["message"].as_str().unwrap().starts_with(
        "short-sample: the shortest repetition lasted 0.006000 s, less than the minimum of 0.75 s"
    ));
    let copy = result(&doc, "files-copy", "small-1t-cache-on");
    assert_eq!(copy["file_set"]["files"], 934);
    assert_eq!(copy["file_set"]["bytes"], 20_000_000);
    assert_eq!(copy["file_set"]["dirs"], 3);
    let p50 = copy["latency_us"]["p50"].as_f64().unwrap();
    assert!((p50 - 110.0).abs() <= 0.2, "per-file latency {p50} µs");
    for r in doc["results"].as_array().unwrap() {
        assert_eq!(r["method"], "null", "{r}");
        assert_eq!(r["engine"], "null", "{r}");
        // A delete's repetitions can stop at different passes (the wall rule counts the copies
        // made for it, which are real I/O): equal rates may then differ in their last bit.
        assert!(
            r["cv"].as_f64().unwrap() < 1e-12,
            "a deterministic engine has no spread: {r}"
        );
        assert_eq!(r["samples"].as_array().unwrap().len(), 2, "{r}");
    }
    assert_eq!(doc["results"].as_array().unwrap().len(), 12);
    assert!(doc["failures"].as_array().unwrap().is_empty());
    assert!(
        doc["warnings"].as_array().unwrap().is_empty(),
        "{}",
        doc["warnings"]
    );
    assert!(entries(dir.path()).is_empty(), "scratch left behind");
}

#[test]
fn time_series_adds_up_to_the_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let doc = null_run(dir.path(), &["--tests", "seq-read:SEQ1M-Q1T1"]);
    let r = result(&doc, "seq-read", "SEQ1M-Q1T1");
    let interval = r["series_interval_s"].as_f64().unwrap();
    for rep in r["repetitions"].as_array().unwrap() {
        let series: Vec<f64> = rep["series_mb_s"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert_eq!(
            series.len(),
            (0.5 / interval).round() as usize,
            "{series:?}"
        );
        let bytes: f64 = series.iter().map(|mb_s| mb_s * 1e6 * interval).sum();
        let expected = rep["bytes"].as_f64().unwrap();
        assert!(
            (bytes - expected).abs() < 1.0,
            "series sums to {bytes}, not {expected}"
        );
        let flat = series.iter().all(|&v| (v - 10485.76).abs() < 1e-6);
        assert!(
            flat,
            "a constant-rate engine gives a flat series: {series:?}"
        );
    }
}

#[test]
fn selected_tests_only() {
    let dir = tempfile::tempdir().unwrap();
    let doc = null_run(dir.path(), &["--tests", "tm-check,4k-read:RND4K-Q1T1"]);
    assert_eq!(
        test_variants(&doc["results"]),
        ["4k-read RND4K-Q1T1", "tm-check 50MB", "tm-check 500x4KB"]
    );
}

#[test]
fn terminal_table_names_method_and_time_machine_lines() {
    let dir = tempfile::tempdir().unwrap();
    let output = crate::support::destbench()
        .args([
            "run",
            dir.path().to_str().unwrap(),
            "--engine",
            "null",
            "--profile",
            "quick",
            "--tests",
            "tm-check,seq-read:SEQ1M-Q8T1",
            "-v",
        ])
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(!text.contains('\u{1b}'), "no colour when not a terminal");
    let row = text
        .lines()
        .find(|l| l.starts_with("seq-read") && l.contains("SEQ1M-Q8T1"))
        .expect("a row for seq-read SEQ1M-Q8T1");
    assert!(
        row.contains("83886.08") && row.trim_end().ends_with("null    null"),
        "{row}"
    );
    assert!(
        text.contains("Concurrently wrote 500 4 KB files at 116.36 MB/s"),
        "{text}"
    );
    assert!(text.contains("null engine: no I/O"), "{text}");
    // -v: each result's repetitions in the order they ran, timed to the microsecond.
    let reps = text
        .split("\nrepetitions, in the order they ran:\n")
        .nth(1)
        .expect("the repetitions with -v");
    let lines: Vec<&str> = reps
        .lines()
        .skip_while(|l| !l.contains("seq-read SEQ1M-Q8T1 (MB/s)"))
        .take(3)
        .collect();
    assert!(
        lines[1]
            .trim_start()
            .starts_with("1.   83886.08 in 0.500000 s ("),
        "{reps}"
    );
    assert!(
        lines[2]
            .trim_start()
            .starts_with("2.   83886.08 in 0.500000 s ("),
        "{reps}"
    );
}

/// `--version` is what a bug report quotes: the version, the commit and its date, the target;
/// the run document carries the very same string.
#[test]
fn version_names_the_commit_and_the_run_document_carries_it() {
    let output = crate::support::destbench()
        .arg("--version")
        .output()
        .unwrap();
    crate::support::assert_success(&output);
    let printed = String::from_utf8(output.stdout).unwrap();
    let version = printed.trim().strip_prefix("destbench ").unwrap();
    assert!(
        version.starts_with(&format!("{} ", env!("CARGO_PKG_VERSION"))),
        "{version}"
    );
    let os = match std::env::consts::OS {
        "macos" => "apple-darwin",
        os => os,
    };
    assert!(version.contains(os), "no target in {version}");
    let commit = std::process::Command::new("git")
        .args(["log", "-1", "--format=(%h %cs)", "--abbrev=7"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output();
    match commit {
        Ok(out) if out.status.success() => {
            let commit = String::from_utf8(out.stdout).unwrap();
            assert!(version.contains(commit.trim()), "{version} lacks {commit}");
        }
        _ => crate::support::skip("git cannot read this checkout's commit"),
    }
    let dir = tempfile::tempdir().unwrap();
    let doc = null_run(dir.path(), &["--tests", "tm-check"]);
    assert_eq!(doc["destbench_version"], version);
}
