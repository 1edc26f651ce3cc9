//! How well a rate is known from the throughput series of its repetitions: batch means over
//! each series' steady part, pooled across the repetitions. Pure code.
//!
//! A series' points (MB/s per interval) are correlated: a slow request spills into the next
//! interval, a cache drains over several. Points are averaged in consecutive batches of `b`,
//! `b` growing until the lag-1 autocorrelation of the batch means (pooled over the
//! repetitions, each around its own mean, corrected for the bias of short series) is at most
//! [`MAX_LAG1`]; what correlation is left scales the variance by `(1 + r) / (1 - r)` (an AR(1)
//! series' factor, down to `r = -0.5` for the anti-correlation of counting completions per
//! interval). The spread is relative to each repetition's own mean, so repetitions at
//! different levels pool their noise, not their levels.
//!
//! The within-series noise says how well each repetition's figure is known; the figures'
//! own spread says whether the repetitions agree. The variance of their mean is the larger of
//! the two, so a repetition that differs from another widens the interval however tight each
//! series is: two series flat at 26 and 29 MB/s are known to about ±3 MB/s, not ±0.1.

use statrs::distribution::{ContinuousCDF, StudentsT};

use super::steady;

/// The most lag-1 autocorrelation the batch means may keep before the batches grow.
pub const MAX_LAG1: f64 = 0.1;
/// The fewest degrees of freedom (batches less repetitions) an estimate needs. Fewer points
/// say more about how requests fall into intervals than about the rate: a 1.5 s block
/// repetition has five 0.25 s points of about six 1 MiB requests each at 26 MB/s, each point
/// ±16% by where one request lands, while the repetitions' figures agreed to 0.3%
/// (docs/json.md).
pub const MIN_DF: usize = 6;
/// The most correlation the variance is widened for: beyond it the batches are too few to say.
const MAX_INFLATED_LAG1: f64 = 0.9;
/// The most negative correlation the variance is narrowed for. Counting completions per
/// interval makes neighbours anti-correlated (the request one interval gets, the next misses),
/// which a long series' mean averages out; no more than an AR(1) at -0.5 is credited.
const MIN_CREDITED_LAG1: f64 = -0.5;

/// How the batches came out: their length and how well they pinned the figures' mean.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BatchEstimate {
    /// Intervals per batch.
    pub batch: usize,
    /// Batches over all repetitions, less one per repetition.
    pub df: usize,
    /// The lag-1 autocorrelation of the batch means, bias-corrected.
    pub lag1: f64,
    /// Standard error of the mean of the figures, in their unit.
    pub standard_error: f64,
}

impl BatchEstimate {
    /// The 95% half-width of the median of the figures whose median is `median`, as a
    /// fraction of it: Student's t at `df`, and the median's efficiency `sqrt(pi / 2)` from
    /// three figures on (the median of two is their mean).
    pub fn half_width(&self, figures: usize, median: f64, confidence: f64) -> Option<f64> {
        let t = StudentsT::new(0.0, 1.0, self.df as f64)
            .ok()?
            .inverse_cdf(0.5 + confidence / 2.0);
        let efficiency = if figures >= 3 {
            (std::f64::consts::PI / 2.0).sqrt()
        } else {
            1.0
        };
        (median != 0.0).then(|| t * efficiency * self.standard_error / median.abs())
    }
}

/// The part of a series (complete intervals) the noise is read from: after its first interval
/// (the queue filling) and, when the rate fell off a cliff, from the cliff on.
pub fn steady_part(rates: &[f64]) -> &[f64] {
    let rest = rates.get(1..).unwrap_or_default();
    match steady::find_cliff(rest) {
        Some(cliff) => &rest[cliff.index..],
        None => rest,
    }
}

/// Batch means of `x` in batches of `b`, the oldest points dropped when `b` does not divide
/// the length (the end of a repetition is the steadier).
fn batches(x: &[f64], b: usize) -> Vec<f64> {
    let skip = x.len() % b;
    x[skip..]
        .chunks_exact(b)
        .map(|c| c.iter().sum::<f64>() / b as f64)
        .collect()
}

/// Relative deviations of each repetition's batch means from that repetition's mean, and the
/// pooled lag-1 autocorrelation, bias-corrected by the `1 / m` a mean of `m` points removes.
fn relative_spread(groups: &[Vec<f64>]) -> Option<(Vec<Vec<f64>>, f64)> {
    let mut deviations = Vec::with_capacity(groups.len());
    let (mut sum_sq, mut sum_lag, mut correction, mut points) = (0.0, 0.0, 0.0, 0.0);
    for g in groups {
        let mean = g.iter().sum::<f64>() / g.len() as f64;
        if mean <= 0.0 {
            return None;
        }
        let d: Vec<f64> = g.iter().map(|x| x / mean - 1.0).collect();
        sum_sq += d.iter().map(|x| x * x).sum::<f64>();
        sum_lag += d.windows(2).map(|w| w[0] * w[1]).sum::<f64>();
        correction += 1.0;
        points += g.len() as f64;
        deviations.push(d);
    }
    let lag1 = if sum_sq > 0.0 {
        sum_lag / sum_sq + correction / points
    } else {
        0.0
    };
    Some((deviations, lag1))
}

/// The batch-means estimate for `figures`, one per repetition, each with the steady part of its
/// series (MB/s per interval); None when the series are too short for [`MIN_DF`] degrees of
/// freedom, a figure or a series' mean is not positive, or there are fewer than two figures.
pub fn estimate(figures: &[f64], series: &[&[f64]]) -> Option<BatchEstimate> {
    let n = figures.len();
    if n < 2 || series.len() != n || figures.iter().any(|&f| f <= 0.0) {
        return None;
    }
    let longest = series.iter().map(|s| s.len()).max()?;
    let mut chosen = None;
    for b in 1..=longest {
        let groups: Vec<Vec<f64>> = series.iter().map(|s| batches(s, b)).collect();
        let total: usize = groups.iter().map(Vec::len).sum();
        if groups.iter().any(Vec::is_empty) || total < n + MIN_DF {
            break;
        }
        let (deviations, lag1) = relative_spread(&groups)?;
        chosen = Some((b, total - n, deviations, lag1));
        if lag1 <= MAX_LAG1 {
            break;
        }
    }
    let (batch, df, deviations, lag1) = chosen?;
    let r = lag1.clamp(MIN_CREDITED_LAG1, MAX_INFLATED_LAG1);
    let relative_variance =
        deviations.iter().flatten().map(|d| d * d).sum::<f64>() / df as f64 * (1.0 + r) / (1.0 - r);
    // Each figure known to its own series' noise; their mean to the sum over n^2.
    let within = figures
        .iter()
        .zip(&deviations)
        .map(|(f, d)| f * f * relative_variance / d.len() as f64)
        .sum::<f64>()
        / (n * n) as f64;
    let between = super::summarize(figures)?.stddev.powi(2) / n as f64;
    Some(BatchEstimate {
        batch,
        df,
        lag1,
        standard_error: within.max(between).sqrt(),
    })
}

#[cfg(test)]
mod tests;
