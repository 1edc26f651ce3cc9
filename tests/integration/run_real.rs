//! Real runs: ext4 on a loop-mounted image (direct I/O), the buffered fallback, tmpfs (memory,
//! labelled), and one workload through every engine and cache mode.

use crate::support::{LoopExt4, entries, num, result, run_json, run_on};

fn results(doc: &serde_json::Value) -> &Vec<serde_json::Value> {
    doc["results"].as_array().unwrap()
}

#[test]
fn quick_profile_on_ext4_uses_direct_io() {
    let Some(fs) = LoopExt4::new(768) else { return };
    let mnt = fs.mount();
    let doc = run_json(&["run", mnt.to_str().unwrap(), "--profile", "quick", "--json"]);
    assert_eq!(doc["access"]["direct_io"], true, "{}", doc["access"]);
    assert_eq!(results(&doc).len(), 14);
    assert!(
        doc["failures"].as_array().unwrap().is_empty(),
        "{}",
        doc["failures"]
    );
    for r in results(&doc) {
        let name = format!("{} {}", r["test"], r["variant"]);
        assert_eq!(r["method"], "direct", "{name}");
        let (min, median, max) = (num(&r["min"]), num(&r["median"]), num(&r["max"]));
        assert!(
            min > 0.0 && min <= median && median <= max,
            "{name}: {min} {median} {max}"
        );
        // The quick profile's adaptive rule: 2 to 5 repetitions, precise or flagged.
        let n = r["samples"].as_array().unwrap().len();
        assert!((2..=5).contains(&n), "{name}: {n} repetitions");
        let warned = |kind: &str| {
            r["warnings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|w| w["kind"] == kind)
        };
        match r["stopped"].as_str().unwrap() {
            "precise" => assert!(num(&r["precision"]) <= 0.02, "{name}: {}", r["precision"]),
            "budget" => assert!(warned("imprecise"), "{name}: {}", r["warnings"]),
            other => panic!("{name}: stopped {other}"),
        }
        assert!(num(&r["latency_us"]["p50"]) > 0.0, "{name}");
        assert!(
            num(&r["latency_us"]["p50"]) <= num(&r["latency_us"]["p99"]),
            "{name}"
        );
        // The engine follows the queue depth under --engine auto.
        let depth = r["queue_depth"].as_u64().unwrap();
        let expected = if depth > 1 {
            ["uring", "sync"]
        } else {
            ["sync", "sync"]
        };
        assert!(
            expected.contains(&r["engine"].as_str().unwrap()),
            "{name}: {}",
            r["engine"]
        );
    }
    assert!(
        entries(&mnt).iter().all(|e| e == "lost+found"),
        "{:?}",
        entries(&mnt)
    );
}

#[test]
fn buffered_fallback_is_labelled_fsync_and_evict() {
    let Some(fs) = LoopExt4::new(256) else { return };
    let mnt = fs.mount();
    let doc = run_on(
        &mnt,
        "--buffered --runs 2 --duration 0.3 --size 32MiB \
         --tests seq-write:SEQ1M-Q1T1,seq-read:SEQ1M-Q1T1,4k-read:RND4K-Q32T1",
    );
    assert_eq!(doc["access"]["direct_io"], false);
    assert_eq!(result(&doc, "seq-write", "SEQ1M-Q1T1")["method"], "fsync");
    for (test, variant) in [("seq-read", "SEQ1M-Q1T1"), ("4k-read", "RND4K-Q32T1")] {
        let method = result(&doc, test, variant)["method"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            method == "evict" || method == "drop-caches",
            "{test} {variant}: {method}"
        );
        // Buffered reads stop after one pass of the file, so they cannot reread cached pages.
        for rep in result(&doc, test, variant)["repetitions"]
            .as_array()
            .unwrap()
        {
            assert!(
                num(&rep["bytes"]) <= 32.0 * 1048576.0,
                "{test}: {}",
                rep["bytes"]
            );
        }
    }
}

#[test]
fn tmpfs_is_labelled_memory_not_a_device() {
    let dir = tempfile::tempdir_in("/dev/shm").unwrap();
    let doc = run_on(
        dir.path(),
        "--runs 2 --duration 0.2 --size 16MiB --tests seq-write:SEQ1M-Q1T1,seq-read:SEQ1M-Q1T1",
    );
    assert_eq!(doc["access"]["memory_backed"], true);
    assert_eq!(doc["access"]["direct_io"], false);
    assert_eq!(result(&doc, "seq-write", "SEQ1M-Q1T1")["method"], "fsync");
    let read = result(&doc, "seq-read", "SEQ1M-Q1T1");
    assert_eq!(
        read["method"], "page-cache",
        "tmpfs pages cannot be evicted"
    );
    assert!(
        read["warnings"][0]["kind"] == "page-cache"
            && read["warnings"][0]["message"]
                .as_str()
                .unwrap()
                .contains("memory speed"),
        "{}",
        read["warnings"]
    );
    let warnings = doc["warnings"].to_string();
    assert!(warnings.contains("keeps files in memory"), "{warnings}");
    assert!(entries(dir.path()).is_empty());
}

/// One workload through every engine and cache mode gives the same bytes and request counts.
#[test]
fn every_engine_and_mode_moves_the_same_bytes() {
    let Some(fs) = LoopExt4::new(512) else { return };
    let mnt = fs.mount();
    let mut seen = Vec::new();
    for engine in ["sync", "uring"] {
        for buffered in [false, true] {
            let mut args = vec![
                "run",
                mnt.to_str().unwrap(),
                "--json",
                "--runs",
                "1",
                "--engine",
                engine,
                "--tests",
                "seq-write:20-100MB,seq-read:20-100MB,tm-check:500x4KB",
            ];
            if buffered {
                args.push("--buffered");
            }
            let doc = run_json(&args);
            let counters: Vec<(String, u64, u64)> = results(&doc)
                .iter()
                .map(|r| {
                    let rep = &r["repetitions"][0];
                    assert_eq!(r["engine"], engine);
                    (
                        format!("{} {}", r["test"], r["variant"]),
                        rep["bytes"].as_u64().unwrap(),
                        rep["ops"].as_u64().unwrap(),
                    )
                })
                .collect();
            seen.push((engine, buffered, counters));
        }
    }
    let expected = vec![
        ("\"seq-write\" \"20-100MB\"".to_string(), 300_000_000, 290),
        ("\"seq-read\" \"20-100MB\"".to_string(), 300_000_000, 290),
        ("\"tm-check\" \"500x4KB\"".to_string(), 2_048_000, 500),
    ];
    for (engine, buffered, counters) in seen {
        assert_eq!(counters, expected, "engine {engine}, buffered {buffered}");
    }
}
