//! The destination's write cache in the answer: what the run's sustained write found, and a
//! first backup's bytes past the cache charged at the rate after it. SMR disks, QLC SSDs and a
//! NAS's memory take some GB fast and far less after; the run's other writes, a few GB with
//! pauses between, may all fit in the cache, so without this the answer would carry the
//! cache's rate to the whole backup.

use crate::results::{CliffDetails, Details, Range, RunDocument, SustainedStop, WriteCache};
use crate::workload::TestId;

/// A drop after less than this is the write's start (a device's or a throttle's first burst),
/// not a cache a backup fills: seen after 26 MB on the testbed's plain disk (43 -> 35 MB/s).
const LEAST_CACHE_BYTES: u64 = 64_000_000;

/// A copy whose byte rate is within this factor of the rate after the cache is taken to have
/// run past it (bound by the disk at that rate); above it, in the cache.
const NEAR: f64 = 1.15;

/// The cache as the run's sustained write met it; None without one. A write that stopped
/// steady, or at its caps, without a drop (or with one at its very start) is the cache out of
/// reach, at the rate it ended with.
pub(super) fn of(run: &RunDocument) -> Option<WriteCache> {
    let details = run
        .results
        .iter()
        .filter(|r| r.test == TestId::Sustained)
        .find_map(|r| match &r.details {
            Some(Details::Sustained(d)) if d.bytes_written > 0 => Some(d),
            _ => None,
        })?;
    let cache = |c: &CliffDetails| {
        c.after_mb_s > 0.0 && c.before_mb_s > c.after_mb_s && c.bytes_before >= LEAST_CACHE_BYTES
    };
    Some(match details.cliff {
        Some(c) if cache(&c) => WriteCache::Found {
            bytes_before: c.bytes_before,
            before_mb_s: c.before_mb_s,
            after_mb_s: c.after_mb_s,
        },
        _ => WriteCache::OutOfReach {
            written_bytes: details.bytes_written,
            seconds: details.seconds,
            mb_s: details.final_mb_s,
        },
    })
}

/// Why the sustained write stopped without a drop, for the words: a steady rate ends it early.
pub(super) fn stopped(run: &RunDocument) -> Option<SustainedStop> {
    run.results
        .iter()
        .filter(|r| r.test == TestId::Sustained)
        .find_map(|r| match &r.details {
            Some(Details::Sustained(d)) => d.stopped,
            _ => None,
        })
}

/// `range`, the time of `bytes` at a pace whose bytes move at `rate_mb_s`, with the bytes past
/// a found cache charged at the rate after it (and past a sustained write that found none, at
/// its rate, where the pace is faster). A pace measured in the cache (faster than the
/// rate after it) moves the bytes past it at that rate; a pace measured past the cache (at
/// about that rate) moves the bytes before it as much faster as the disk did, at most the
/// cache's rate (the high end keeps them as measured); a pace slower than the disk past its
/// cache is bound elsewhere and unchanged.
pub(super) fn charge(
    range: Range,
    bytes: u64,
    rate_mb_s: f64,
    cache: Option<&WriteCache>,
) -> Range {
    let (bytes_before, before_mb_s, after_mb_s) = match cache {
        Some(&WriteCache::Found {
            bytes_before,
            before_mb_s,
            after_mb_s,
        }) => (bytes_before, before_mb_s, after_mb_s),
        // A pace faster than the sustained write, which held its rate to the end, was measured
        // in a cache that write did not meet (a share's copies in its server's memory, where
        // the sustained write flushes every second): past what that write wrote, no faster.
        Some(&WriteCache::OutOfReach {
            written_bytes,
            mb_s,
            ..
        }) if outran(rate_mb_s, cache) => (written_bytes, rate_mb_s, mb_s),
        _ => return range,
    };
    if !(rate_mb_s > 0.0 && after_mb_s > 0.0) {
        return range;
    }
    let inside = bytes.min(bytes_before) as f64 / 1e6;
    let past = bytes.saturating_sub(bytes_before) as f64 / 1e6;
    let at = |mb: f64, rate: f64| mb / rate - mb / rate_mb_s;
    if rate_mb_s > after_mb_s * NEAR {
        let extra = at(past, after_mb_s.min(rate_mb_s));
        return Range {
            low: range.low + extra,
            expected: range.expected + extra,
            high: range.high + extra,
        };
    }
    if rate_mb_s >= after_mb_s / NEAR {
        let faster = (rate_mb_s * before_mb_s / after_mb_s).min(before_mb_s);
        let saved = at(inside, faster);
        return Range {
            low: range.low + saved,
            expected: range.expected + saved,
            high: range.high,
        };
    }
    range
}

/// Whether a pace whose bytes move at `rate_mb_s` outran a sustained write that found no cache
/// (so its bytes past that write are charged at the write's rate).
pub(super) fn outran(rate_mb_s: f64, cache: Option<&WriteCache>) -> bool {
    matches!(cache, Some(&WriteCache::OutOfReach { mb_s, .. }) if mb_s > 0.0 && rate_mb_s > mb_s * NEAR)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pace of 244 MB/s (copies held in a server's memory) beside a sustained write that
    /// held 19 MB/s over 336 MB without a drop: the bytes past those 336 MB go at 19 MB/s. A
    /// pace about the write's rate is left as it is, as is one beside a write that found its
    /// cache (charged as found).
    #[test]
    fn a_pace_that_outran_a_sustained_write_without_a_drop_goes_no_faster_past_it() {
        let out_of_reach = WriteCache::OutOfReach {
            written_bytes: 336_000_000,
            seconds: 17.7,
            mb_s: 19.0,
        };
        let range = |s: f64| Range {
            low: s * 0.9,
            expected: s,
            high: s * 1.3,
        };
        let bytes = 10_336_000_000;
        let at_pace = bytes as f64 / 244e6;
        let charged = charge(range(at_pace), bytes, 244.0, Some(&out_of_reach));
        let past = 10_000.0;
        let want = at_pace + past / 19.0 - past / 244.0;
        assert!((charged.expected - want).abs() < 1e-6, "{charged:?}");
        assert!(outran(244.0, Some(&out_of_reach)));
        assert!(!outran(20.0, Some(&out_of_reach)));
        let near = charge(range(500.0), bytes, 20.0, Some(&out_of_reach));
        assert_eq!(near, range(500.0));
    }
}
