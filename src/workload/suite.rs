//! The suite: every test variant declared once, with its fixed parameters and what it does. This
//! one table drives `--tests`, the runner, `destbench list`, `--help` and the reports.

use std::fmt;

use super::{Direction, Pattern, SetKind, TestId};

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

/// Two sets (small, mixed), 1 and 4 threads, 100 metadata files: the suite the unit tests use.
#[cfg(test)]
pub(crate) fn test_options() -> SuiteOptions {
    SuiteOptions {
        sets: vec![
            SetName::Generated(SetKind::Small),
            SetName::Generated(SetKind::Mixed),
        ],
        threads: vec![1, 4],
        meta_files: 100,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_test_has_variants_and_names_are_unique_per_test() {
        let all = suite(&test_options());
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
        let names: Vec<String> = suite(&test_options())
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
}
