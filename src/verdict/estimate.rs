//! How long a first full backup of a tree will take on a destination: a two-parameter model
//! fitted to the measured `files-copy` repetitions, applied to the tree's size histogram. Pure
//! code, tested with exact numbers.
//!
//! # The model
//!
//! Copying a tree costs a fixed time per file (create, metadata, the round trip of a network
//! share, a directory now and then) plus its bytes at the destination's bandwidth:
//!
//! ```text
//! time = files × per_file_s + bytes × s_per_byte
//! ```
//!
//! Each copy repetition is one equation in the two unknowns. Sets with different mean file
//! sizes (small and large, or small and mixed) separate them; a least-squares fit weighted by
//! 1/time² (so every repetition counts by its relative error) gives both. With sets of one
//! mean size only, the two cannot be told apart and the estimate refuses rather than guess.
//!
//! Because the model is linear, the prediction for a tree is the sum over its size classes,
//! and each class's effective rate (`mean size / (per_file_s + mean size × s_per_byte)`) shows
//! where the time goes: small files are bound by the per-file cost, large ones by bandwidth.
//!
//! The range: `expected` is the fit to each set's median repetition time; `low` and `high` are
//! fits to each set's fastest and slowest repetition. The model leaves out what the measured
//! sets do not show (a source slower than the page cache, a destination that slows when it
//! fills or heats up, see `sustained`), so the range is widened to at least
//! [`MODEL_MARGIN`] either side of `expected`.

use serde::Serialize;

use crate::results::RunReport;
use crate::tree::scan::SizeHistogram;
use crate::workload::TestId;

/// The least the range extends either side of the expected time, as a fraction of it.
pub const MODEL_MARGIN: f64 = 0.15;

/// Where one destination's measurements came from.
#[derive(Debug, Clone, Serialize)]
pub struct Origin {
    pub destination: String,
    /// The stored run, for `--run`.
    pub run_id: Option<i64>,
    /// Measured by this command (`--to`).
    pub measured_now: bool,
}

/// One destination's estimate, or why there is none.
pub struct DestinationEstimate {
    pub origin: Origin,
    pub measurements: Vec<CopyMeasurement>,
    pub estimate: Result<Estimate, String>,
}

/// The write-cache-on copies with `threads` threads of a run: the inputs of the model, from a
/// run just measured or a stored one alike.
pub fn copy_measurements(run: &RunReport, threads: usize) -> Vec<CopyMeasurement> {
    let wanted = format!("-{threads}t-cache-on");
    run.results
        .iter()
        .filter(|r| r.test == TestId::FilesCopy && r.threads == threads)
        .filter(|r| r.variant.ends_with(&wanted))
        .filter_map(|r| {
            let set = r.file_set.as_ref()?;
            Some(CopyMeasurement {
                variant: r.variant.clone(),
                files: set.files,
                bytes: set.bytes,
                // A repetition may have copied the set several times to last --min-time.
                seconds: r
                    .repetitions
                    .iter()
                    .map(|rep| rep.elapsed_s / rep.passes.unwrap_or(1).max(1) as f64)
                    .collect(),
            })
        })
        .collect()
}

/// One measured copy repetition of one file set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CopySample {
    pub files: u64,
    pub bytes: u64,
    pub seconds: f64,
}

/// The repetitions of one copy variant (one set, one thread count, one cache mode).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CopyMeasurement {
    /// The variant name, e.g. `small-1t-cache-on`.
    pub variant: String,
    pub files: u64,
    pub bytes: u64,
    /// Seconds of each repetition.
    pub seconds: Vec<f64>,
}

/// The fitted costs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Costs {
    pub per_file_s: f64,
    /// Bytes per second of the bandwidth term (10^6 = 1 MB/s).
    pub bytes_per_s: f64,
}

impl Costs {
    pub fn seconds(&self, files: u64, bytes: u64) -> f64 {
        files as f64 * self.per_file_s + bytes as f64 / self.bytes_per_s
    }
}

/// One size class of the tree, with what the model says of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassEstimate {
    pub low_bytes: u64,
    /// None for the open last class.
    pub high_bytes: Option<u64>,
    pub files: u64,
    pub bytes: u64,
    pub expected_seconds: f64,
    /// Bytes over the class's expected time, MB/s.
    pub rate_mb_s: f64,
    pub files_per_s: f64,
}

/// A prediction with its range.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Range {
    pub low: f64,
    pub expected: f64,
    pub high: f64,
}

/// The estimate for one destination.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    pub predicted_seconds: Range,
    /// The costs fitted to the median, fastest and slowest repetitions.
    pub costs: Costs,
    pub costs_fast: Costs,
    pub costs_slow: Costs,
    pub classes: Vec<ClassEstimate>,
}

/// Why no estimate could be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EstimateError {
    #[error("no files-copy results to estimate from (with write cache on and {threads} thread(s))")]
    NoMeasurements { threads: usize },
    #[error(
        "the files-copy results cover file sets of one mean file size only ({sets}): the per-file cost and the bandwidth cannot be told apart; measure two sets of different file sizes (e.g. --sets small,large)"
    )]
    OneShape { sets: String },
    #[error("the files-copy results contradict the model (a negative cost): {detail}")]
    Inconsistent { detail: String },
}

/// Fits `time = files × a + bytes × b` by least squares with weights 1/time²; None when the
/// samples do not determine both unknowns or give a negative one.
pub fn fit(samples: &[CopySample]) -> Option<Costs> {
    let (mut ff, mut fb, mut bb, mut ft, mut bt) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for s in samples.iter().filter(|s| s.seconds > 0.0) {
        let w = 1.0 / (s.seconds * s.seconds);
        let (f, b, t) = (s.files as f64, s.bytes as f64, s.seconds);
        ff += w * f * f;
        fb += w * f * b;
        bb += w * b * b;
        ft += w * f * t;
        bt += w * b * t;
    }
    let det = ff * bb - fb * fb;
    // Collinear samples (one mean file size): the determinant vanishes relative to its terms.
    if det.is_nan() || det <= 1e-9 * ff * bb {
        return None;
    }
    let per_file = (ft * bb - bt * fb) / det;
    let per_byte = (ff * bt - fb * ft) / det;
    (per_file >= 0.0 && per_byte > 0.0).then(|| Costs {
        per_file_s: per_file,
        bytes_per_s: 1.0 / per_byte,
    })
}

/// One sample per measurement, its repetitions reduced by `pick` (median, min or max).
fn reduced(measurements: &[CopyMeasurement], pick: fn(&[f64]) -> f64) -> Vec<CopySample> {
    measurements
        .iter()
        .filter(|m| !m.seconds.is_empty())
        .map(|m| CopySample {
            files: m.files,
            bytes: m.bytes,
            seconds: pick(&m.seconds),
        })
        .collect()
}

fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

fn max(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

/// Fits the model to `measurements` and predicts the tree of `histogram`.
pub fn estimate(
    histogram: &SizeHistogram,
    measurements: &[CopyMeasurement],
    threads: usize,
) -> Result<Estimate, EstimateError> {
    if measurements.iter().all(|m| m.seconds.is_empty()) {
        return Err(EstimateError::NoMeasurements { threads });
    }
    let mean_sizes: Vec<f64> = measurements
        .iter()
        .map(|m| m.bytes as f64 / m.files.max(1) as f64)
        .collect();
    let smallest = min(&mean_sizes);
    // Sets whose mean file sizes are within 2x of each other barely separate the two costs.
    if max(&mean_sizes) < 2.0 * smallest {
        let sets: Vec<&str> = measurements.iter().map(|m| m.variant.as_str()).collect();
        return Err(EstimateError::OneShape {
            sets: sets.join(", "),
        });
    }
    let fit_or = |pick: fn(&[f64]) -> f64, which: &str| {
        fit(&reduced(measurements, pick)).ok_or_else(|| EstimateError::Inconsistent {
            detail: format!(
                "fitting the {which} repetitions of {}",
                measurements
                    .iter()
                    .map(|m| format!("{} ({:?} s)", m.variant, m.seconds))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        })
    };
    let costs = fit_or(crate::stats::median, "median")?;
    let costs_fast = fit_or(min, "fastest")?;
    let costs_slow = fit_or(max, "slowest")?;
    let (files, bytes) = (histogram.total_files(), histogram.total_bytes());
    let expected = costs.seconds(files, bytes);
    let low = costs_fast
        .seconds(files, bytes)
        .min(expected * (1.0 - MODEL_MARGIN));
    let high = costs_slow
        .seconds(files, bytes)
        .max(expected * (1.0 + MODEL_MARGIN));
    let classes = (0..histogram.files.len())
        .filter(|&c| histogram.files[c] > 0)
        .map(|c| {
            let (low_bytes, high_bytes) = SizeHistogram::class_range(c);
            let (f, b) = (histogram.files[c], histogram.bytes[c]);
            let seconds = costs.seconds(f, b);
            ClassEstimate {
                low_bytes,
                high_bytes,
                files: f,
                bytes: b,
                expected_seconds: seconds,
                rate_mb_s: if seconds > 0.0 {
                    b as f64 / seconds / 1e6
                } else {
                    0.0
                },
                files_per_s: if seconds > 0.0 {
                    f as f64 / seconds
                } else {
                    0.0
                },
            }
        })
        .collect();
    Ok(Estimate {
        predicted_seconds: Range {
            low,
            expected,
            high,
        },
        costs,
        costs_fast,
        costs_slow,
        classes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Repetitions of a destination with exactly these costs, scaled by `factors`.
    fn measured(
        variant: &str,
        files: u64,
        bytes: u64,
        costs: Costs,
        factors: &[f64],
    ) -> CopyMeasurement {
        CopyMeasurement {
            variant: variant.into(),
            files,
            bytes,
            seconds: factors
                .iter()
                .map(|f| f * costs.seconds(files, bytes))
                .collect(),
        }
    }

    const TRUE: Costs = Costs {
        per_file_s: 0.002,
        bytes_per_s: 40e6,
    };

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

    #[test]
    fn fit_recovers_known_costs() {
        let got = fit(&[
            CopySample {
                files: 1000,
                bytes: 50_000_000,
                seconds: TRUE.seconds(1000, 50_000_000),
            },
            CopySample {
                files: 10,
                bytes: 120_000_000,
                seconds: TRUE.seconds(10, 120_000_000),
            },
        ])
        .unwrap();
        assert!((got.per_file_s - 0.002).abs() < 1e-9, "{got:?}");
        assert!((got.bytes_per_s - 40e6).abs() < 1e-3, "{got:?}");
    }

    #[test]
    fn prediction_is_the_model_over_the_histogram_with_a_range() {
        let m = [
            measured(
                "small-1t-cache-on",
                1000,
                50_000_000,
                TRUE,
                &[1.0, 0.9, 1.2],
            ),
            measured("large-1t-cache-on", 10, 120_000_000, TRUE, &[1.0, 0.9, 1.2]),
        ];
        let mut h = SizeHistogram::default();
        for _ in 0..5000 {
            h.add(2000);
        }
        h.add(1 << 30);
        let e = estimate(&h, &m, 1).unwrap();
        let truth = TRUE.seconds(5001, 5000 * 2000 + (1 << 30));
        let r = e.predicted_seconds;
        assert!(
            (r.expected - truth).abs() / truth < 1e-9,
            "{r:?} vs {truth}"
        );
        assert!(
            (r.low - 0.85 * truth).abs() / truth < 1e-9,
            "margin wins over 0.9: {r:?}"
        );
        assert!(
            (r.high - 1.2 * truth).abs() / truth < 1e-9,
            "spread wins over 1.15: {r:?}"
        );
        assert_eq!(e.classes.len(), 2);
        // Small files are bound by the per-file cost, the large one by bandwidth.
        assert!(
            e.classes[0].rate_mb_s < 1.0 && e.classes[1].rate_mb_s > 39.0,
            "{:?}",
            e.classes
        );
    }

    #[test]
    fn one_file_shape_or_none_refuses() {
        let h = SizeHistogram::default();
        let same = [
            measured("a", 100, 10_000_000, TRUE, &[1.0]),
            measured("b", 200, 20_000_000, TRUE, &[1.0]),
        ];
        assert!(matches!(
            estimate(&h, &same, 1),
            Err(EstimateError::OneShape { .. })
        ));
        assert!(matches!(
            estimate(&h, &[], 4),
            Err(EstimateError::NoMeasurements { threads: 4 })
        ));
        assert!(
            fit(&[CopySample {
                files: 1,
                bytes: 1,
                seconds: 1.0
            }])
            .is_none()
        );
    }

    #[test]
    fn a_large_set_slower_per_byte_than_a_small_one_is_inconsistent() {
        // More bytes in fewer files, yet slower than bandwidth allows: the fit goes negative.
        let m = [
            CopyMeasurement {
                variant: "s".into(),
                files: 1000,
                bytes: 10_000_000,
                seconds: vec![10.0],
            },
            CopyMeasurement {
                variant: "l".into(),
                files: 10,
                bytes: 10_000_000,
                seconds: vec![20.0],
            },
        ];
        assert!(matches!(
            estimate(&SizeHistogram::default(), &m, 1),
            Err(EstimateError::Inconsistent { .. })
        ));
    }
}
