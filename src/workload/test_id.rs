//! The suite's tests by id (docs/commands.md lists them): the names `--tests`, the JSON and the history use.

/// The test ids of the suite.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
    strum::IntoStaticStr,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum TestId {
    SeqWrite,
    SeqRead,
    #[serde(rename = "4k-write")]
    #[strum(serialize = "4k-write")]
    FourKWrite,
    #[serde(rename = "4k-read")]
    #[strum(serialize = "4k-read")]
    FourKRead,
    TmCheck,
    FilesCopy,
    FilesRestore,
    FilesDelete,
    Meta,
    Sustained,
    Throttled,
    TmBackup,
}

impl TestId {
    /// Every test, in the order a run takes them: `sustained` first, to meet a write cache as
    /// a backup does, before the run's other writes fill it.
    pub const ALL: [TestId; 12] = concat(
        &[TestId::Sustained],
        &concat::<11>(Self::STANDARD, &[TestId::Throttled, TestId::TmBackup]),
    );

    /// Every test but the long-running `sustained`, `throttled` and `tm-backup`.
    pub const STANDARD: &[TestId] = &concat::<9>(
        Self::BLOCK,
        &[
            TestId::FilesCopy,
            TestId::FilesRestore,
            TestId::FilesDelete,
            TestId::Meta,
        ],
    );

    /// The block and Time Machine tests, no file sets.
    pub const BLOCK: &[TestId] = &[
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

    /// The direction of a block test's requests; None for the tests that are not one
    /// direction's blocks.
    pub fn block_direction(self) -> Option<super::Direction> {
        use super::Direction::{Read, Write};
        match self {
            TestId::SeqWrite | TestId::FourKWrite => Some(Write),
            TestId::SeqRead | TestId::FourKRead => Some(Read),
            _ => None,
        }
    }

    /// Tests that measure a real device (its cache cliff over time, its I/O scheduler): an
    /// engine without real I/O cannot run them. Every other test runs on any engine.
    pub fn needs_real_device(self) -> bool {
        matches!(self, TestId::Sustained | TestId::Throttled)
    }

    /// Tests measured once whatever `--runs` says: one long time series (or replay, whose
    /// rounds are its samples) is the measurement.
    pub fn single_run(self) -> bool {
        matches!(
            self,
            TestId::Sustained | TestId::Throttled | TestId::TmBackup
        )
    }

    /// Tests that take minutes: run by `--tests` and the full profile, not by the others.
    pub fn is_long(self) -> bool {
        self.single_run()
    }

    /// What the test does, in one line (for `--help`).
    pub fn about(self) -> &'static str {
        match self {
            TestId::SeqWrite => {
                "sequential writes: whole files of 20-100 MB, 1 MiB blocks at queue depth 1 and 8"
            }
            TestId::SeqRead => {
                "sequential reads: whole files of 20-100 MB, 1 MiB blocks at queue depth 1 and 8"
            }
            TestId::FourKWrite => "4 KiB writes: in order, at random at queue depth 1 and 32",
            TestId::FourKRead => "4 KiB reads: in order, at random at queue depth 1 and 32",
            TestId::TmCheck => {
                "Time Machine's destination check: one 50 MB file, then 500 files of 4 KB"
            }
            TestId::FilesCopy => "copy a file set with N threads, write cache on and off",
            TestId::FilesRestore => {
                "read a copied set back after eviction (verified with --verify)"
            }
            TestId::FilesDelete => "delete a copied set with N threads",
            TestId::Meta => "create, stat, rename and delete empty files",
            TestId::Sustained => {
                "write until the rate is steady: the cache size, the rate after the cliff"
            }
            TestId::Throttled => {
                "a background-priority write beside a foreground read: each one's slowdown"
            }
            TestId::TmBackup => {
                "Time Machine's backup: a sparse bundle's band writes and flush barriers, against a plain copy"
            }
        }
    }

    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// `a` then `b`, as a constant (a wrong `N` fails the build).
const fn concat<const N: usize>(a: &[TestId], b: &[TestId]) -> [TestId; N] {
    assert!(a.len() + b.len() == N);
    let mut out = [TestId::SeqWrite; N];
    let mut i = 0;
    while i < N {
        out[i] = if i < a.len() { a[i] } else { b[i - a.len()] };
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Direction;

    /// The named groups say what they hold, whatever the order of `ALL`.
    #[test]
    fn the_groups_are_what_their_names_say() {
        let standard: Vec<TestId> = TestId::ALL.into_iter().filter(|t| !t.is_long()).collect();
        assert_eq!(TestId::STANDARD, standard);
        let block: Vec<TestId> = standard
            .into_iter()
            .filter(|t| !t.is_file_level())
            .collect();
        assert_eq!(TestId::BLOCK, block);
    }

    /// The four block tests have a direction, the one their id names; no other test has one.
    #[test]
    fn block_tests_have_the_direction_they_are_named_for() {
        for t in TestId::ALL {
            let named = ["-read", "-write"].map(|d| t.as_str().ends_with(d));
            let expected = match named {
                [true, _] => Some(Direction::Read),
                [_, true] => Some(Direction::Write),
                _ => None,
            };
            assert_eq!(t.block_direction(), expected, "{t:?}");
        }
    }
}
