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
/// a found cache charged at the rate after it. A pace measured in the cache (faster than the
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
    let Some(&WriteCache::Found {
        bytes_before,
        before_mb_s,
        after_mb_s,
    }) = cache
    else {
        return range;
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
