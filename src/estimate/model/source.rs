//! The source side of the estimate (`--measure-source`): a per-file cost and a bandwidth fitted
//! to a sample of the source's files read from a cold cache (`reads`), the time the source
//! needs to give up the whole tree, and which side limits. Pure.

use serde::Serialize;

use super::Range;
use super::reads::fit_reads;

/// What the source costs to read, whatever the destination.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SourceCost {
    pub files_sampled: u64,
    pub bytes_sampled: u64,
    pub per_file_s: f64,
    pub bytes_per_s: f64,
    /// Seconds to list the tree's directories and read its inodes from a cold cache, on one
    /// thread (measured as root only; None where the caches could not be dropped).
    pub listing_s: Option<f64>,
    /// Seconds to read the whole tree at those costs, the listing included.
    pub seconds: f64,
}

/// The source against one destination's time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SourceSide {
    #[serde(flatten)]
    pub cost: SourceCost,
    /// "source" or "destination": the side that takes longer.
    pub limits: &'static str,
}

impl SourceCost {
    /// The cost of reading a tree of `files` files and `bytes` at the costs fitted to the
    /// sampled `reads`, after a cold listing of `listing_s` where it was timed.
    pub fn of(
        reads: &[(u64, f64)],
        files: u64,
        bytes: u64,
        listing_s: Option<f64>,
    ) -> Option<Self> {
        let (per_file_s, bytes_per_s) = fit_reads(reads)?;
        Some(SourceCost {
            files_sampled: reads.len() as u64,
            bytes_sampled: reads.iter().map(|r| r.0).sum(),
            per_file_s,
            bytes_per_s,
            listing_s,
            seconds: files as f64 * per_file_s
                + bytes as f64 / bytes_per_s
                + listing_s.unwrap_or(0.0),
        })
    }

    /// The source beside a destination that takes `destination_s` to write the tree.
    pub(super) fn against(&self, destination_s: f64) -> SourceSide {
        SourceSide {
            cost: *self,
            limits: if self.seconds > destination_s {
                "source"
            } else {
                "destination"
            },
        }
    }
}

impl SourceSide {
    /// The destination's prediction with the source added. The calibration copies read a
    /// cached source, so the destination's time leaves reading out; a copy tool reads a file,
    /// then writes it, and the destination's writes wait in the page cache for the final flush
    /// (a disk) or go out synchronously (a share): the two sides add up, which the expected
    /// time says. The low end is full overlap (the slower side alone), the high end the sum of
    /// the high ends.
    pub(super) fn added_to(&self, destination: Range) -> Range {
        let seconds = self.cost.seconds;
        Range {
            low: destination.low.max(seconds),
            expected: destination.expected + seconds,
            high: destination.high + seconds,
        }
    }

    /// Which side limits, and what each takes (the destination `destination_s`).
    pub(super) fn advice(&self, destination_s: f64) -> String {
        let human = crate::units::human_duration;
        let c = &self.cost;
        let listing = match c.listing_s {
            Some(s) => format!(", listing its directories cold {}", human(s)),
            None => ", its directories' cold listing not measured (needs root)".to_string(),
        };
        format!(
            "the {} limits: reading the source takes {} ({:.1} MB/s, {:.2} ms per file{listing}), writing it {}",
            self.limits,
            human(c.seconds),
            c.bytes_per_s / 1e6,
            c.per_file_s * 1e3,
            human(destination_s)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_source_adds_its_reading_time_and_a_slow_one_limits() {
        // Reads at 2 ms per file + 10 MB/s, five of each size.
        let reads: Vec<(u64, f64)> = [1000u64, 50_000, 400_000, 2_000_000]
            .iter()
            .flat_map(|&b| [(b, 0.002 + b as f64 / 10e6); 5])
            .collect();
        let (pf, bw) = fit_reads(&reads).unwrap();
        assert!(
            (pf - 0.002).abs() < 1e-9 && (bw / 10e6 - 1.0).abs() < 1e-6,
            "{pf} {bw}"
        );
        // 1000 files of 100 kB: 12 s to read, then 2 s (1.8 to 2.4) to write.
        let destination = Range {
            low: 1.8,
            expected: 2.0,
            high: 2.4,
        };
        let side = SourceCost::of(&reads, 1000, 100_000_000, None)
            .unwrap()
            .against(destination.expected);
        let range = side.added_to(destination);
        let advice = side.advice(destination.expected);
        assert_eq!(side.limits, "source");
        assert!((side.cost.seconds - 12.0).abs() < 1e-6, "{side:?}");
        assert!(advice.contains("not measured"), "{advice:?}");
        // A cold listing of 0.5 s adds to the reading.
        let listed = SourceCost::of(&reads, 1000, 100_000_000, Some(0.5)).unwrap();
        assert!((listed.seconds - 12.5).abs() < 1e-6);
        let listed = listed.against(destination.expected).added_to(destination);
        assert!((listed.expected - 14.5).abs() < 1e-6, "{listed:?}");
        assert!((range.expected - 14.0).abs() < 1e-6, "{range:?}");
        assert!(
            (range.low - 12.0).abs() < 1e-6 && (range.high - 14.4).abs() < 1e-6,
            "{range:?}"
        );
        assert!(advice.starts_with("the source limits"), "{advice:?}");
    }
}
