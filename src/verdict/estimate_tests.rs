//! The estimate model's tests, with exact numbers.

use super::*;

/// A destination with exactly these costs: a block device (slack costs as bytes do).
const TRUE: Costs = Costs {
    per_dir_s: 0.003,
    per_file_s: 0.002,
    bytes_per_s: 40e6,
    slack_s_per_byte: 1.0 / 40e6,
    start_s: 0.2,
};

/// Repetitions of a set on `TRUE`, scaled by `factors`.
fn measured(variant: &str, shape: [u64; 4], factors: &[f64]) -> CopyMeasurement {
    let [dirs, files, bytes, block_bytes] = shape;
    CopyMeasurement {
        variant: variant.into(),
        dirs,
        files,
        bytes,
        block_bytes,
        seconds: factors
            .iter()
            .map(|f| f * TRUE.seconds(dirs, files, bytes, block_bytes))
            .collect(),
    }
}

/// The calibration shapes of `estimate --to`, in small.
fn calibration(factors: &[f64]) -> Vec<CopyMeasurement> {
    vec![
        measured("empty", [0, 0, 0, 0], factors),
        measured("dirs", [420, 0, 0, 0], factors),
        measured("tiny", [42, 1600, 2_400_000, 6_553_600], factors),
        measured("aligned", [13, 600, 20_000_000, 20_000_000], factors),
        measured("large", [1, 4, 48_000_000, 48_000_000], factors),
    ]
}

/// A repetition that copied the set 4 times to last --min-time is 4 copies, not one.
#[test]
fn a_repetition_of_several_passes_is_one_copy_per_pass() {
    let run: RunReport = serde_json::from_value(serde_json::json!({
        "schema": "destbench.run/1",
        "destination": { "path": "/mnt" },
        "results": [ { "test": "files-copy", "variant": "small-1t-cache-on", "threads": 1,
            "method": "syncfs", "engine": "sync",
            "file_set": { "name": "small", "files": 100, "bytes": 1_000_000 },
            "repetitions": [ { "elapsed_s": 1.2, "passes": 4 }, { "elapsed_s": 0.5 } ] } ]
    }))
    .unwrap();
    let m = copy_measurements(&run, 1);
    assert_eq!((m[0].files, m[0].bytes), (100, 1_000_000));
    assert_eq!(m[0].seconds, vec![0.3, 0.5]);
}

fn shape(histogram: &SizeHistogram, dirs: u64, symlinks: u64) -> TreeShape<'_> {
    TreeShape {
        histogram,
        dirs,
        symlinks,
        hard_links: 0,
    }
}

fn tree(sizes: &[(u64, u64)]) -> SizeHistogram {
    let mut h = SizeHistogram::default();
    for &(count, size) in sizes {
        for _ in 0..count {
            h.add(size);
        }
    }
    h
}

/// The five costs come back from the calibration shapes, and the tree's time is theirs
/// over its directories, files, bytes and slack, split into shares.
#[test]
fn the_five_costs_are_recovered_and_applied_to_the_tree() {
    let h = tree(&[(5000, 100), (300, 30_000), (2, 1 << 30)]);
    let shape = shape(&h, 700, 50);
    let e = estimate(shape, &calibration(&[1.0, 1.0]), "test").unwrap();
    for (got, want) in [
        (e.costs.per_dir_s, TRUE.per_dir_s),
        (e.costs.per_file_s, TRUE.per_file_s),
        (e.costs.bytes_per_s, TRUE.bytes_per_s),
        (e.costs.slack_s_per_byte, TRUE.slack_s_per_byte),
        (e.costs.start_s, TRUE.start_s),
    ] {
        assert!((got / want - 1.0).abs() < 1e-6, "{:?}", e.costs);
    }
    let block_bytes = 5000 * 4096 + 300 * 32_768 + 2 * (1 << 30);
    let bytes = 5000 * 100 + 300 * 30_000 + 2 * (1 << 30);
    let truth = TRUE.seconds(700, 5352, bytes, block_bytes);
    let r = e.predicted_seconds;
    assert!((r.expected / truth - 1.0).abs() < 1e-9, "{r:?} vs {truth}");
    // Exact measurements: no spread, no residual, so no width.
    assert!((r.high - r.low) / truth < 1e-6, "{r:?}");
    assert!((e.shares.total() / truth - 1.0).abs() < 1e-9);
    assert!((e.shares.directories_s - 700.0 * 0.003).abs() < 1e-6);
    assert!((e.shares.per_file_s - 5352.0 * 0.002).abs() < 1e-6);
    // A 100 B file costs its whole block on a block device: the small class is slow.
    assert!(e.classes[0].rate_mb_s < 0.1, "{:?}", e.classes);
    // Bandwidth dominates (two 1 GiB files): the advice says what a faster link gives.
    assert_eq!(e.advice.len(), 1, "{:?}", e.advice);
    assert!(
        e.advice[0].contains("bandwidth (40.0 MB/s)"),
        "{:?}",
        e.advice
    );
}

/// The calibration sets copied to a share, which sends only the bytes (slack is free), with the
/// tiny set's copy `tiny_factor` times slower.
fn share_calibration(tiny_factor: f64) -> Vec<CopyMeasurement> {
    let mut m = calibration(&[1.0]);
    for x in &mut m {
        let free = TRUE.seconds(x.dirs, x.files, x.bytes, x.bytes);
        x.seconds = vec![
            free * if x.variant == "tiny" {
                tiny_factor
            } else {
                1.0
            },
        ];
    }
    m
}

/// A share sends only the bytes: with slack free the fit leaves the slack term at 0, and
/// per-file-bound trees get the threads advice.
#[test]
fn slack_that_costs_nothing_is_left_out_and_overhead_gets_advice() {
    let m = share_calibration(1.0);
    let h = tree(&[(20_000, 2000)]);
    let e = estimate(shape(&h, 2000, 0), &m, "test").unwrap();
    assert!(e.costs.slack_s_per_byte.abs() < 1e-15, "{:?}", e.costs);
    let truth = TRUE.seconds(2000, 20_000, 40_000_000, 40_000_000);
    assert!((e.predicted_seconds.expected / truth - 1.0).abs() < 1e-9);
    assert!(
        e.advice[0].contains("4 threads would take"),
        "{:?}",
        e.advice
    );
}

/// Sub-block files slower than the other sets explain (an sshfs share: the fit once put slack
/// at 0.9 MB/s beside data at 11.9 MB/s): slack may not cost more than data, so the fit keeps it
/// at most at the data rate and the tree's estimate stays near the truth.
#[test]
fn slack_never_costs_more_than_data() {
    // The tiny set's files cost more each than the aligned set's did.
    let m = share_calibration(1.5);
    let e = estimate(shape(&tree(&[(100, 1)]), 1, 0), &m, "test").unwrap();
    assert!(
        e.costs.slack_s_per_byte <= 1.0 / e.costs.bytes_per_s * (1.0 + 1e-9),
        "{:?}",
        e.costs
    );
    // Without the bound the slack term takes the tiny set's whole excess: 4.15 MB of slack at
    // far below the data rate.
    let free_fit = fit::solve(
        &samples(&m, None),
        &[FILES, BYTES, SLACK, DIRS, START],
        TERMS,
    )
    .unwrap();
    assert!(free_fit[SLACK] > 2.0 * free_fit[BYTES], "{free_fit:?}");
}

/// A name made as a hard link costs a file without data: the per-file cost, no bandwidth.
#[test]
fn hard_links_cost_a_file_without_data() {
    let h = tree(&[(1000, 10_000)]);
    let plain = estimate(shape(&h, 10, 0), &calibration(&[1.0]), "t").unwrap();
    let mut linked = shape(&h, 10, 0);
    linked.hard_links = 500;
    let with_links = estimate(linked, &calibration(&[1.0]), "t").unwrap();
    let extra = with_links.predicted_seconds.expected - plain.predicted_seconds.expected;
    assert!((extra - 500.0 * TRUE.per_file_s).abs() < 1e-6, "{extra}");
    assert_eq!(with_links.shares.bandwidth_s, plain.shares.bandwidth_s);
}

/// Spread repetitions widen the interval to the fastest and slowest fits and to twice the
/// residual; the expected time lies inside.
#[test]
fn the_interval_comes_from_the_spread_and_the_residuals() {
    let h = tree(&[(1000, 10_000)]);
    let shape = shape(&h, 100, 0);
    let e = estimate(shape, &calibration(&[0.9, 1.0, 1.1]), "test").unwrap();
    let r = e.predicted_seconds;
    let truth = TRUE.seconds(100, 1000, 10_000_000, 1000 * 12_288);
    assert!(e.residual > 0.05 && e.residual < 0.1, "{}", e.residual);
    assert!(
        r.low <= 0.9 * truth * 1.0001 && r.high >= 1.1 * truth * 0.9999,
        "{r:?}"
    );
    assert!(
        r.low <= r.expected * (1.0 - 2.0 * e.residual) + 1e-9,
        "{r:?}"
    );
    assert!(r.low < r.expected && r.expected < r.high);
}

#[test]
fn one_file_shape_or_none_refuses() {
    let h = SizeHistogram::default();
    let shape = shape(&h, 0, 0);
    let same = [
        measured("a", [0, 100, 10_000_000, 10_000_000], &[1.0]),
        measured("b", [0, 200, 20_000_000, 20_000_000], &[1.0]),
    ];
    assert!(matches!(
        estimate(shape, &same, "t"),
        Err(EstimateError::OneShape { .. })
    ));
    assert!(matches!(
        estimate(shape, &[], "4 threads"),
        Err(EstimateError::NoMeasurements { .. })
    ));
}

#[test]
fn a_large_set_slower_per_byte_than_a_small_one_is_inconsistent() {
    // More bytes in fewer files, yet slower than bandwidth allows: the fit goes negative.
    let set = |variant: &str, files, seconds| CopyMeasurement {
        variant: variant.into(),
        dirs: 0,
        files,
        bytes: 10_000_000,
        block_bytes: 10_000_000,
        seconds: vec![seconds],
    };
    let m = [set("s", 1000, 10.0), set("l", 10, 20.0)];
    let h = SizeHistogram::default();
    let shape = shape(&h, 0, 0);
    assert!(matches!(
        estimate(shape, &m, "t"),
        Err(EstimateError::Inconsistent { .. })
    ));
}
