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
pub use fileset::SetKind;
pub use profile::{Profile, ProfileName};

/// The test ids of DESIGN.md.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
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
    #[serde(rename = "files-copy")]
    FilesCopy,
    #[serde(rename = "files-restore")]
    FilesRestore,
    #[serde(rename = "files-delete")]
    FilesDelete,
    #[serde(rename = "meta")]
    Meta,
    #[serde(rename = "sustained")]
    Sustained,
    #[serde(rename = "throttled")]
    Throttled,
}

impl TestId {
    pub const ALL: [TestId; 11] = [
        TestId::SeqWrite,
        TestId::SeqRead,
        TestId::FourKWrite,
        TestId::FourKRead,
        TestId::TmCheck,
        TestId::FilesCopy,
        TestId::FilesRestore,
        TestId::FilesDelete,
        TestId::Meta,
        TestId::Sustained,
        TestId::Throttled,
    ];

    /// Every test but the long-running `sustained` and `throttled`.
    pub const STANDARD: [TestId; 9] = [
        TestId::SeqWrite,
        TestId::SeqRead,
        TestId::FourKWrite,
        TestId::FourKRead,
        TestId::TmCheck,
        TestId::FilesCopy,
        TestId::FilesRestore,
        TestId::FilesDelete,
        TestId::Meta,
    ];

    /// The block and Time Machine tests (no file sets).
    pub const BLOCK: [TestId; 5] = [
        TestId::SeqWrite,
        TestId::SeqRead,
        TestId::FourKWrite,
        TestId::FourKRead,
        TestId::TmCheck,
    ];

    /// Tests that work on file sets and files through the filesystem, not the block engine.
    pub fn is_file_level(self) -> bool {
        matches!(
            self,
            TestId::FilesCopy | TestId::FilesRestore | TestId::FilesDelete | TestId::Meta
        )
    }

    /// Tests the null engine cannot run: they work on real files or need real devices (time
    /// series to the steady state, I/O priorities).
    pub fn needs_real_io(self) -> bool {
        self.is_file_level() || matches!(self, TestId::Sustained | TestId::Throttled)
    }

    /// Tests measured once whatever `--runs` says: one long time series is the measurement.
    pub fn single_run(self) -> bool {
        matches!(self, TestId::Sustained | TestId::Throttled)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            TestId::SeqWrite => "seq-write",
            TestId::SeqRead => "seq-read",
            TestId::FourKWrite => "4k-write",
            TestId::FourKRead => "4k-read",
            TestId::TmCheck => "tm-check",
            TestId::FilesCopy => "files-copy",
            TestId::FilesRestore => "files-restore",
            TestId::FilesDelete => "files-delete",
            TestId::Meta => "meta",
            TestId::Sustained => "sustained",
            TestId::Throttled => "throttled",
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
    /// A file set copied, restored or deleted by `threads` threads pulling from one queue.
    FileSet {
        op: FileOp,
        set: SetName,
        threads: usize,
    },
    /// Metadata operations on empty files, one thread.
    Meta { op: MetaOp, count: usize },
    /// One new file written from start until the rate is steady or a cap is reached, blocks of
    /// `block` bytes, `depth` in flight (see `stats::steady`).
    Sustained { block: usize, depth: usize },
    /// The backup-shaped write (sequential, `block` bytes, QD1) beside a foreground reader of
    /// the same device, with and without background I/O priority.
    Throttled { block: usize },
}

/// What a file-set test does with the set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileOp {
    /// Copy from the source to the destination. Cache on: buffered writes, one syncfs at the
    /// end inside the timing; cache off: every file fsync'd before its thread moves on.
    Copy { cache_on: bool },
    /// Read the copied set back after evicting it from the page cache.
    Restore,
    /// Delete the copied set.
    Delete,
}

/// Which file set: a generated one, or the user's `--source` folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SetName {
    Generated(SetKind),
    Source,
}

impl fmt::Display for SetName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetName::Generated(kind) => kind.fmt(f),
            SetName::Source => f.write_str("source"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetaOp {
    Create,
    Stat,
    Rename,
    Delete,
}

impl MetaOp {
    pub const ALL: [MetaOp; 4] = [MetaOp::Create, MetaOp::Stat, MetaOp::Rename, MetaOp::Delete];

    pub fn as_str(self) -> &'static str {
        match self {
            MetaOp::Create => "create",
            MetaOp::Stat => "stat",
            MetaOp::Rename => "rename",
            MetaOp::Delete => "delete",
        }
    }
}

/// What the file-level part of the suite covers (from the profile and the command line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteOptions {
    pub sets: Vec<SetName>,
    pub threads: Vec<usize>,
    pub meta_files: usize,
}

/// One variant of one test, declared once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    pub test: TestId,
    pub name: String,
    pub workload: Workload,
    pub about: String,
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
pub fn suite(options: &SuiteOptions) -> Vec<Variant> {
    use Direction::{Read, Write};
    use Pattern::{Random, Sequential};
    let mut variants = Vec::new();
    for (test, direction) in [(TestId::SeqWrite, Write), (TestId::SeqRead, Read)] {
        variants.extend([
            Variant {
                test,
                name: "20-100MB".into(),
                workload: Workload::WholeFiles {
                    direction,
                    sizes: TRANSFER_SIZES,
                    block: MIB,
                },
                about:
                    "whole files of 20, 40, 60, 80 and 100 MB, 1 MiB blocks; mean of the five rates"
                        .into(),
            },
            Variant {
                test,
                name: "SEQ1M-Q1T1".into(),
                workload: block(direction, Sequential, MIB, 1),
                about: "1 MiB blocks in order, one in flight".into(),
            },
            Variant {
                test,
                name: "SEQ1M-Q8T1".into(),
                workload: block(direction, Sequential, MIB, 8),
                about: "1 MiB blocks in order, eight in flight".into(),
            },
        ]);
    }
    for (test, direction) in [(TestId::FourKWrite, Write), (TestId::FourKRead, Read)] {
        variants.extend([
            Variant {
                test,
                name: "SEQ4K-Q1T1".into(),
                workload: block(direction, Sequential, KIB4, 1),
                about: "4 KiB blocks in order, one in flight".into(),
            },
            Variant {
                test,
                name: "RND4K-Q1T1".into(),
                workload: block(direction, Random, KIB4, 1),
                about: "4 KiB blocks at random offsets, one in flight".into(),
            },
            Variant {
                test,
                name: "RND4K-Q32T1".into(),
                workload: block(direction, Random, KIB4, 32),
                about: "4 KiB blocks at random offsets, 32 in flight".into(),
            },
        ]);
    }
    variants.extend([
        Variant {
            test: TestId::TmCheck,
            name: "50MB".into(),
            workload: Workload::WholeFiles {
                direction: Direction::Write,
                sizes: TM_BIG_FILE,
                block: MIB,
            },
            about: "one new 50 MB file, as Time Machine's destination check".into(),
        },
        Variant {
            test: TestId::TmCheck,
            name: "500x4KB".into(),
            workload: Workload::ManyFiles {
                count: TM_SMALL_FILES,
                size: TM_SMALL_SIZE,
            },
            about: "500 new 4 KB files written concurrently, as Time Machine's destination check"
                .into(),
        },
    ]);
    variants.extend(file_variants(options));
    variants.extend([
        Variant {
            test: TestId::Sustained,
            name: "SEQ1M-Q8T1".into(),
            workload: Workload::Sustained {
                block: MIB,
                depth: 8,
            },
            about: "one new file, 1 MiB blocks, eight in flight, until the rate is steady (or --time / the size cap); the cliff and the bytes before it".into(),
        },
        Variant {
            test: TestId::Throttled,
            name: "1M-write-vs-read".into(),
            workload: Workload::Throttled { block: MIB },
            about: "a 1 MiB-block backup write at background (idle) I/O priority and at normal priority, each beside a foreground reader; the slowdown of each side".into(),
        },
    ]);
    variants
}

/// The file-set and metadata variants: every set with every thread count; copies with the write
/// cache on and off.
fn file_variants(options: &SuiteOptions) -> Vec<Variant> {
    let mut variants = Vec::new();
    let file_set = |test, op, set: SetName, threads: usize, name: String, about: String| Variant {
        test,
        name,
        workload: Workload::FileSet { op, set, threads },
        about,
    };
    for &set in &options.sets {
        for &threads in &options.threads {
            for cache_on in [true, false] {
                let cache = if cache_on { "on" } else { "off" };
                variants.push(file_set(
                    TestId::FilesCopy,
                    FileOp::Copy { cache_on },
                    set,
                    threads,
                    format!("{set}-{threads}t-cache-{cache}"),
                    format!(
                        "copy the {set} set with {threads} thread(s), write cache {cache} ({})",
                        if cache_on {
                            "one syncfs at the end, timed"
                        } else {
                            "every file fsync'd"
                        }
                    ),
                ));
            }
        }
        for &threads in &options.threads {
            variants.push(file_set(
                TestId::FilesRestore,
                FileOp::Restore,
                set,
                threads,
                format!("{set}-{threads}t"),
                format!("read the copied {set} set back with {threads} thread(s), after eviction"),
            ));
        }
        for &threads in &options.threads {
            variants.push(file_set(
                TestId::FilesDelete,
                FileOp::Delete,
                set,
                threads,
                format!("{set}-{threads}t"),
                format!("delete the copied {set} set with {threads} thread(s), syncfs timed"),
            ));
        }
    }
    for op in MetaOp::ALL {
        variants.push(Variant {
            test: TestId::Meta,
            name: op.as_str().into(),
            workload: Workload::Meta {
                op,
                count: options.meta_files,
            },
            about: format!(
                "{} {} empty files, one thread",
                op.as_str(),
                options.meta_files
            ),
        });
    }
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
    /// Checks the test id; whether the variant exists depends on the other options (threads,
    /// sets) and is checked by [`select`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (test, variant) = match s.split_once(':') {
            Some((t, v)) => (t, Some(v.to_string())),
            None => (s, None),
        };
        let test: TestId = test.trim().parse()?;
        Ok(TestSelector { test, variant })
    }
}

/// The variants of `suite` picked by `selectors` (all of `default_tests` when empty), in suite
/// order; an error names a selected variant that does not exist.
pub fn select(
    suite: Vec<Variant>,
    selectors: &[TestSelector],
    default_tests: &[TestId],
) -> Result<Vec<Variant>, String> {
    for selector in selectors {
        if let Some(name) = &selector.variant
            && !suite
                .iter()
                .any(|v| v.test == selector.test && v.name.eq_ignore_ascii_case(name))
        {
            let known: Vec<&str> = suite
                .iter()
                .filter(|v| v.test == selector.test)
                .map(|v| v.name.as_str())
                .collect();
            return Err(format!(
                "test '{}' has no variant '{name}' (known: {})",
                selector.test,
                known.join(", ")
            ));
        }
    }
    Ok(suite
        .into_iter()
        .filter(|v| {
            if selectors.is_empty() {
                default_tests.contains(&v.test)
            } else {
                selectors.iter().any(|s| {
                    s.test == v.test
                        && s.variant
                            .as_deref()
                            .is_none_or(|name| name.eq_ignore_ascii_case(&v.name))
                })
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> SuiteOptions {
        SuiteOptions {
            sets: vec![
                SetName::Generated(SetKind::Small),
                SetName::Generated(SetKind::Mixed),
            ],
            threads: vec![1, 4],
            meta_files: 100,
        }
    }

    #[test]
    fn every_test_has_variants_and_names_are_unique_per_test() {
        let all = suite(&options());
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
    fn file_variants_cover_sets_threads_and_cache_modes() {
        let names: Vec<String> = suite(&options())
            .into_iter()
            .filter(|v| v.test == TestId::FilesCopy)
            .map(|v| v.name)
            .collect();
        assert_eq!(
            names,
            [
                "small-1t-cache-on",
                "small-1t-cache-off",
                "small-4t-cache-on",
                "small-4t-cache-off",
                "mixed-1t-cache-on",
                "mixed-1t-cache-off",
                "mixed-4t-cache-on",
                "mixed-4t-cache-off",
            ]
        );
    }

    #[test]
    fn selectors_parse_and_select() {
        let pick = |list: &[&str]| {
            let selectors: Vec<TestSelector> = list.iter().map(|s| s.parse().unwrap()).collect();
            select(suite(&options()), &selectors, &[])
        };
        let picked = pick(&["seq-read:seq1m-q8t1"]).unwrap();
        assert_eq!(picked.len(), 1);
        assert_eq!(picked[0].name, "SEQ1M-Q8T1");
        assert_eq!(pick(&["tm-check"]).unwrap().len(), 2);
        assert_eq!(pick(&["meta"]).unwrap().len(), 4);
        assert!(
            "nope"
                .parse::<TestSelector>()
                .unwrap_err()
                .contains("unknown test 'nope'")
        );
        assert!(
            pick(&["seq-read:XYZ"])
                .unwrap_err()
                .contains("no variant 'XYZ'")
        );
        assert!(
            pick(&["files-copy:small-3t-cache-on"])
                .unwrap_err()
                .contains("small-1t-cache-on")
        );
    }
}
