//! The run document: written, read back the same, and read leniently.

use super::*;

fn document() -> serde_json::Value {
    serde_json::json!({
        "schema": "destbench.run/1",
        "destination": { "path": "/mnt" },
        "settings": { "profile": "quick", "runs": 2, "label": "usb" },
        "a_field_from_the_future": [1, 2, 3],
        "results": [
            { "test": "files-copy", "variant": "small-4t-cache-on", "median": 12.5,
              "threads": 4, "files_per_s_median": 900.0, "samples": [12.0, 13.0],
              "method": "syncfs", "engine": "sync",
              "file_set": { "name": "small", "files": 10, "bytes": 4096 },
              "repetitions": [ { "rate": 12.0, "elapsed_s": 1.5 } ] },
            { "test": "a-test-from-the-future", "variant": "x", "median": 1.0,
              "method": "direct", "engine": "sync" },
            { "test": "sustained", "variant": "SEQ1M", "method": "direct", "engine": "uring",
              "details": { "kind": "a-kind-from-the-future" } }
        ],
        "failures": [ { "test": "meta", "variant": "create", "error": "full" } ],
        "chain": { "links": [ { "name": "USB 2.0", "ceiling_mb_s": 35.0 } ] },
        "verdict": { "kind": "limited-by-link", "summary": "limited by USB 2.0",
                     "cached": [ { "test": "seq-read", "variant": "SEQ1M-Q8T1", "median_mb_s": 99.0 } ] }
    })
}

#[test]
fn unknown_fields_and_values_are_tolerated_and_missing_fields_defaulted() {
    let run: RunDocument = serde_json::from_value(document()).unwrap();
    assert_eq!(run.destination.path, PathBuf::from("/mnt"));
    assert_eq!(run.settings.profile, ProfileName::Quick);
    assert_eq!(run.settings.label.as_deref(), Some("usb"));
    // The result of a test this version does not know is left out; the others load.
    assert_eq!(run.results.len(), 2);
    let copy = &run.results[0];
    assert_eq!((copy.test, copy.threads), (TestId::FilesCopy, 4));
    assert_eq!(copy.samples, vec![12.0, 13.0]);
    assert_eq!(copy.file_set.as_ref().map(|s| s.files), Some(10));
    assert_eq!(copy.repetitions[0].elapsed_s, 1.5);
    assert!(copy.latency_us.is_none() && copy.details.is_none());
    assert!(
        run.results[1].details.is_none(),
        "details of an unknown kind"
    );
    assert_eq!(run.failures[0].test, TestId::Meta);
    // A chain of another shape is absent; the verdict is read with what it has.
    assert!(run.chain.is_none());
    let verdict = run.verdict.as_ref().unwrap();
    assert_eq!(verdict.kind, VerdictKind::LimitedByLink);
    assert_eq!(
        verdict.cached[0].result, None,
        "no index in older documents"
    );
    assert!(run.result_warnings(0).is_empty());
}

#[test]
fn a_file_set_records_its_shape_and_older_sets_load_without_it() {
    let run: RunDocument = serde_json::from_value(document()).unwrap();
    let old = run.results[0].file_set.as_ref().unwrap();
    assert_eq!(old.file_sizes, FileSizes::default());
    let set = FileSetInfo {
        name: "mixed".into(),
        files: 1278,
        bytes: 100_000_000,
        dirs: 129,
        file_sizes: FileSizes::known(4702, 97_962, 15_063_108),
        ..FileSetInfo::default()
    };
    let json = serde_json::to_value(&set).unwrap();
    for (key, value) in [
        ("files", 1278),
        ("dirs", 129),
        ("bytes", 100_000_000),
        ("file_size_p50_bytes", 4702),
        ("file_size_p90_bytes", 97_962),
        ("file_size_max_bytes", 15_063_108),
    ] {
        assert_eq!(json[key], value, "{key}");
    }
    assert_eq!(serde_json::from_value::<FileSetInfo>(json).unwrap(), set);
}

#[test]
fn a_document_reads_back_to_the_same_value() {
    let mut run: RunDocument = serde_json::from_value(document()).unwrap();
    run.verdict.as_mut().unwrap().cached[0].result = Some(0);
    let again: RunDocument = serde_json::from_str(&run.to_json()).unwrap();
    assert_eq!(again, run);
    // The verdict's "likely cached" is shown beside the result it concerns.
    assert_eq!(
        run.result_warnings(0),
        vec![Warning::new(
            WarningKind::LikelyCached,
            "likely cached: 99 MB/s is above what  can carry (~0 MB/s), the narrowest link on the path"
        )]
    );
    let (about, warning) = &run.labelled_warnings()[0];
    assert_eq!(about.as_deref(), Some("files-copy small-4t-cache-on"));
    assert!(warning.message.starts_with("likely"), "{warning}");
}

#[test]
fn the_json_keeps_the_documented_field_order() {
    let mut run: RunDocument = serde_json::from_value(document()).unwrap();
    run.share = Some(Share::default());
    let text = run.to_json();
    let keys: Vec<&str> = [
        "\"schema\"",
        "\"destbench_version\"",
        "\"destination\"",
        "\"settings\"",
        "\"access\"",
        "\"started_unix_s\"",
        "\"duration_s\"",
        "\"results\"",
        "\"failures\"",
        "\"warnings\"",
        "\"time_machine_log\"",
        "\"peak_rss_bytes\"",
        "\"chain\"",
        "\"verdict\"",
        "\"share\"",
        "\"answer\"",
    ]
    .to_vec();
    // Top-level keys only: indented by two spaces.
    let positions: Vec<usize> = keys
        .iter()
        .map(|k| text.find(&format!("\n  {k}")).unwrap())
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{text}");
    assert!(
        !text.contains("\"details\": null"),
        "details only where a test has them"
    );
}

/// With two repetitions the median is the mean of both: the line used to pair that rate with one
/// repetition's time, so its bytes over its seconds were not its rate.
#[test]
fn a_time_machine_line_is_one_repetitions_rate_and_time() {
    let result = serde_json::json!({
        "test": "tm-check", "variant": "500x4KB", "method": "fsync", "engine": "sync",
        "op_kind": "file", "median": 20.33, "samples": [17.655, 23.0],
        "repetitions": [
            { "rate": 17.655, "bytes": 2_048_000, "ops": 500, "elapsed_s": 0.116 },
            { "rate": 23.0, "bytes": 2_048_000, "ops": 500, "elapsed_s": 0.089 }
        ]
    });
    let big = serde_json::json!({
        "test": "tm-check", "variant": "50MB", "method": "direct", "engine": "sync",
        "median": 100.0, "samples": [100.0],
        "repetitions": [ { "rate": 100.0, "bytes": 50_000_000, "ops": 50, "elapsed_s": 0.5 } ]
    });
    let results: Vec<TestResult> = vec![
        serde_json::from_value(result).unwrap(),
        serde_json::from_value(big).unwrap(),
    ];
    let lines = time_machine_lines(Path::new("/mnt/tm"), &results);
    assert_eq!(
        lines,
        vec![
            // The median repetition's own: 500 x 4096 B = 2,048,000 B in 0.089 s is 23.01 MB/s
            // (10^6 B), not the median's 20.33.
            "Concurrently wrote 500 4 KB files at 23.01 MB/s to \"/mnt/tm\" in 0.089 seconds",
            "Wrote 1 50 MB file at 100.00 MB/s to \"/mnt/tm\" in 0.500 seconds",
        ]
    );
}

#[test]
fn repetitions_that_slow_down_steadily_are_reported_even_with_a_small_spread() {
    // A CV of 2.4%: below the spread warning, but every repetition slower than the one before.
    let slower = result::drift_warning(&[100.0, 99.0, 97.0, 96.0, 94.0]).unwrap();
    assert_eq!(slower.kind, WarningKind::Drift);
    assert_eq!(
        slower.message,
        "repetitions got steadily slower (\u{2212}6% first to last, Mann-Kendall p=0.017): the destination's state changes under the test (cache filling, heat, cleanup)"
    );
    assert!(result::drift_warning(&[100.0, 97.0, 99.0, 96.0, 98.0]).is_none());
    assert!(
        result::drift_warning(&[100.0, 99.0, 98.0, 97.0]).is_none(),
        "four repetitions cannot show a significant trend"
    );
}

/// The names an enum's `as_str` gives (strum's) are its serde names: the two derives follow
/// one rule, written twice beside each other, and this holds them to it.
#[test]
fn the_enums_words_are_their_serde_names() {
    use crate::engine::EngineKind;
    use crate::workload::{MetaOp, ProfileName, SetKind, TestId};
    fn same<T: Serialize + Copy>(all: &[T], name: fn(T) -> &'static str) {
        for &v in all {
            assert_eq!(serde_json::to_value(v).unwrap(), name(v));
        }
    }
    same(&TestId::ALL, TestId::as_str);
    same(&ProfileName::ALL, ProfileName::as_str);
    same(&SetKind::ALL, SetKind::as_str);
    same(&MetaOp::ALL, MetaOp::as_str);
    let reasons = [StopReason::Precise, StopReason::Budget, StopReason::Count];
    same(&reasons, StopReason::as_str);
    assert_eq!(StopReason::Budget.to_string(), "budget");
    use Method::*;
    let methods = [
        Direct, Fsync, Evict, DropCaches, PageCache, Null, Syncfs, FsyncEach,
    ];
    same(&methods, Method::as_str);
    same(&[OpKind::Io, OpKind::File, OpKind::Op], OpKind::as_str);
    let engines = [EngineKind::Sync, EngineKind::Uring, EngineKind::Null];
    same(&engines, EngineKind::name);
}

/// A share whose every figure is known: the wire 100 MB/s, new files 25 MB/s, two requests of
/// 10 ms a file.
pub(crate) fn share() -> Share {
    Share {
        wire_mb_s: Some(100.0),
        wire_by: Some("seq-read SEQ1M-Q8T1".into()),
        block_write_mb_s: Some(80.0),
        block_write_by: Some("seq-write SEQ1M-Q8T1".into()),
        durable_write_mb_s: Some(25.0),
        durable_by: Some("seq-write 20-100MB".into()),
        request_ms: Some(10.0),
        request_by: Some("meta delete".into()),
        per_file_ms: Some(20.7),
        per_file_by: Some("copied one after another".into()),
        per_file_bytes: Some(16384.0),
        requests_per_file: Some(2.0),
        signing: Some(true),
        encryption: Some(false),
        limit: ShareLimit::ServerDisks,
    }
}

/// The parts: the bytes at the wire's rate, the rest of the durable write's time the disks',
/// each file's requests the round trips; they add up and none is negative.
#[test]
fn a_shares_time_is_split_into_parts_that_add_up() {
    let t = share().time_for(1_000_000_000, 1000);
    assert!((t.wire_s - 10.0).abs() < 1e-9, "{t:?}");
    assert!((t.server_disks_s - 30.0).abs() < 1e-9, "{t:?}");
    assert!((t.round_trips_s - 20.0).abs() < 1e-9, "{t:?}");
    assert!((t.total_s() - (t.wire_s + t.server_disks_s + t.round_trips_s)).abs() < 1e-9);
    // Disks faster than the read: no negative part. Unknown figures: no part.
    let fast_disks = Share {
        durable_write_mb_s: Some(400.0),
        requests_per_file: None,
        ..share()
    };
    let t = fast_disks.time_for(1_000_000_000, 1000);
    assert_eq!((t.server_disks_s, t.round_trips_s), (0.0, 0.0), "{t:?}");
    assert!((t.total_s() - 10.0).abs() < 1e-9);
    let nothing = Share::default().time_for(1_000_000_000, 1000);
    assert_eq!(nothing.total_s(), 0.0);
    // No read: the durable write's time is the bytes', none of it called the disks'.
    let no_read = Share {
        wire_mb_s: None,
        ..share()
    };
    let t = no_read.time_for(1_000_000_000, 0);
    assert_eq!(
        (t.wire_s, t.server_disks_s, t.round_trips_s),
        (40.0, 0.0, 0.0)
    );
}

/// The share reads back the same; unknown figures are left out of the JSON, the limit is
/// kebab-case, and a document without a share reads with none.
#[test]
fn a_share_reads_back_the_same_and_leaves_out_what_is_unknown() {
    let json = serde_json::to_value(share()).unwrap();
    assert_eq!(json["limit"], "server-disks");
    assert_eq!(serde_json::from_value::<Share>(json).unwrap(), share());
    let bare = serde_json::to_value(Share::default()).unwrap();
    assert_eq!(bare, serde_json::json!({ "limit": "server-or-protocol" }));
    let mut run: RunDocument = serde_json::from_value(document()).unwrap();
    assert_eq!(run.share, None);
    assert!(!run.to_json().contains("\"share\""));
    run.share = Some(share());
    let again: RunDocument = serde_json::from_str(&run.to_json()).unwrap();
    assert_eq!(again.share, Some(share()));
}
