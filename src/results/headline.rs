//! Which results answer a user's first questions, CrystalDiskMark-style: the four block figures
//! read and write, then the backup-shaped ones (small files per second, mixed MB/s, Time
//! Machine's check). Only a choice among the run's results, by index and by what each result
//! did (its workload): the figures stay theirs, and every report shows the same ones.

use super::{RunDocument, TestResult};
use crate::workload::{
    Direction, Pattern, SetKind, SetName, TM_SMALL_FILES, TM_SMALL_SIZE, TestId, Workload,
};

const MIB: usize = 1 << 20;

/// The four block shapes of the headline, in CrystalDiskMark's order: (pattern, block, depth).
pub const HEADLINE_BLOCK: [(Pattern, usize, usize); 4] = [
    (Pattern::Sequential, MIB, 8),
    (Pattern::Sequential, MIB, 1),
    (Pattern::Random, 4096, 32),
    (Pattern::Random, 4096, 1),
];

/// One block row of the headline: its variant's name and the results read and written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockRow {
    pub name: String,
    pub read: Option<usize>,
    pub write: Option<usize>,
}

/// Indices into the run's results; None where the run did not measure it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Headline {
    /// One row per entry of [`HEADLINE_BLOCK`].
    pub block: Vec<BlockRow>,
    /// The copy of the small set a backup tool makes: the fewest threads, the write cache off
    /// (every file made durable) before on.
    pub small_files: Option<usize>,
    /// The same copy of the mixed set (its MB/s).
    pub mixed: Option<usize>,
    /// The tm-check results, in run order.
    pub tm_check: Vec<usize>,
}

impl Headline {
    /// Whether the run measured any of it.
    pub fn is_empty(&self) -> bool {
        self.block
            .iter()
            .all(|row| row.read.is_none() && row.write.is_none())
            && self.small_files.is_none()
            && self.mixed.is_none()
            && self.tm_check.is_empty()
    }
}

/// Whether `workload` is a headline figure whose repetitions are short, so that a run repeats
/// it until precise: the block figures, read or written (a repetition is bounded by the block
/// duration), and Time Machine's 500 small files (2 MB).
pub fn repeats_until_precise(workload: &Workload) -> bool {
    match *workload {
        Workload::Block {
            pattern,
            block,
            depth,
            ..
        } => HEADLINE_BLOCK.contains(&(pattern, block, depth)),
        Workload::ManyFiles { count, size } => count == TM_SMALL_FILES && size == TM_SMALL_SIZE,
        _ => false,
    }
}

/// The block workload of a headline shape in one direction.
fn block(direction: Direction, (pattern, block, depth): (Pattern, usize, usize)) -> Workload {
    Workload::Block {
        direction,
        pattern,
        block,
        depth,
    }
}

/// The backup tool's copy of `set`: the fewest threads, then the write cache off before on.
fn backup_copy(results: &[TestResult], set: SetKind) -> Option<usize> {
    let set = SetName::Generated(set);
    results
        .iter()
        .enumerate()
        .filter(|(_, r)| r.test == TestId::FilesCopy)
        .filter_map(|(i, r)| match r.workload.as_ref()? {
            w @ Workload::FileSet { threads, .. } if w.is_copy_of(set, false) => {
                Some(((*threads, false), i))
            }
            w @ Workload::FileSet { threads, .. } if w.is_copy_of(set, true) => {
                Some(((*threads, true), i))
            }
            _ => None,
        })
        .min()
        .map(|(_, i)| i)
}

impl RunDocument {
    /// The headline results of this run.
    pub fn headline(&self) -> Headline {
        let find = |workload: Workload| {
            self.results
                .iter()
                .position(|r| r.workload.as_ref() == Some(&workload))
        };
        Headline {
            block: HEADLINE_BLOCK
                .iter()
                .map(|&shape| BlockRow {
                    name: block(Direction::Read, shape).name(),
                    read: find(block(Direction::Read, shape)),
                    write: find(block(Direction::Write, shape)),
                })
                .collect(),
            small_files: backup_copy(&self.results, SetKind::Small),
            mixed: backup_copy(&self.results, SetKind::Mixed),
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
    fn the_headline_picks_the_block_variants_and_the_backup_tools_copies() {
        let result = |test: &str, variant: &str, median: f64| {
            serde_json::json!({ "test": test, "variant": variant, "median": median,
                "method": "direct", "engine": "sync" })
        };
        let run: RunDocument = serde_json::from_value(serde_json::json!({ "results": [
            result("seq-write", "SEQ1M-Q8T1", 100.0),
            result("4k-read", "RND4K-Q1T1", 10.0),
            result("files-copy", "small-4t-cache-off", 5.0),
            result("files-copy", "small-1t-cache-on", 9.0),
            result("files-copy", "small-4t-cache-on", 50.0),
            result("tm-check", "50MB", 80.0),
            result("files-copy", "mixed-1t-cache-off", 7.0),
        ]}))
        .unwrap();
        let h = run.headline();
        let row = |name: &str, read, write| BlockRow {
            name: name.into(),
            read,
            write,
        };
        assert_eq!(h.block[0], row("SEQ1M-Q8T1", None, Some(0)));
        assert_eq!(h.block[3], row("RND4K-Q1T1", Some(1), None));
        assert_eq!(h.small_files, Some(3), "one thread before the cache");
        assert_eq!(h.mixed, Some(6), "the write cache off first");
        assert_eq!(h.tm_check, [5]);
        assert!(!h.is_empty() && RunDocument::default().headline().is_empty());
    }
}
