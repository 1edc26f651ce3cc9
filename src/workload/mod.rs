//! What I/O is issued: the tests, their variants and parameters, and the profiles.
//!
//! Every test variant is declared once, in [`suite`], with its fixed parameters; that one table
//! drives `--tests`, the runner, the docs (`destbench list`) and the reports.

mod data;
pub mod fileset;
mod profile;

use std::fmt;
use std::str::FromStr;

pub use data::DataStamper;
pub use profile::{Profile, ProfileName};

/// The test ids of DESIGN.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum TestId {
    #[serde(rename = "seq-write")]
    SeqWrite,
    #[serde(rename = "seq-read")]
    SeqRead,
    #[serde(rename = "4k-write")]
    FourKWrite,
    #[serde(rename = "4k-read")]
    FourKRead,
    #[serde(rename = "tm-check")]
    TmCheck,
}

impl TestId {
    pub const ALL: [TestId; 5] = [
        TestId::SeqWrite,
        TestId::SeqRead,
        TestId::FourKWrite,
        TestId::FourKRead,
        TestId::TmCheck,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TestId::SeqWrite => "seq-write",
            TestId::SeqRead => "seq-read",
            TestId::FourKWrite => "4k-write",
            TestId::FourKRead => "4k-read",
            TestId::TmCheck => "tm-check",
        }
    }
}

impl fmt::Display for TestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for TestId {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TestId::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| {
                let known: Vec<&str> = TestId::ALL.iter().map(|t| t.as_str()).collect();
                format!("unknown test '{s}' (known: {})", known.join(", "))
            })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Read,
    Write,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Pattern {
    Sequential,
    Random,
}

/// The shape of the I/O of one variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Workload {
    /// Blocks over the shared test file for the profile's duration (CrystalDiskMark style): the
    /// file is written once before the first such test, untimed, and overwritten in place.
    Block {
        direction: Direction,
        pattern: Pattern,
        block: usize,
        depth: usize,
    },
    /// Whole new files, start to end, one after another: each file's rate is timed from create to
    /// durable (write) or from open to last byte (read); the figure is the mean of the files'
    /// rates, as QuickBench averages its 20-100 MB transfers.
    WholeFiles {
        direction: Direction,
        sizes: &'static [u64],
        block: usize,
    },
    /// `count` new files of `size` bytes written at once (Time Machine's check): timed from the
    /// first create to the last file durable.
    ManyFiles { count: usize, size: u64 },
}

/// One variant of one test, declared once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    pub test: TestId,
    pub name: &'static str,
    pub workload: Workload,
    pub about: &'static str,
}

const MIB: usize = 1 << 20;
const KIB4: usize = 4096;
/// QuickBench's transfer sizes, decimal megabytes.
pub const TRANSFER_SIZES: &[u64] = &[20_000_000, 40_000_000, 60_000_000, 80_000_000, 100_000_000];
const TM_BIG_FILE: &[u64] = &[50_000_000];
/// Time Machine writes 4096-byte files in its 500-file check.
pub const TM_SMALL_FILES: usize = 500;
pub const TM_SMALL_SIZE: u64 = 4096;

fn block(direction: Direction, pattern: Pattern, block: usize, depth: usize) -> Workload {
    Workload::Block {
        direction,
        pattern,
        block,
        depth,
    }
}

/// The whole suite, in run order.
pub fn suite() -> Vec<Variant> {
    use Direction::{Read, Write};
    use Pattern::{Random, Sequential};
    let mut variants = Vec::new();
    for (test, direction) in [(TestId::SeqWrite, Write), (TestId::SeqRead, Read)] {
        variants.extend([
            Variant {
                test,
                name: "20-100MB",
                workload: Workload::WholeFiles {
                    direction,
                    sizes: TRANSFER_SIZES,
                    block: MIB,
                },
                about: "whole files of 20, 40, 60, 80 and 100 MB, 1 MiB blocks; mean of the five rates",
            },
            Variant {
                test,
                name: "SEQ1M-Q1T1",
                workload: block(direction, Sequential, MIB, 1),
                about: "1 MiB blocks in order, one in flight",
            },
            Variant {
                test,
                name: "SEQ1M-Q8T1",
                workload: block(direction, Sequential, MIB, 8),
                about: "1 MiB blocks in order, eight in flight",
            },
        ]);
    }
    for (test, direction) in [(TestId::FourKWrite, Write), (TestId::FourKRead, Read)] {
        variants.extend([
            Variant {
                test,
                name: "SEQ4K-Q1T1",
                workload: block(direction, Sequential, KIB4, 1),
                about: "4 KiB blocks in order, one in flight",
            },
            Variant {
                test,
                name: "RND4K-Q1T1",
                workload: block(direction, Random, KIB4, 1),
                about: "4 KiB blocks at random offsets, one in flight",
            },
            Variant {
                test,
                name: "RND4K-Q32T1",
                workload: block(direction, Random, KIB4, 32),
                about: "4 KiB blocks at random offsets, 32 in flight",
            },
        ]);
    }
    variants.extend([
        Variant {
            test: TestId::TmCheck,
            name: "50MB",
            workload: Workload::WholeFiles {
                direction: Direction::Write,
                sizes: TM_BIG_FILE,
                block: MIB,
            },
            about: "one new 50 MB file, as Time Machine's destination check",
        },
        Variant {
            test: TestId::TmCheck,
            name: "500x4KB",
            workload: Workload::ManyFiles {
                count: TM_SMALL_FILES,
                size: TM_SMALL_SIZE,
            },
            about: "500 new 4 KB files written concurrently, as Time Machine's destination check",
        },
    ]);
    variants
}

/// A `--tests` entry: a test id, optionally with one variant (`seq-read:SEQ1M-Q8T1`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestSelector {
    pub test: TestId,
    pub variant: Option<String>,
}

impl FromStr for TestSelector {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (test, variant) = match s.split_once(':') {
            Some((t, v)) => (t, Some(v.to_string())),
            None => (s, None),
        };
        let test: TestId = test.trim().parse()?;
        if let Some(v) = &variant
            && !suite()
                .iter()
                .any(|x| x.test == test && x.name.eq_ignore_ascii_case(v))
        {
            let known: Vec<&str> = suite()
                .iter()
                .filter(|x| x.test == test)
                .map(|x| x.name)
                .collect();
            return Err(format!(
                "test '{test}' has no variant '{v}' (known: {})",
                known.join(", ")
            ));
        }
        Ok(TestSelector { test, variant })
    }
}

/// The variants of the suite picked by `selectors` (all of `default_tests` when empty), in suite
/// order.
pub fn select(selectors: &[TestSelector], default_tests: &[TestId]) -> Vec<Variant> {
    suite()
        .into_iter()
        .filter(|v| {
            if selectors.is_empty() {
                default_tests.contains(&v.test)
            } else {
                selectors.iter().any(|s| {
                    s.test == v.test
                        && s.variant
                            .as_deref()
                            .is_none_or(|name| name.eq_ignore_ascii_case(v.name))
                })
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_test_has_variants_and_names_are_unique_per_test() {
        let all = suite();
        for test in TestId::ALL {
            assert!(all.iter().any(|v| v.test == test), "{test} has no variant");
        }
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert!(
                    !(a.test == b.test && a.name == b.name),
                    "{} {} twice",
                    a.test,
                    a.name
                );
            }
        }
    }

    #[test]
    fn selectors_parse_and_select() {
        let s: TestSelector = "seq-read:seq1m-q8t1".parse().unwrap();
        let picked = select(&[s], &[]);
        assert_eq!(picked.len(), 1);
        assert_eq!(picked[0].name, "SEQ1M-Q8T1");
        assert_eq!(select(&["tm-check".parse().unwrap()], &[]).len(), 2);
        assert!(
            "nope"
                .parse::<TestSelector>()
                .unwrap_err()
                .contains("unknown test 'nope'")
        );
        assert!(
            "seq-read:XYZ"
                .parse::<TestSelector>()
                .unwrap_err()
                .contains("no variant")
        );
    }
}
