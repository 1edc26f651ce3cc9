//! How well the repetitions know their median: the half-width of its 95% confidence interval,
//! as a fraction of the median, and how it was found ([`PrecisionMethod`]). Pure code.
//!
//! Where each repetition has a throughput series that its figure is the rate of, the series
//! say it ([`super::batch`]); from three repetitions on the figures too, and the narrower of
//! the two intervals is stated (each at 97.5%, so that the one stated is a 95% interval);
//! elsewhere the figures alone say it.
//!
//! The figures' interval is the normal-theory one for a median: the sample median's standard error is
//! `sqrt(pi / 2) * s / sqrt(n)` for normal data (its asymptotic efficiency against the mean is
//! 2/pi), taken with Student's t at `n - 1` degrees of freedom so that two or three repetitions
//! pay for what they do not know. The distribution-free interval from order statistics would
//! need six repetitions before any 95% interval exists (`1 - 2 * 0.5^n >= 0.95` from n = 6), more
//! than a 90-second run can give every variant; an outlier widens this interval through `s`, so
//! a noisy variant is never called precise for it.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// The confidence of the interval.
pub const CONFIDENCE: f64 = 0.95;

/// What a result's precision was computed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PrecisionMethod {
    /// The repetitions' figures alone: Student's t at `n - 1` degrees of freedom.
    Repetitions,
    /// Batch means of the repetitions' throughput series, pooled, never tighter than the
    /// figures' own spread says ([`super::batch`]).
    BatchMeans,
}

/// A median's 95% half-width (a fraction of the median) and how it was found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Precision {
    pub half_width: f64,
    pub method: PrecisionMethod,
}

/// The precision of the median of `figures`: from batch means where `series` holds, for every
/// figure, the series (complete intervals) it is the rate of and they are long enough; from
/// the figures alone otherwise, and also from three figures on, when the narrower of the two
/// is stated, each at half the error rate (Bonferroni: of two intervals that each miss at most
/// 2.5% of the time, either misses at most 5%). Batch means know two repetitions of a steady
/// series well; three or more figures see through series whose points trade off (a queue that
/// completes in clumps), and two figures that happen to agree say too little to be preferred.
/// None below two figures or for a median of zero.
pub fn of(figures: &[f64], series: Option<&[&[f64]]>) -> Option<Precision> {
    let median = super::summarize(figures)?.median;
    let steady: Option<Vec<&[f64]>> =
        series.map(|s| s.iter().map(|x| super::batch::steady_part(x)).collect());
    let batched = steady.and_then(|s| super::batch::estimate(figures, &s));
    let both = batched.is_some() && figures.len() >= 3;
    let confidence = if both {
        1.0 - (1.0 - CONFIDENCE) / 2.0
    } else {
        CONFIDENCE
    };
    let by_batches = batched
        .and_then(|b| b.half_width(figures.len(), median, confidence))
        .map(|half_width| Precision {
            half_width,
            method: PrecisionMethod::BatchMeans,
        });
    let by_figures = (batched.is_none() || both)
        .then(|| median_half_width(figures, confidence))
        .flatten()
        .map(|half_width| Precision {
            half_width,
            method: PrecisionMethod::Repetitions,
        });
    [by_batches, by_figures]
        .into_iter()
        .flatten()
        .min_by(|a, b| a.half_width.total_cmp(&b.half_width))
}

/// Half-width of the `confidence` interval of the median, as a fraction of the median; None
/// below two samples (no spread can be estimated) or for a median of zero.
pub fn median_half_width(samples: &[f64], confidence: f64) -> Option<f64> {
    let spread = relative_spread(samples)?;
    half_width_of(spread, samples.len(), confidence)
}

/// Whether more repetitions like `figures`, at most `most` in all, can bring the figures' own
/// interval (at 97.5%, as from three figures on) within `target`, a fraction of the median:
/// with their spread as it is, `t(m-1) * sqrt(pi/2) * s / sqrt(m)` for some `m` up to `most`.
/// Figures that scatter widely never get there, however many run.
pub fn within_reach(figures: &[f64], target: f64, most: usize) -> bool {
    let Some(spread) = relative_spread(figures) else {
        return false;
    };
    let confidence = 1.0 - (1.0 - CONFIDENCE) / 2.0;
    (figures.len() + 1..=most)
        .any(|m| half_width_of(spread, m, confidence).is_some_and(|h| h <= target))
}

/// The standard deviation of `samples` over their median; None below two samples or for a
/// median of zero.
fn relative_spread(samples: &[f64]) -> Option<f64> {
    let summary = super::summarize(samples)?;
    (samples.len() >= 2 && summary.median != 0.0).then(|| summary.stddev / summary.median.abs())
}

/// The median's half-width, a fraction of it, for `n` samples of relative spread `spread`:
/// `t(n-1) * sqrt(pi/2) * spread / sqrt(n)`.
fn half_width_of(spread: f64, n: usize, confidence: f64) -> Option<f64> {
    let t = StudentsT::new(0.0, 1.0, (n - 1) as f64)
        .ok()?
        .inverse_cdf(0.5 + confidence / 2.0);
    Some(t * (std::f64::consts::PI / 2.0).sqrt() * spread / (n as f64).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_sample_or_a_zero_median_has_no_precision() {
        assert_eq!(median_half_width(&[], CONFIDENCE), None);
        assert_eq!(median_half_width(&[100.0], CONFIDENCE), None);
        assert_eq!(median_half_width(&[0.0, 0.0, 0.0], CONFIDENCE), None);
    }

    #[test]
    fn identical_samples_are_exact() {
        assert_eq!(median_half_width(&[50.0, 50.0], CONFIDENCE), Some(0.0));
    }

    /// Three samples 99, 100, 101: s = 1, t(2, 0.975) = 4.3027, so the half-width is
    /// 4.3027 * 1.2533 / sqrt(3) = 3.113 MB/s, 3.11% of the median.
    #[test]
    fn half_width_by_hand() {
        let h = median_half_width(&[99.0, 100.0, 101.0], CONFIDENCE).unwrap();
        assert!((h - 0.031_13).abs() < 1e-4, "{h}");
    }

    /// Long series give batch means, even where two figures agree exactly; short ones, or
    /// none, the figures' own interval.
    #[test]
    fn the_method_follows_what_the_series_can_say() {
        let figures = [26.0, 26.1];
        let long: Vec<f64> = (0..40).map(|i| 26.0 + 0.2 * f64::from(i % 3)).collect();
        let from_long = of(&figures, Some(&[&long, &long])).unwrap();
        assert_eq!(from_long.method, PrecisionMethod::BatchMeans);
        let agreeing = of(&[26.0, 26.0], Some(&[&long, &long])).unwrap();
        assert_eq!(agreeing.method, PrecisionMethod::BatchMeans);
        assert!(agreeing.half_width > 0.0);
        let short = [26.0; 3];
        let from_short = of(&figures, Some(&[&short, &short])).unwrap();
        assert_eq!(from_short.method, PrecisionMethod::Repetitions);
        assert_eq!(of(&figures, None), Some(from_short));
        assert!(from_long.half_width < from_short.half_width);
        assert_eq!(of(&[26.0], Some(&[&long])), None);
    }

    /// Series whose points trade off (a queue completing in clumps: 16, then 36 MB/s) leave
    /// batch means wide; four repetitions that agree are narrower, and theirs is stated, at
    /// 97.5% since both were asked.
    #[test]
    fn agreeing_repetitions_see_through_clumpy_series() {
        let figures = [26.0, 26.1, 25.9, 26.0];
        let clumpy: Vec<f64> = (0..8).map(|i| [16.0, 36.0][i % 2]).collect();
        let series = vec![&clumpy[..]; 4];
        let stated = of(&figures, Some(&series)).unwrap();
        assert_eq!(stated.method, PrecisionMethod::Repetitions);
        assert_eq!(Some(stated.half_width), median_half_width(&figures, 0.975));
        assert!(stated.half_width > median_half_width(&figures, CONFIDENCE).unwrap());
    }

    /// Two figures 0.7% apart reach ±2% within ten repetitions (t(3) at four: ±1.4%); two 20%
    /// apart do not, nor do two within three.
    #[test]
    fn reach_follows_the_spread() {
        assert!(within_reach(&[26.0, 26.26], 0.02, 10));
        assert!(!within_reach(&[26.0, 26.26], 0.02, 2));
        assert!(!within_reach(&[100.0, 120.0], 0.02, 10));
        assert!(!within_reach(&[26.0], 0.02, 10));
    }

    #[test]
    fn more_samples_of_the_same_spread_narrow_it() {
        let three = median_half_width(&[99.0, 100.0, 101.0], CONFIDENCE).unwrap();
        let six = median_half_width(&[99.0, 100.0, 101.0, 99.0, 100.0, 101.0], CONFIDENCE).unwrap();
        assert!(six < three / 2.0, "{six} vs {three}");
    }
}
