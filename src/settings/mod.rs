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
mod sizing;

pub use defs::RunOptions;
pub use file::ConfigFile;
pub use given::{Given, Origin};
pub use plan::RunPlan;
pub use sizing::{SIZE_DIVISORS, Sizing};

use crate::engine::EngineChoice;
use crate::workload::fileset;
use crate::workload::{CopyProgram, Profile, SetKind, SetName, SuiteOptions};

/// The smallest block-test file: one 1 MiB block is the unit of the sequential tests.
pub const MIN_FILE_SIZE: u64 = 1 << 20;
pub const MAX_RUNS: usize = 1000;
pub const MAX_DURATION_S: f64 = 3600.0;
pub const MAX_THREADS: usize = 64;
pub const MAX_SUSTAINED_S: f64 = 86400.0;

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
pub struct SetSpec {
    pub name: SetName,
    pub total_bytes: u64,
    pub max_files: u64,
    pub size_cap: u64,
}

impl SetSpec {
    /// What the generator makes of it with `seed`; None for the user's folder.
    pub fn generated(&self, seed: u64) -> Option<fileset::SetSpec> {
        let SetName::Generated(kind) = self.name else {
            return None;
        };
        Some(fileset::SetSpec {
            kind,
            total_bytes: self.total_bytes,
            max_files: self.max_files,
            size_cap: self.size_cap,
            seed,
        })
    }

    /// The files it holds with `seed`, before it exists (0 for the user's folder, unread).
    pub fn files(&self, seed: u64) -> u64 {
        self.generated(seed)
            .map_or(0, |spec| fileset::files_in(&spec))
    }
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
