//! Profiles: how long and how often the suite runs. Sizes here are the defaults `--size` and
//! `--runs` override.

use std::time::Duration;

use super::{SetKind, TestId};

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    strum::IntoStaticStr,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum ProfileName {
    Quick,
    /// The default: about 90 s (its time budget), longer only on a slow destination.
    #[default]
    Backup,
    Full,
}

impl ProfileName {
    pub const ALL: [ProfileName; 3] = [ProfileName::Quick, ProfileName::Backup, ProfileName::Full];
}

impl ProfileName {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// The parameters a profile fixes.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    pub name: ProfileName,
    /// The least repetitions of every test variant (`--runs N` asks for exactly N instead).
    pub min_runs: usize,
    /// The most repetitions of a variant whose median is not yet known to `precision`.
    pub max_runs: usize,
    /// A variant repeats until the 95% confidence interval of its median is within this
    /// fraction of it (`stats::precision`), or its share of `budget` runs out.
    pub precision: f64,
    /// The time the run aims at, shared out over the variants (stretched only when even
    /// `min_runs` of each take longer: a slow destination).
    pub budget: Duration,
    /// How long each block-test repetition runs at most (`--duration` makes it exactly this).
    pub block_duration: Duration,
    /// The least every repetition of every test should last (`--min-time` overrides): a
    /// file-set repetition goes over its set again until it does, and a block test stops
    /// once its rate is steady but not before.
    pub min_time: Duration,
    /// Size of the shared file the block tests work on.
    pub file_size: u64,
    /// Width of one point of the throughput time series.
    pub series_interval: Duration,
    /// The tests run when `--tests` is not given.
    pub tests: &'static [TestId],
    /// The generated file sets and their total sizes.
    pub sets: &'static [(SetKind, u64)],
    /// Thread counts of the file-set tests.
    pub threads: &'static [usize],
    /// Empty files per metadata test.
    pub meta_files: usize,
    /// Verify restored files against the source with blake3.
    pub verify: bool,
    /// The longest the sustained test writes (`--time` overrides).
    pub sustained_time: Duration,
    /// The most the sustained test writes (`--size`, when given, caps it instead).
    pub sustained_size: u64,
}

const MB: u64 = 1_000_000;

impl Profile {
    pub fn get(name: ProfileName) -> Profile {
        match name {
            // About 15 s on an ordinary SSD.
            ProfileName::Quick => Profile {
                name,
                min_runs: 2,
                max_runs: 5,
                precision: 0.02,
                budget: Duration::from_secs(15),
                block_duration: Duration::from_millis(500),
                min_time: Duration::from_millis(250),
                file_size: 64 << 20,
                series_interval: Duration::from_millis(100),
                // File sets are opt-in here (--tests files-copy), to stay near 15 s.
                tests: TestId::BLOCK,
                sets: &[(SetKind::Mixed, 50 * MB)],
                threads: &[1, 4],
                meta_files: 200,
                verify: false,
                sustained_time: Duration::from_secs(10),
                sustained_size: 4 << 30,
            },
            // About 90 s: every file-set repetition lasts at least --min-time (docs/methods.md).
            ProfileName::Backup => Profile {
                name,
                min_runs: 2,
                max_runs: 10,
                precision: 0.02,
                budget: Duration::from_secs(90),
                block_duration: Duration::from_millis(1500),
                min_time: Duration::from_millis(750),
                file_size: 512 << 20,
                series_interval: Duration::from_millis(250),
                // sustained and throttled would add minutes and gigabytes (docs/methods.md).
                tests: TestId::STANDARD,
                sets: &[(SetKind::Small, 30 * MB), (SetKind::Mixed, 100 * MB)],
                threads: &[1, 4],
                meta_files: 500,
                verify: true,
                sustained_time: Duration::from_secs(15),
                sustained_size: 16 << 30,
            },
            ProfileName::Full => Profile {
                name,
                min_runs: 3,
                max_runs: 20,
                precision: 0.02,
                budget: Duration::from_secs(600),
                block_duration: Duration::from_secs(5),
                min_time: Duration::from_secs(1),
                file_size: 1 << 30,
                series_interval: Duration::from_secs(1),
                tests: &TestId::ALL,
                sets: &[
                    (SetKind::Small, 200 * MB),
                    (SetKind::Medium, 400 * MB),
                    (SetKind::Large, 1 << 30),
                    (SetKind::Mixed, 600 * MB),
                ],
                threads: &[1, 2, 3, 4],
                meta_files: 5000,
                verify: true,
                sustained_time: Duration::from_secs(180),
                sustained_size: 64 << 30,
            },
        }
    }
}
