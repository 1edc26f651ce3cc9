//! Throughput over time: bytes moved per fixed interval.
//!
//! A request's bytes can be counted at the instant it completes ([`ThroughputSeries::record`])
//! or spread over the time it was in flight ([`ThroughputSeries::record_span`]). Counted at an
//! instant, an interval holding six 1 MiB requests is ±16% by where one request lands; spread,
//! it holds what moved in it.

use std::time::Duration;

/// Bytes moved in consecutive intervals of `interval`, starting at the test's start.
#[derive(Debug, Clone, PartialEq)]
pub struct ThroughputSeries {
    interval: Duration,
    buckets: Vec<u64>,
}

impl ThroughputSeries {
    pub fn new(interval: Duration) -> Self {
        assert!(!interval.is_zero(), "series interval must be positive");
        ThroughputSeries {
            interval,
            buckets: Vec::new(),
        }
    }

    /// Counts `bytes` completed at `at` (time since the test's start). A completion exactly on a
    /// boundary belongs to the interval it ends: its bytes moved before that instant.
    pub fn record(&mut self, at: Duration, bytes: u64) {
        self.bucket(self.index_of(at), bytes);
    }

    /// Counts `bytes` moved evenly from `from` to `to` (times since the test's start): each
    /// interval the share of them its overlap with that span holds, whole bytes, the rounding
    /// left in the last; an empty span is an instant at `to`.
    pub fn record_span(&mut self, from: Duration, to: Duration, bytes: u64) {
        if to <= from {
            return self.record(to, bytes);
        }
        let (from_ns, span) = (from.as_nanos(), (to - from).as_nanos());
        let step = self.interval.as_nanos();
        let last = self.index_of(to);
        let mut given = 0;
        for index in self.index_of(from + Duration::from_nanos(1))..last {
            let end = step * (index as u128 + 1);
            let start = (step * index as u128).max(from_ns);
            let share = (u128::from(bytes) * (end - start) / span) as u64;
            self.bucket(index, share);
            given += share;
        }
        self.bucket(last, bytes - given);
    }

    /// The interval an instant ends: one exactly on a boundary belongs to the interval before.
    fn index_of(&self, at: Duration) -> usize {
        (at.as_nanos().saturating_sub(1) / self.interval.as_nanos()) as usize
    }

    fn bucket(&mut self, index: usize, bytes: u64) {
        if self.buckets.len() <= index {
            self.buckets.resize(index + 1, 0);
        }
        self.buckets[index] += bytes;
    }

    pub fn interval(&self) -> Duration {
        self.interval
    }

    /// MB/s per interval. The last interval is usually partial; it is scaled by `total` (the
    /// test's whole duration) so it is not shown as a false drop.
    pub fn rates_mb_s(&self, total: Duration) -> Vec<f64> {
        let step = self.interval.as_secs_f64();
        self.buckets
            .iter()
            .enumerate()
            .map(|(i, &bytes)| {
                let start = step * i as f64;
                let width = (total.as_secs_f64() - start).clamp(0.0, step);
                let width = if width > 0.0 { width } else { step };
                bytes as f64 / width / 1e6
            })
            .collect()
    }
}

impl ThroughputSeries {
    /// Whether the last interval ended before a whole interval had passed (a series that
    /// lasted `total`); an empty series has no partial interval.
    pub fn last_is_partial(&self, total: Duration) -> bool {
        let Some(last) = self.buckets.len().checked_sub(1) else {
            return false;
        };
        let covered = total.as_secs_f64() - self.interval.as_secs_f64() * last as f64;
        // A microsecond short of a whole interval is still a whole one (timer rounding).
        covered < self.interval.as_secs_f64() - 1e-6
    }

    /// Appends `other`, a series that lasted `other_total` and began `offset` after this one
    /// began. Each of its intervals' bytes lands at that interval's end (the last one's at
    /// `other_total`), so a byte moves by less than one interval.
    pub fn append(&mut self, other: &ThroughputSeries, offset: Duration, other_total: Duration) {
        assert_eq!(
            self.interval, other.interval,
            "series of different intervals"
        );
        for (i, &bytes) in other.buckets.iter().enumerate() {
            let interval_end = self.interval * (i as u32 + 1);
            // The last interval ends with the series, never before it begins.
            let begins = interval_end - self.interval + Duration::from_nanos(1);
            let end = interval_end.min(other_total).max(begins);
            if bytes > 0 {
                self.record(offset + end, bytes);
            }
        }
    }
}

impl std::ops::AddAssign<&ThroughputSeries> for ThroughputSeries {
    /// Adds another series of the same interval (per-thread series of one test).
    fn add_assign(&mut self, other: &ThroughputSeries) {
        assert_eq!(
            self.interval, other.interval,
            "series of different intervals"
        );
        if self.buckets.len() < other.buckets.len() {
            self.buckets.resize(other.buckets.len(), 0);
        }
        for (mine, theirs) in self.buckets.iter_mut().zip(&other.buckets) {
            *mine += theirs;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_appended_series_starts_where_it_began() {
        let second = Duration::from_secs(1);
        let mut a = ThroughputSeries::new(second);
        a.record(Duration::from_millis(500), 1_000_000);
        let mut b = ThroughputSeries::new(second);
        b.record(Duration::from_millis(300), 2_000_000);
        b.record(Duration::from_millis(1400), 3_000_000);
        // b began 0.8 s after a: its first second ends at 1.8 s, its tail at 0.8 + 1.5 s.
        a.append(&b, Duration::from_millis(800), Duration::from_millis(1500));
        assert_eq!(a.buckets, vec![1_000_000, 2_000_000, 3_000_000]);
    }

    #[test]
    fn buckets_by_interval_and_scales_the_partial_tail() {
        let mut s = ThroughputSeries::new(Duration::from_secs(1));
        s.record(Duration::from_millis(100), 1_000_000);
        s.record(Duration::from_millis(900), 1_000_000);
        s.record(Duration::from_millis(1200), 1_000_000);
        let rates = s.rates_mb_s(Duration::from_millis(1500));
        assert_eq!(rates, vec![2.0, 2.0]);
    }

    /// 3 MB over 0.5-2.0 s: a third in each of the intervals it crosses, every byte counted.
    #[test]
    fn a_span_is_shared_by_the_intervals_it_crosses() {
        let ms = Duration::from_millis;
        let mut s = ThroughputSeries::new(ms(500));
        s.record_span(ms(500), ms(2000), 3_000_000);
        assert_eq!(s.buckets, vec![0, 1_000_000, 1_000_000, 1_000_000]);
        s.record_span(ms(100), ms(400), 7);
        s.record_span(ms(400), ms(1100), 10);
        assert_eq!(s.buckets.iter().sum::<u64>(), 3_000_017);
        assert_eq!(s.buckets[..3], [7 + 1, 1_000_000 + 7, 1_000_000 + 2]);
        let mut instant = ThroughputSeries::new(ms(500));
        instant.record_span(ms(700), ms(700), 10);
        assert_eq!(instant.buckets, vec![0, 10]);
    }

    #[test]
    fn a_last_interval_cut_short_is_partial() {
        let ms = Duration::from_millis;
        let mut s = ThroughputSeries::new(ms(250));
        assert!(!s.last_is_partial(ms(0)), "empty");
        s.record(ms(100), 10);
        s.record(ms(300), 10);
        assert!(s.last_is_partial(ms(310)));
        assert!(!s.last_is_partial(ms(500)));
    }
}
