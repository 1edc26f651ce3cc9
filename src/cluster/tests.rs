use super::aggregate::{Coordination, RankPart, combine, window_aggregate};
use super::*;
use crate::results::{RankWindow, RunDocument, TestResult, Unit};
use crate::workload::TestId;

fn window(rep: usize, start: f64, end: f64, bytes: u64) -> RankWindow {
    RankWindow {
        test: TestId::SeqWrite,
        variant: "SEQ1M-Q8T1".into(),
        repetition: rep,
        start_unix_s: start,
        end_unix_s: end,
        bytes,
        ops: bytes / 1_000_000,
        rate: bytes as f64 / 1e6 / (end - start),
        stonewalled: false,
    }
}

fn part(rank: usize, windows: Vec<RankWindow>) -> RankPart {
    let rates: Vec<f64> = windows.iter().map(|w| w.rate).collect();
    let result: TestResult = serde_json::from_value(serde_json::json!({
        "test": "seq-write", "variant": "SEQ1M-Q8T1", "unit": "MB/s",
        "workload": { "kind": "block", "direction": "write", "pattern": "sequential",
            "block_bytes": 1 << 20, "queue_depth": 8 },
        "median": crate::stats::median(&rates), "samples": rates,
        "method": "direct", "engine": "sync",
    }))
    .unwrap();
    RankPart {
        rank,
        host: if rank < 2 { "a".into() } else { "b".into() },
        clock_offset_s: rank as f64 * -0.001,
        windows,
        report: RunDocument {
            results: vec![result],
            ..RunDocument::default()
        },
        scratch: format!("/d/.destbench-r{rank}-*"),
    }
}

#[test]
fn the_aggregate_is_all_bytes_over_earliest_start_to_latest_end() {
    // Rank 0 moves 100 MB in 1 s, rank 1 100 MB in 2 s: the sum of rates (150 MB/s) would
    // flatter the early finisher; the window says 200 MB in 2 s.
    let parts = vec![
        part(0, vec![window(0, 10.0, 11.0, 100_000_000)]),
        part(1, vec![window(0, 10.0, 12.0, 100_000_000)]),
    ];
    let how = Coordination {
        mpi_library: "test".into(),
        stonewall: false,
    };
    let doc = combine(parts, &how);
    assert_eq!(doc.clients, Some(2));
    let info = doc.cluster.as_ref().unwrap();
    assert_eq!(info.hosts, vec!["a".to_string()]);
    assert!((info.worst_clock_offset_s - 0.001).abs() < 1e-12);
    let agg = &info.aggregates[0];
    assert!((agg.repetitions[0].rate - 100.0).abs() < 1e-9, "{agg:?}");
    assert_eq!(agg.repetitions[0].bytes, 200_000_000);
    assert!((doc.results[0].median - 100.0).abs() < 1e-9);
    assert!((agg.per_client.min - 50.0).abs() < 1e-9);
    assert!((agg.per_client.max - 100.0).abs() < 1e-9);
    assert!((agg.per_client.spread - 50.0 / 75.0).abs() < 1e-9);
    assert!(doc.results[0].latency_us.is_none());
}

#[test]
fn files_per_second_aggregates_count_operations() {
    let w = [
        window(0, 0.0, 2.0, 4_000_000),
        window(0, 1.0, 4.0, 8_000_000),
    ];
    let refs: Vec<&RankWindow> = w.iter().collect();
    let agg = window_aggregate(&refs, Unit::FilesPerSecond).unwrap();
    assert_eq!(agg.ops, 12);
    assert!((agg.rate - 3.0).abs() < 1e-12);
    assert!(window_aggregate(&[], Unit::MegabytesPerSecond).is_none());
}

#[test]
fn different_filesystems_are_refused_naming_the_rank() {
    let same = vec![
        (0, "a".to_string(), "fuse.sshfs on nas:/share".to_string()),
        (1, "b".to_string(), "fuse.sshfs on nas:/share".to_string()),
    ];
    assert!(check_same_filesystem(&same).is_ok());
    let mut other = same.clone();
    other.push((2, "c".into(), "ext4 on /dev/sda1".into()));
    let err = check_same_filesystem(&other).unwrap_err().to_string();
    assert!(err.contains("rank 2 on c sees ext4 on /dev/sda1"), "{err}");
}

#[test]
fn client_counts_and_tags() {
    assert_eq!(check_client_counts(&[], 3).unwrap(), vec![3]);
    assert_eq!(check_client_counts(&[1, 2, 3], 3).unwrap(), vec![1, 2, 3]);
    let err = check_client_counts(&[1, 4], 3).unwrap_err().to_string();
    assert!(err.contains("--clients 4"), "{err}");
    assert!(check_client_counts(&[0], 3).is_err());
    assert_eq!(scratch_tag(2, "node/1 x"), "r2-node_1_x");
}

#[test]
fn a_single_client_says_why() {
    assert!(
        single_client_note(false, Some("Open MPI's mpirun"), false)
            .unwrap()
            .contains("without the `mpi` feature")
    );
    assert!(single_client_note(false, None, false).is_none());
    assert!(single_client_note(false, None, true).is_some());
    assert!(
        single_client_note(true, None, false)
            .unwrap()
            .contains("not started by an MPI launcher")
    );
}

#[test]
fn the_verdict_judges_the_aggregate_and_names_each_clients_share() {
    let parts = vec![
        part(0, vec![window(0, 0.0, 10.0, 40_000_000)]),
        part(1, vec![window(0, 0.0, 10.0, 38_000_000)]),
        part(2, vec![window(0, 0.0, 10.0, 39_000_000)]),
    ];
    let how = Coordination {
        mpi_library: String::new(),
        stonewall: false,
    };
    let doc = combine(parts, &how);
    let verdict = crate::verdict::of(&doc);
    assert!((verdict.write_mb_s.unwrap() - 11.7).abs() < 1e-9);
    assert!(
        verdict.details[0].starts_with("3 clients on 2 host(s) share the destination")
            && verdict.details[0].contains("each client alone got 3.8-4 MB/s (median 3.9)"),
        "{:?}",
        verdict.details
    );
}
