//! The estimate model's tests, with exact numbers.

use super::terms::samples;
use super::*;

/// A destination with exactly these costs: a block device (slack costs as bytes do).
const TRUE: Costs = Costs {
    per_dir_s: 0.003,
    per_file_s: 0.002,
    bytes_per_s: 40e6,
    slack_s_per_byte: 1.0 / 40e6,
    start_s: 0.2,
    hidden_bytes_per_file: 0.0,
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
        sizes: None,
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

fn shape(histogram: &SizeHistogram, dirs: u64, symlinks: u64) -> TreeShape<'_> {
    TreeShape {
        histogram,
        dirs,
        symlinks,
        hard_links: 0,
    }
}

fn tree(counts: &[(u64, u64)]) -> SizeHistogram {
    SizeHistogram::of_counts(counts)
}

/// The five costs come back from the calibration shapes, and the tree's time is theirs
/// over its directories, files, bytes and slack, split into shares.
#[test]
fn the_five_costs_are_recovered_and_applied_to_the_tree() {
    let h = tree(&[(5000, 100), (300, 30_000), (2, 1 << 30)]);
    let shape = shape(&h, 700, 50);
    let e = estimate(shape, &calibration(&[1.0, 1.0]), "test", None).unwrap();
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
    // Exact measurements: no spread, no residual, so the width is the model's own error.
    assert!(
        (r.low / (truth * (1.0 - MODEL_ERROR)) - 1.0).abs() < 1e-6,
        "{r:?}"
    );
    assert!(
        (r.high / (truth * (1.0 + MODEL_ERROR)) - 1.0).abs() < 1e-6,
        "{r:?}"
    );
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
    let e = estimate(shape(&h, 2000, 0), &m, "test", None).unwrap();
    assert!(e.costs.slack_s_per_byte.abs() < 1e-15, "{:?}", e.costs);
    let truth = TRUE.seconds(2000, 20_000, 40_000_000, 40_000_000);
    assert!((e.predicted_seconds.expected / truth - 1.0).abs() < 1e-9);
    // The share first, the tool's flag in the command to measure it with.
    let said = &e.advice[0];
    assert!(
        said.contains("% of the time is per-file")
            && !said.starts_with('-')
            && said.contains("4 threads would take")
            && said.contains(&format!(
                "(measure it: {} parallel:4)",
                crate::settings::defs::TOOL
            )),
        "{said}"
    );
}

/// Sub-block files slower than the other sets explain (an sshfs share: the fit once put slack
/// at 0.9 MB/s beside data at 11.9 MB/s): slack may not cost more than data, so the fit keeps it
/// at most at the data rate and the tree's estimate stays near the truth.
#[test]
fn slack_never_costs_more_than_data() {
    // The tiny set's files cost more each than the aligned set's did.
    let m = share_calibration(1.5);
    let e = estimate(shape(&tree(&[(100, 1)]), 1, 0), &m, "test", None).unwrap();
    assert!(
        e.costs.slack_s_per_byte <= 1.0 / e.costs.bytes_per_s * (1.0 + 1e-9),
        "{:?}",
        e.costs
    );
    // Without the bound the slack term takes the tiny set's whole excess: 4.15 MB of slack at
    // far below the data rate.
    let free_fit = fit::solve(
        &samples(&m, None, 0.0).unwrap(),
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
    let plain = estimate(shape(&h, 10, 0), &calibration(&[1.0]), "t", None).unwrap();
    let mut linked = shape(&h, 10, 0);
    linked.hard_links = 500;
    let with_links = estimate(linked, &calibration(&[1.0]), "t", None).unwrap();
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
    let e = estimate(shape, &calibration(&[0.9, 1.0, 1.1]), "test", None).unwrap();
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
        estimate(shape, &same, "t", None),
        Err(FitError::OneShape { .. })
    ));
    assert!(matches!(
        estimate(shape, &[], "4 threads", None),
        Err(FitError::NoMeasurements { .. })
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
        sizes: None,
    };
    let m = [set("s", 1000, 10.0), set("l", 10, 20.0)];
    let h = SizeHistogram::default();
    let shape = shape(&h, 0, 0);
    assert!(matches!(
        estimate(shape, &m, "t", None),
        Err(FitError::Inconsistent { .. })
    ));
}

/// The calibration sets as `estimate --to` makes them (file sizes drawn the same way), each
/// copied twice in `seconds(dirs, sizes)` scaled by 0.98 and 1.02.
fn calibration_with_sizes(seconds: impl Fn(u64, &[u64]) -> f64) -> Vec<CopyMeasurement> {
    let mut rng = fastrand::Rng::with_seed(3);
    let sets: [(&str, u64, Vec<u64>); 5] = [
        ("empty", 0, vec![]),
        ("dirs", 420, vec![]),
        ("tiny", 42, (0..1600).map(|_| rng.u64(1..3000)).collect()),
        (
            "aligned",
            13,
            (0..600).map(|_| rng.u64(1..=16) * 4096).collect(),
        ),
        ("large", 2, vec![12_000_000; 4]),
    ];
    sets.into_iter()
        .map(|(name, dirs, sizes)| {
            let mut h = SizeHistogram::default();
            sizes.iter().for_each(|&size| h.add(size));
            let t = seconds(dirs, &sizes);
            CopyMeasurement {
                variant: name.into(),
                dirs,
                files: sizes.len() as u64,
                bytes: h.total_bytes(),
                block_bytes: h.total_block_bytes(),
                seconds: vec![0.98 * t, 1.02 * t],
                sizes: Some(h),
            }
        })
        .collect()
}

/// A tree of many small files and a few large ones, as /usr/share/doc is.
fn doc_like_tree() -> (SizeHistogram, Vec<u64>) {
    let mut rng = fastrand::Rng::with_seed(9);
    let sizes: Vec<u64> = (0..5000)
        .map(|i| match i % 50 {
            0 => rng.u64(200_000..2_000_000),
            1..=10 => rng.u64(20_000..100_000),
            _ => rng.u64(100..8_000),
        })
        .collect();
    let mut h = SizeHistogram::default();
    sizes.iter().for_each(|&size| h.add(size));
    (h, sizes)
}

/// A share that pipelines (sshfs): a file costs its fixed cost or its bytes' time, whichever
/// is longer, not both. The fit finds the overlap from the calibration sets' sizes, keeps the
/// link's bandwidth (an additive fit raised it to pay for per-file costs it put on every
/// file) and predicts the tree within 3%.
#[test]
fn a_share_that_pipelines_is_fitted_with_its_overlap() {
    let (per_dir, per_file, rate): (f64, f64, f64) = (0.002, 0.0019, 11.9e6);
    let pipelined = |dirs: u64, sizes: &[u64]| {
        0.01 + dirs as f64 * per_dir
            + sizes
                .iter()
                .map(|&s| per_file.max(s as f64 / rate))
                .sum::<f64>()
    };
    let m = calibration_with_sizes(pipelined);
    let (h, sizes) = doc_like_tree();
    let e = estimate(shape(&h, 1000, 0), &m, "t", None).unwrap();
    let truth = pipelined(1000, &sizes);
    let hidden = per_file * rate;
    assert!(
        (e.costs.hidden_bytes_per_file / hidden - 1.0).abs() < 0.25,
        "overlap {} where {hidden:.0} B cross during a file's fixed cost",
        e.costs.hidden_bytes_per_file
    );
    assert!(
        (e.costs.bytes_per_s / rate - 1.0).abs() < 0.03,
        "{:?}",
        e.costs
    );
    let ratio = e.predicted_seconds.expected / truth;
    assert!((ratio - 1.0).abs() < 0.03, "{ratio}: {:?}", e.costs);
    // Without the sizes (a stored run's sets) only the additive form can be fitted, and it
    // shows what the overlap corrects: a bandwidth above the link's, to pay for the per-file
    // cost it puts on every file (the lab's sshfs share: 14.6 MB/s over a 12.5 MB/s link).
    let blind: Vec<CopyMeasurement> = m
        .iter()
        .cloned()
        .map(|m| CopyMeasurement { sizes: None, ..m })
        .collect();
    let additive = estimate(shape(&h, 1000, 0), &blind, "t", None).unwrap();
    assert_eq!(additive.costs.hidden_bytes_per_file, 0.0);
    assert!(
        additive.costs.bytes_per_s > 1.1 * rate,
        "{:?}",
        additive.costs
    );
}

/// A disk, where the data waits in the page cache and the costs add up: with the sizes known
/// the fit still finds no overlap worth its parameter.
#[test]
fn a_disk_where_costs_add_up_keeps_no_overlap() {
    let additive = |dirs: u64, sizes: &[u64]| {
        let bytes: u64 = sizes.iter().sum();
        let blocks: u64 = sizes.iter().map(|s| s.div_ceil(4096) * 4096).sum();
        TRUE.seconds(dirs, sizes.len() as u64, bytes, blocks)
    };
    let m = calibration_with_sizes(additive);
    let (h, sizes) = doc_like_tree();
    let e = estimate(shape(&h, 1000, 0), &m, "t", None).unwrap();
    assert_eq!(e.costs.hidden_bytes_per_file, 0.0, "{:?}", e.costs);
    let ratio = e.predicted_seconds.expected / additive(1000, &sizes);
    assert!((ratio - 1.0).abs() < 0.01, "{ratio}");
}

/// Copies of one set far apart say the destination changed under the measurement, naming the
/// set and its times; copies within the usual spread, or too short to judge, say nothing.
#[test]
fn copies_far_apart_are_reported_as_an_unsteady_destination() {
    let h = tree(&[(1000, 10_000)]);
    let steady = estimate(shape(&h, 100, 0), &calibration(&[0.9, 1.1]), "test", None).unwrap();
    assert!(
        steady.advice.iter().all(|a| !a.contains("speed changed")),
        "{:?}",
        steady.advice
    );
    let mut sets = calibration(&[1.0, 1.0]);
    // The tiny set's first copy straight after a deletion of many files: 1.7x the second.
    sets[2].seconds[0] *= 1.7;
    // Copies of milliseconds (an empty set on a fast disk): their ratio means nothing.
    sets[0].seconds = vec![0.003, 0.009];
    let e = estimate(shape(&h, 100, 0), &sets, "test", None).unwrap();
    let said: Vec<&String> = e
        .advice
        .iter()
        .filter(|a| a.contains("speed changed"))
        .collect();
    assert_eq!(said.len(), 1, "{:?}", e.advice);
    let tiny = TRUE.seconds(42, 1600, 2_400_000, 6_553_600);
    assert!(
        said[0].contains("the tiny set's copies")
            && said[0].contains(&format!("{tiny:.2} s to {:.2} s", tiny * 1.7)),
        "{}",
        said[0]
    );
}

/// The source's miniature is not fitted to: where its copies took longer than the model says,
/// the tree's time beyond the copy's start is scaled by their mean ratio, the interval's ends
/// by the fastest's and the slowest's; where they took what the model says, nothing changes.
#[test]
fn the_miniature_scales_the_time_the_model_gives_a_tree_of_its_shape() {
    let h = tree(&[(5000, 100), (300, 30_000)]);
    let block_bytes = 5000 * 4096 + 300 * 32_768;
    let bytes = 5000 * 100 + 300 * 30_000;
    let truth = TRUE.seconds(700, 5300, bytes, block_bytes);
    let like = tree(&[(500, 100), (30, 30_000)]);
    let with = |mini: &SizeHistogram, ratios: &[f64]| {
        let model = TRUE.seconds(70, 530, mini.total_bytes(), mini.total_block_bytes());
        let mut m = calibration(&[1.0, 1.0]);
        m.push(CopyMeasurement {
            variant: MINIATURE.into(),
            dirs: 70,
            files: 530,
            bytes: mini.total_bytes(),
            block_bytes: mini.total_block_bytes(),
            seconds: ratios
                .iter()
                .map(|r| TRUE.start_s + r * (model - TRUE.start_s))
                .collect(),
            sizes: Some(mini.clone()),
        });
        estimate(shape(&h, 700, 0), &m, "test", None).unwrap()
    };
    let model = TRUE.seconds(70, 530, like.total_bytes(), like.total_block_bytes());
    let slow = with(&like, &[1.1, 1.2]);
    // The model's costs are the sets' alone.
    assert!((slow.costs.per_file_s / TRUE.per_file_s - 1.0).abs() < 1e-6);
    let check = slow.miniature.as_ref().unwrap();
    assert!(
        (check.model_seconds / model - 1.0).abs() < 1e-9,
        "{check:?}"
    );
    assert!((check.ratio - 1.15).abs() < 1e-9, "{check:?}");
    let scaled = |t: f64, r: f64| TRUE.start_s + r * (t - TRUE.start_s);
    let p = slow.predicted_seconds;
    assert!(
        (p.expected / scaled(truth, 1.15) - 1.0).abs() < 1e-9,
        "{p:?}"
    );
    // The ends: the model's own error either side, scaled by the slowest and fastest copy.
    let (low, high) = (truth * (1.0 - MODEL_ERROR), truth * (1.0 + MODEL_ERROR));
    assert!((p.low / scaled(low, 1.1) - 1.0).abs() < 1e-9, "{p:?}");
    assert!((p.high / scaled(high, 1.2) - 1.0).abs() < 1e-9, "{p:?}");
    assert!((slow.shares.total() / p.expected - 1.0).abs() < 1e-9);
    let class_sum: f64 = slow.classes.iter().map(|c| c.expected_seconds).sum();
    assert!((class_sum + TRUE.start_s + slow.shares.directories_s - p.expected).abs() < 1e-9);
    let right = with(&like, &[1.0, 1.0]);
    assert!((right.predicted_seconds.expected / truth - 1.0).abs() < 1e-9);
    // A miniature of other sizes than the tree's is not its shape: measured, not applied.
    let unlike = with(&tree(&[(530, 100_000)]), &[1.5, 1.5]);
    let check = unlike.miniature.as_ref().unwrap();
    assert!((check.ratio - 1.5).abs() < 1e-9, "{check:?}");
    assert!(
        check
            .not_applied
            .as_ref()
            .unwrap()
            .contains("not the tree's shape")
    );
    assert!((unlike.predicted_seconds.expected / truth - 1.0).abs() < 1e-9);
}
