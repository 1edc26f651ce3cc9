//! Samples, summaries, latency percentiles and throughput over time. Pure code: no I/O, no clock.

mod batch;
mod compare;
mod latency;
pub mod precision;
mod series;
pub mod steady;
mod trend;

pub use compare::{SIGNIFICANCE_LEVEL, Significance, format_p, welch};
pub use latency::{LatencyHistogram, LatencySummary};
pub use series::ThroughputSeries;
pub use trend::trend;

/// A coefficient of variation above this is reported as a large spread.
pub const NOISY_CV: f64 = 0.10;
/// A repetition further than this fraction from the median (and far in MAD terms) is an outlier.
pub const OUTLIER_MIN_DEVIATION: f64 = 0.10;
/// How many scaled median absolute deviations make an outlier.
pub const OUTLIER_MADS: f64 = 3.0;

/// The summary of one figure over the repetitions.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Summary {
    pub median: f64,
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    /// Sample standard deviation (n - 1); 0 for a single sample.
    pub stddev: f64,
    /// Coefficient of variation: stddev / mean (0 when the mean is 0).
    pub cv: f64,
}

/// Summarises samples; None for no samples.
pub fn summarize(samples: &[f64]) -> Option<Summary> {
    if samples.is_empty() {
        return None;
    }
    let n = samples.len() as f64;
    let mean = samples.iter().sum::<f64>() / n;
    let variance = if samples.len() > 1 {
        samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    let stddev = variance.sqrt();
    Some(Summary {
        median: median(samples),
        mean,
        min: samples.iter().copied().fold(f64::INFINITY, f64::min),
        max: samples.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        stddev,
        cv: if mean != 0.0 { stddev / mean } else { 0.0 },
    })
}

/// The median (mean of the middle two for an even count). Panics on an empty slice.
pub fn median(samples: &[f64]) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    if sorted.len().is_multiple_of(2) {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    } else {
        sorted[mid]
    }
}

/// Indexes of outlying repetitions: more than [`OUTLIER_MADS`] scaled median absolute deviations
/// and more than [`OUTLIER_MIN_DEVIATION`] from the median. Needs at least three samples.
pub fn outliers(samples: &[f64]) -> Vec<usize> {
    if samples.len() < 3 {
        return Vec::new();
    }
    let med = median(samples);
    let deviations: Vec<f64> = samples.iter().map(|x| (x - med).abs()).collect();
    // 1.4826 scales the MAD to a standard deviation for normal data.
    let scaled_mad = 1.4826 * median(&deviations);
    samples
        .iter()
        .enumerate()
        .filter(|&(_, &x)| {
            let deviation = (x - med).abs();
            deviation > OUTLIER_MADS * scaled_mad
                && med != 0.0
                && deviation / med.abs() > OUTLIER_MIN_DEVIATION
        })
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_known_samples() {
        let s = summarize(&[10.0, 20.0, 30.0, 40.0]).unwrap();
        assert_eq!(s.median, 25.0);
        assert_eq!(s.mean, 25.0);
        assert_eq!(s.min, 10.0);
        assert_eq!(s.max, 40.0);
        assert!((s.stddev - 12.909_944).abs() < 1e-5);
        assert!((s.cv - 0.516_397_7).abs() < 1e-6);
    }

    #[test]
    fn single_sample_has_no_spread() {
        let s = summarize(&[7.0]).unwrap();
        assert_eq!((s.median, s.stddev, s.cv), (7.0, 0.0, 0.0));
        assert!(summarize(&[]).is_none());
    }

    #[test]
    fn outlier_needs_both_mad_and_relative_distance() {
        assert_eq!(outliers(&[100.0, 101.0, 150.0]), vec![2]);
        assert!(
            outliers(&[100.0, 100.1, 101.0]).is_empty(),
            "1% is not an outlier"
        );
        assert!(
            outliers(&[100.0, 150.0]).is_empty(),
            "two samples cannot tell"
        );
        assert_eq!(outliers(&[50.0, 100.0, 101.0, 99.0, 100.5]), vec![0]);
    }
}
