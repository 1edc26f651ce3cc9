//! Validated settings: what a caller asks of a run ([`RunOptions`], filled by the command line,
//! the config file ([`ConfigFile`]) or a library caller) becomes a [`RunPlan`]. Precedence (flag
//! over config file over profile) and every check live here, once, and an error names where the
//! bad value came from ([`Given`]). No I/O here, and no command line: nothing is parsed twice.

pub mod defs;
mod file;
pub mod flags;
mod given;
mod options;
mod plan;

pub use file::ConfigFile;
pub use given::{Given, Origin};
pub use options::RunOptions;

use std::path::PathBuf;
use std::time::Duration;

use crate::engine::EngineChoice;
use crate::workload::{self, CopyProgram, Profile, SetKind, SetName, SuiteOptions, Variant};

/// The smallest block-test file: one 1 MiB block is the unit of the sequential tests.
pub const MIN_FILE_SIZE: u64 = 1 << 20;
pub const MAX_RUNS: usize = 1000;
pub const MAX_DURATION_S: f64 = 3600.0;
pub const MAX_THREADS: usize = 64;
pub const MAX_SUSTAINED_S: f64 = 86400.0;

/// Everything a run needs, validated (from [`RunOptions::plan`]); the runner reads it.
#[derive(Debug, Clone)]
pub struct RunPlan {
    pub destination: PathBuf,
    pub profile: Profile,
    pub variants: Vec<Variant>,
    /// How many repetitions each variant gets.
    pub repeats: Repeats,
    /// Size of the block tests' file (a multiple of 1 MiB).
    pub file_size: u64,
    /// How long a block-test repetition runs: exactly, with `--duration`; else at most, as it
    /// stops once its rate is steady and `min_time` has passed.
    pub block_duration: Duration,
    /// Whether a block test stops once its rate is steady (no `--duration` given).
    pub block_until_steady: bool,
    /// The least every repetition should last (`--min-time`, else the profile's; zero: no
    /// minimum).
    pub min_time: Duration,
    pub engine: EngineChoice,
    /// Never use O_DIRECT (for checking the fallback path on filesystems that accept it).
    pub force_buffered: bool,
    /// May drop the machine's page cache (root only) when per-file eviction fails.
    pub allow_drop_caches: bool,
    /// Run rsync unconfined where the system cannot confine it (see `platform::confine`).
    pub unconfined_programs: bool,
    /// Refuse to start when the destination reports less free space than the run needs.
    pub check_space: bool,
    /// The file sets of the file-level tests.
    pub file_sets: Vec<SetPlan>,
    /// The user's folder to use as the file set (read-only).
    pub source: Option<PathBuf>,
    /// Whether walks of `source` enter other filesystems.
    pub cross_filesystems: bool,
    /// Where generated file sets are made.
    pub source_dir: PathBuf,
    /// Verify restored files against the source.
    pub verify: bool,
    pub seed: u64,
    pub label: Option<String>,
    /// The longest the sustained test writes (`--time`, else the profile's).
    pub sustained_time: Duration,
    /// The most the sustained test writes (`--size` when given, else the profile's); never more
    /// than the free space leaves.
    pub sustained_size: u64,
    /// tm-backup's band size (`--band-size`); `None` for the one Time Machine would choose for
    /// the destination's size.
    pub band_size: Option<u64>,
}

impl RunPlan {
    /// The variants the profile runs on its own (its tests, file sets and thread counts): the
    /// work its time budget is for.
    pub fn profile_variants(&self) -> Vec<Variant> {
        let suite = suite_options(&self.profile, &[], &[], false, self.engine);
        workload::select(workload::suite(&suite), &[], self.profile.tests).unwrap_or_default()
    }
}

/// How many repetitions each variant gets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Repeats {
    /// `--runs N`: exactly N.
    Exactly(usize),
    /// Until the median is precise or the variant's share of the budget (the profile's,
    /// `RunPlan.profile.budget`) runs out.
    UntilPrecise(Adaptive),
}

/// The adaptive rule's settings, from the profile.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Adaptive {
    pub min_runs: usize,
    pub max_runs: usize,
    /// The target half-width of the median's 95% confidence interval, a fraction of it.
    pub precision: f64,
}

impl Repeats {
    /// The least repetitions of a variant that repeats.
    pub fn least(&self) -> usize {
        match *self {
            Repeats::Exactly(n) => n,
            Repeats::UntilPrecise(a) => a.min_runs,
        }
    }

    /// The most repetitions of a variant.
    pub fn most(&self) -> usize {
        match *self {
            Repeats::Exactly(n) => n,
            Repeats::UntilPrecise(a) => a.max_runs,
        }
    }
}

/// A file set to use, as planned from the profile and the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SetPlan {
    pub name: SetName,
    pub total_bytes: u64,
    pub max_files: u64,
    pub size_cap: u64,
}

/// The file-level part of the suite for these options.
pub fn suite_options(
    profile: &Profile,
    sets: &[SetKind],
    threads: &[usize],
    source: bool,
    engine: EngineChoice,
) -> SuiteOptions {
    let sets = if source {
        vec![SetName::Source]
    } else if sets.is_empty() {
        profile
            .sets
            .iter()
            .map(|&(kind, _)| SetName::Generated(kind))
            .collect()
    } else {
        sets.iter().map(|&kind| SetName::Generated(kind)).collect()
    };
    SuiteOptions {
        sets,
        threads: if threads.is_empty() {
            profile.threads.to_vec()
        } else {
            threads.to_vec()
        },
        meta_files: profile.meta_files,
        programs: copy_programs(engine),
    }
}

/// The copy programs the file sets are also copied with: rsync, where it is installed, but not
/// under the null engine (another program writes real files, which it stands for).
fn copy_programs(engine: EngineChoice) -> Vec<CopyProgram> {
    if matches!(engine, EngineChoice::Null(_)) {
        return Vec::new();
    }
    [CopyProgram::Rsync]
        .into_iter()
        .filter(|p| crate::platform::program_exists(p.program()))
        .collect()
}
