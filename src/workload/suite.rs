//! The suite: every test variant declared once, with its fixed parameters and what it does. This
//! one table drives `--tests`, the runner, `destbench list`, `--help` and the reports.

use std::borrow::Cow;

#[cfg(test)]
use super::SetKind;
use super::shape::{CopyProgram, FileOp, MetaOp, SetName, Workload};
use super::{Direction, Pattern, TestId};

/// What the file-level part of the suite covers (from the profile and the command line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteOptions {
    pub sets: Vec<SetName>,
    pub threads: Vec<usize>,
    pub meta_files: usize,
    /// The copy programs each set is also copied with (those found on this system).
    pub programs: Vec<CopyProgram>,
}

/// One variant of one test, declared once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    pub test: TestId,
    /// Rendered from `workload` ([`Workload::name`]), never parsed back.
    pub name: String,
    pub workload: Workload,
    pub about: String,
}

impl Variant {
    pub fn new(test: TestId, workload: Workload, about: impl Into<String>) -> Variant {
        Variant {
            test,
            name: workload.name(),
            workload,
            about: about.into(),
        }
    }
}

const MIB: usize = 1 << 20;
const KIB4: usize = 4096;
/// QuickBench's transfer sizes, decimal megabytes.
pub const TRANSFER_SIZES: &[u64] = &[20_000_000, 40_000_000, 60_000_000, 80_000_000, 100_000_000];
const TM_BIG_FILE: &[u64] = &[50_000_000];
/// Time Machine writes 4096-byte files in its 500-file check.
pub const TM_SMALL_FILES: usize = 500;
pub const TM_SMALL_SIZE: u64 = 4096;

/// A block variant's shape and what it does: (pattern, block, depth, about).
type BlockShape = (Pattern, usize, usize, &'static str);

/// The block variants of `seq-write` and `seq-read`, after their whole-file transfers.
const SEQUENTIAL_BLOCKS: [BlockShape; 2] = [
    (
        Pattern::Sequential,
        MIB,
        1,
        "1 MiB blocks in order, one in flight",
    ),
    (
        Pattern::Sequential,
        MIB,
        8,
        "1 MiB blocks in order, eight in flight",
    ),
];

/// The block variants of `4k-write` and `4k-read`.
const FOUR_K_BLOCKS: [BlockShape; 3] = [
    (
        Pattern::Sequential,
        KIB4,
        1,
        "4 KiB blocks in order, one in flight",
    ),
    (
        Pattern::Random,
        KIB4,
        1,
        "4 KiB blocks at random offsets, one in flight",
    ),
    (
        Pattern::Random,
        KIB4,
        32,
        "4 KiB blocks at random offsets, 32 in flight",
    ),
];

fn blocks(test: TestId, direction: Direction, shapes: &[BlockShape]) -> Vec<Variant> {
    shapes
        .iter()
        .map(|&(pattern, block, depth, about)| {
            let workload = Workload::Block {
                direction,
                pattern,
                block,
                depth,
            };
            Variant::new(test, workload, about)
        })
        .collect()
}

/// Whether a share's run leaves `variant` out of the profile's own tests: the server's memory
/// stands between the client's 4 KiB requests and its disks, so 4 KiB blocks written in order
/// or 32 at a time are the server's flush, as one at a time at random is, and read in order
/// they cost the round trip a random read does (docs/methods.md has the figures). The share
/// gives their time to its other figures.
pub fn left_out_on_a_share(variant: &Variant) -> bool {
    match variant.workload {
        Workload::Block {
            direction,
            pattern,
            block: KIB4,
            depth,
        } => pattern == Pattern::Sequential || (direction == Direction::Write && depth > 1),
        _ => false,
    }
}

/// The whole suite, in run order.
pub fn suite(options: &SuiteOptions) -> Vec<Variant> {
    use Direction::{Read, Write};
    // First: it finds a write cache as a backup meets it, before the run's other writes fill it.
    let mut variants = vec![Variant::new(
        TestId::Sustained,
        Workload::Sustained {
            block: MIB,
            depth: 8,
        },
        "one new file, 1 MiB blocks, eight in flight, until the rate is steady (or --time / the size cap); the cliff and the bytes before it",
    )];
    for (test, direction) in [(TestId::SeqWrite, Write), (TestId::SeqRead, Read)] {
        variants.push(transfers(test, direction, Cow::Borrowed(TRANSFER_SIZES)));
        variants.extend(blocks(test, direction, &SEQUENTIAL_BLOCKS));
    }
    for (test, direction) in [(TestId::FourKWrite, Write), (TestId::FourKRead, Read)] {
        variants.extend(blocks(test, direction, &FOUR_K_BLOCKS));
    }
    variants.extend(time_machine_check());
    variants.extend(file_variants(options));
    variants.extend([
        Variant::new(
            TestId::Throttled,
            Workload::Throttled { block: MIB },
            "a 1 MiB-block backup write at background (idle) I/O priority and at normal priority, each beside a foreground reader; the slowdown of each side",
        ),
        Variant::new(
            TestId::TmBackup,
            Workload::TmBackup,
            "a first backup (the file size of user data) and an incremental into a sparse bundle, each round flushed and ended by Info.plist's full flush; then a plain copy of the same bytes",
        ),
    ]);
    variants
}

/// QuickBench's whole-file transfers of `sizes`, read or written.
fn transfers(test: TestId, direction: Direction, sizes: Cow<'static, [u64]>) -> Variant {
    let mb: Vec<String> = sizes.iter().map(|s| (s / 1_000_000).to_string()).collect();
    let (last, first) = mb.split_last().expect("five transfer sizes");
    let about = format!(
        "whole files of {} and {last} MB, 1 MiB blocks; mean of the five rates",
        first.join(", ")
    );
    let workload = Workload::WholeFiles {
        direction,
        sizes,
        block: MIB,
    };
    Variant::new(test, workload, about)
}

/// `variant` as a run sized for a slow destination makes it (`RunPlan::sized`): QuickBench's
/// transfers at a `divisor`th of their sizes (20-100 MB, 10-50, 4-20, 2-10 for the divisors
/// 1, 2, 5 and 10), named for the sizes they are; any other variant as it is.
pub fn sized(variant: &Variant, divisor: u64) -> Variant {
    match &variant.workload {
        Workload::WholeFiles {
            direction, sizes, ..
        } if sizes.as_ref() == TRANSFER_SIZES && divisor > 1 => {
            let divided = TRANSFER_SIZES.iter().map(|s| s / divisor).collect();
            transfers(variant.test, *direction, Cow::Owned(divided))
        }
        _ => variant.clone(),
    }
}

/// Time Machine's destination check: one big file, then many small ones at once.
fn time_machine_check() -> [Variant; 2] {
    [
        Variant::new(
            TestId::TmCheck,
            Workload::WholeFiles {
                direction: Direction::Write,
                sizes: Cow::Borrowed(TM_BIG_FILE),
                block: MIB,
            },
            "one new 50 MB file, as Time Machine's destination check",
        ),
        Variant::new(
            TestId::TmCheck,
            Workload::ManyFiles {
                count: TM_SMALL_FILES,
                size: TM_SMALL_SIZE,
            },
            "500 new 4 KB files written concurrently, as Time Machine's destination check",
        ),
    ]
}

/// The file-set and metadata variants: every set with every thread count; copies with the write
/// cache on and off, and with each copy program.
fn file_variants(options: &SuiteOptions) -> Vec<Variant> {
    let mut variants = Vec::new();
    let file_set = |test, op, set: SetName, threads: usize, about: String| {
        Variant::new(test, Workload::FileSet { op, set, threads }, about)
    };
    for &set in &options.sets {
        for &threads in &options.threads {
            for cache_on in [true, false] {
                let (cache, how) = if cache_on {
                    ("on", "one syncfs at the end, timed")
                } else {
                    ("off", "every file fsync'd")
                };
                variants.push(file_set(
                    TestId::FilesCopy,
                    FileOp::Copy { cache_on },
                    set,
                    threads,
                    format!(
                        "copy the {set} set with {threads} thread(s), write cache {cache} ({how})"
                    ),
                ));
            }
        }
        for &program in &options.programs {
            variants.push(file_set(
                TestId::FilesCopy,
                FileOp::CopyWith(program),
                set,
                1,
                format!(
                    "copy the {set} set with {program} -a, as a backup tool runs it (one syncfs at the end, timed)"
                ),
            ));
            // A walk's cost is per file: the first set (the profile's most files) says it.
            if options.sets.first() == Some(&set) {
                variants.push(file_set(
                    TestId::FilesCopy,
                    FileOp::UpdateWith(program),
                    set,
                    1,
                    format!(
                        "{program} -a of the {set} set again onto its unchanged copy: a routine backup's walk (files/s)"
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
                format!("read the copied {set} set back with {threads} thread(s), after eviction"),
            ));
        }
        for &threads in &options.threads {
            variants.push(file_set(
                TestId::FilesDelete,
                FileOp::Delete,
                set,
                threads,
                format!("delete the copied {set} set with {threads} thread(s), syncfs timed"),
            ));
        }
    }
    for op in MetaOp::ALL {
        let count = options.meta_files;
        variants.push(Variant::new(
            TestId::Meta,
            Workload::Meta { op, count },
            format!("{} {count} empty files, one thread", op.as_str()),
        ));
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
        programs: vec![CopyProgram::Rsync],
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

    /// A share leaves out 4 KiB writes in order and 32 in flight, and reads in order; it keeps
    /// one request at a time at random (a round trip) and reads 32 at a time.
    #[test]
    fn a_share_leaves_out_three_4k_variants() {
        let name = |v: &Variant| format!("{} {}", v.test, v.name);
        let all = suite(&test_options());
        let left: Vec<String> = all
            .iter()
            .filter(|v| left_out_on_a_share(v))
            .map(name)
            .collect();
        assert_eq!(
            left,
            [
                "4k-write SEQ4K-Q1T1",
                "4k-write RND4K-Q32T1",
                "4k-read SEQ4K-Q1T1"
            ]
        );
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
                "small-rsync",
                "small-rsync-update",
                "mixed-1t-cache-on",
                "mixed-1t-cache-off",
                "mixed-4t-cache-on",
                "mixed-4t-cache-off",
                "mixed-rsync",
            ]
        );
    }

    /// A sized run's transfers keep five whole-megabyte sizes and are named for them; Time
    /// Machine's 50 MB file is its own and keeps its size.
    #[test]
    fn sized_transfers_are_named_for_their_sizes() {
        let all = suite(&test_options());
        let named = |divisor| -> Vec<String> {
            all.iter()
                .filter(|v| matches!(v.workload, Workload::WholeFiles { .. }))
                .map(|v| sized(v, divisor))
                .map(|v| format!("{} {}", v.test, v.name))
                .collect()
        };
        assert_eq!(
            named(1),
            ["seq-write 20-100MB", "seq-read 20-100MB", "tm-check 50MB"]
        );
        assert_eq!(
            named(10),
            ["seq-write 2-10MB", "seq-read 2-10MB", "tm-check 50MB"]
        );
        let write = all.iter().find(|v| v.name == "20-100MB").unwrap();
        let write = sized(write, 5);
        assert_eq!(write.name, "4-20MB");
        assert_eq!(
            write.about,
            "whole files of 4, 8, 12, 16 and 20 MB, 1 MiB blocks; mean of the five rates"
        );
    }
}
