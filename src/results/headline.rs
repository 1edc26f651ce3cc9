//! Which results answer a user's first questions, CrystalDiskMark-style: the four block figures
//! read and write, then the backup-shaped ones (small files per second, mixed MB/s, Time
//! Machine's check). Only a choice among the run's results, by index: the figures stay theirs,
//! and every report shows the same ones.

use super::{RunReport, TestResult};
use crate::workload::TestId;

/// The four block variants of the headline, in CrystalDiskMark's order.
pub const HEADLINE_BLOCK: [&str; 4] = ["SEQ1M-Q8T1", "SEQ1M-Q1T1", "RND4K-Q32T1", "RND4K-Q1T1"];

/// Indices into the run's results; None where the run did not measure it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Headline {
    /// Per entry of [`HEADLINE_BLOCK`]: (read, write).
    pub block: Vec<(&'static str, Option<usize>, Option<usize>)>,
    /// The best copy of the small set with the write cache on (its files/s).
    pub small_files: Option<usize>,
    /// The best copy of the mixed set with the write cache on (its MB/s).
    pub mixed: Option<usize>,
    /// The tm-check results, in run order.
    pub tm_check: Vec<usize>,
}

impl Headline {
    /// Whether the run measured any of it.
    pub fn is_empty(&self) -> bool {
        self.block
            .iter()
            .all(|(_, r, w)| r.is_none() && w.is_none())
            && self.small_files.is_none()
            && self.mixed.is_none()
            && self.tm_check.is_empty()
    }
}

/// The block variant of `variant`: `seq-*` for 1 MiB, `4k-*` for 4 KiB.
fn block_test(variant: &str, read: bool) -> TestId {
    match (variant.starts_with("SEQ1M"), read) {
        (true, true) => TestId::SeqRead,
        (true, false) => TestId::SeqWrite,
        (false, true) => TestId::FourKRead,
        (false, false) => TestId::FourKWrite,
    }
}

/// The copy of `set` with the write cache on and the highest median (any thread count).
fn best_copy(results: &[TestResult], set: &str) -> Option<usize> {
    results
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            r.test == TestId::FilesCopy
                && r.variant.starts_with(&format!("{set}-"))
                && r.variant.ends_with("-cache-on")
        })
        .max_by(|a, b| a.1.median.total_cmp(&b.1.median))
        .map(|(i, _)| i)
}

impl RunReport {
    /// The headline results of this run.
    pub fn headline(&self) -> Headline {
        let find = |test: TestId, variant: &str| {
            self.results
                .iter()
                .position(|r| r.test == test && r.variant == variant)
        };
        Headline {
            block: HEADLINE_BLOCK
                .iter()
                .map(|&v| {
                    (
                        v,
                        find(block_test(v, true), v),
                        find(block_test(v, false), v),
                    )
                })
                .collect(),
            small_files: best_copy(&self.results, "small"),
            mixed: best_copy(&self.results, "mixed"),
            tm_check: (0..self.results.len())
                .filter(|&i| self.results[i].test == TestId::TmCheck)
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_headline_picks_the_block_variants_and_the_best_cached_copies() {
        let result = |test: &str, variant: &str, median: f64| {
            serde_json::json!({ "test": test, "variant": variant, "median": median,
                "method": "direct", "engine": "sync" })
        };
        let run: RunReport = serde_json::from_value(serde_json::json!({ "results": [
            result("seq-write", "SEQ1M-Q8T1", 100.0),
            result("4k-read", "RND4K-Q1T1", 10.0),
            result("files-copy", "small-1t-cache-on", 5.0),
            result("files-copy", "small-4t-cache-on", 9.0),
            result("files-copy", "small-4t-cache-off", 50.0),
            result("tm-check", "50MB", 80.0),
        ]}))
        .unwrap();
        let h = run.headline();
        assert_eq!(h.block[0], ("SEQ1M-Q8T1", None, Some(0)));
        assert_eq!(h.block[3], ("RND4K-Q1T1", Some(1), None));
        assert_eq!(h.small_files, Some(3), "the faster cache-on copy");
        assert_eq!((h.mixed, h.tm_check.as_slice()), (None, &[5][..]));
        assert!(!h.is_empty() && RunReport::default().headline().is_empty());
    }
}
