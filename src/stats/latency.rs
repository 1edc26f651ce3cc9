//! Latency percentiles from an HDR histogram.
//!
//! Error bound: values are recorded in nanoseconds with 3 significant decimal digits, so every
//! reported percentile is within 0.1% of the true latency of some recorded request, from 1 ns to
//! one hour; anything longer is clamped to one hour.

use std::time::Duration;

use hdrhistogram::Histogram;

const MAX_NS: u64 = 3_600_000_000_000;

/// Latencies of the requests of one test.
#[derive(Clone)]
pub struct LatencyHistogram {
    histogram: Histogram<u64>,
}

/// Percentiles in microseconds.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LatencySummary {
    pub p50: f64,
    pub p99: f64,
    pub p999: f64,
    pub mean: f64,
    pub max: f64,
}

impl std::fmt::Debug for LatencyHistogram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LatencyHistogram")
            .field("count", &self.histogram.len())
            .finish()
    }
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        LatencyHistogram {
            histogram: Histogram::new_with_bounds(1, MAX_NS, 3).expect("valid histogram bounds"),
        }
    }
}

impl LatencyHistogram {
    pub fn record(&mut self, latency: Duration) {
        let ns = u64::try_from(latency.as_nanos())
            .unwrap_or(MAX_NS)
            .clamp(1, MAX_NS);
        self.histogram.record(ns).expect("value within bounds");
    }

    #[cfg(test)]
    pub fn count(&self) -> u64 {
        self.histogram.len()
    }

    /// Percentiles in µs, or None when nothing was recorded.
    pub fn summary(&self) -> Option<LatencySummary> {
        if self.histogram.is_empty() {
            return None;
        }
        let us = |ns: u64| ns as f64 / 1000.0;
        Some(LatencySummary {
            p50: us(self.histogram.value_at_quantile(0.50)),
            p99: us(self.histogram.value_at_quantile(0.99)),
            p999: us(self.histogram.value_at_quantile(0.999)),
            mean: self.histogram.mean() / 1000.0,
            max: us(self.histogram.max()),
        })
    }
}

impl std::ops::AddAssign<&LatencyHistogram> for LatencyHistogram {
    fn add_assign(&mut self, other: &LatencyHistogram) {
        self.histogram
            .add(&other.histogram)
            .expect("histograms with the same bounds");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_a_known_distribution() {
        let mut h = LatencyHistogram::default();
        for us in 1..=1000u64 {
            h.record(Duration::from_micros(us));
        }
        let s = h.summary().unwrap();
        assert!((s.p50 - 500.0).abs() <= 0.5, "p50 {}", s.p50);
        assert!((s.p99 - 990.0).abs() <= 1.0, "p99 {}", s.p99);
        assert!((s.p999 - 999.0).abs() <= 1.0, "p999 {}", s.p999);
        assert!((s.max - 1000.0).abs() <= 1.0);
    }

    #[test]
    fn merging_adds_counts() {
        let mut a = LatencyHistogram::default();
        let mut b = LatencyHistogram::default();
        a.record(Duration::from_micros(10));
        b.record(Duration::from_micros(20));
        b.record(Duration::from_micros(30));
        a += &b;
        assert_eq!(a.count(), 3);
        assert!(LatencyHistogram::default().summary().is_none());
    }
}
