//! Validated settings: turns what a caller asks of a run ([`RunOptions`], filled by the command
//! line or by `estimate`) into a [`RunPlan`], filling defaults from the profile and rejecting
//! what cannot be. No I/O here, and no command line: nothing is parsed twice.

use std::path::PathBuf;
use std::time::Duration;

use crate::engine::EngineChoice;
use crate::error::{Error, Result};
use crate::units::{ByteSize, format_bytes};
use crate::workload::{
    self, Profile, ProfileName, SetKind, SetName, SuiteOptions, TestSelector, Variant,
};

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
    pub runs: usize,
    /// Size of the block tests' file (a multiple of 1 MiB).
    pub file_size: u64,
    pub block_duration: Duration,
    /// The least every repetition should last (`--min-time`, else the profile's; zero: no
    /// minimum).
    pub min_time: Duration,
    pub engine: EngineChoice,
    /// Never use O_DIRECT (for checking the fallback path on filesystems that accept it).
    pub force_buffered: bool,
    /// May drop the machine's page cache (root only) when per-file eviction fails.
    pub allow_drop_caches: bool,
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
}

/// A file set to use, as planned from the profile and the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SetPlan {
    pub name: SetName,
    pub total_bytes: u64,
    pub max_files: u64,
    pub size_cap: u64,
}

/// What a caller asks of a run: every field a choice, `None` or empty for the profile's default.
/// Error messages name the command-line flag of each field, its most common source.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    pub destination: PathBuf,
    pub profile: ProfileName,
    /// `--tests`: empty for the profile's tests.
    pub tests: Vec<TestSelector>,
    /// `--size`: the block tests' file, and the sustained test's cap.
    pub size: Option<ByteSize>,
    pub runs: Option<usize>,
    /// `--duration`, seconds.
    pub duration_s: Option<f64>,
    /// `--time`, seconds.
    pub time_s: Option<f64>,
    /// `--min-time`, seconds.
    pub min_time_s: Option<f64>,
    pub engine: EngineChoice,
    pub label: Option<String>,
    /// `--buffered`: never O_DIRECT.
    pub buffered: bool,
    /// `--no-drop-caches`: never drop the machine's page cache.
    pub keep_caches: bool,
    pub threads: Vec<usize>,
    pub sets: Vec<SetKind>,
    pub set_size: Option<ByteSize>,
    pub files: Option<u64>,
    pub source: Option<PathBuf>,
    /// `--cross-filesystems`.
    pub cross_filesystems: bool,
    pub source_dir: Option<PathBuf>,
    /// `--verify` / `--no-verify`; `None` for the profile's choice.
    pub verify: Option<bool>,
    /// `--no-space-check`.
    pub skip_space_check: bool,
    /// `None` for a random seed (recorded in the results).
    pub seed: Option<u64>,
}

impl RunOptions {
    /// The defaults of `destbench run PATH`: the backup profile, everything else from it.
    pub fn new(destination: impl Into<PathBuf>) -> Self {
        RunOptions {
            destination: destination.into(),
            ..RunOptions::default()
        }
    }

    /// Validates the options and fills the defaults.
    pub fn plan(&self) -> Result<RunPlan> {
        run_plan(self)
    }
}

/// The file-level part of the suite for these options.
pub fn suite_options(
    profile: &Profile,
    sets: &[SetKind],
    threads: &[usize],
    source: bool,
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
    }
}

/// The block tests' file size: `--size` in whole 1 MiB blocks (so every block size divides the
/// file), else the profile's.
fn block_file_size(size: Option<ByteSize>, default: u64) -> Result<u64> {
    match size {
        Some(size) if size.0 < MIN_FILE_SIZE => Err(Error::Usage(format!(
            "--size {size}: the block tests need at least {}",
            format_bytes(MIN_FILE_SIZE)
        ))),
        Some(size) => Ok(size.0 / MIN_FILE_SIZE * MIN_FILE_SIZE),
        None => Ok(default),
    }
}

/// A flag's seconds, or `default` when it was not given; `rule` says in words what `valid` takes.
fn seconds(
    flag: &str,
    value: Option<f64>,
    valid: impl Fn(f64) -> bool,
    rule: &str,
    default: Duration,
) -> Result<Duration> {
    match value {
        Some(s) if !valid(s) => Err(Error::Usage(format!("{flag} {s}: must be {rule} seconds"))),
        Some(s) => Ok(Duration::from_secs_f64(s)),
        None => Ok(default),
    }
}

/// The file-set flags that are wrong on their own or together.
fn check_file_set_flags(args: &RunOptions) -> Result<()> {
    if let Some(&bad) = args.threads.iter().find(|&&t| t == 0 || t > MAX_THREADS) {
        return Err(Error::Usage(format!(
            "--threads {bad}: must be between 1 and {MAX_THREADS}"
        )));
    }
    if args.files == Some(0) {
        return Err(Error::Usage(
            "--files 0: a file set needs at least one file".into(),
        ));
    }
    if args.set_size.is_some_and(|s| s.0 == 0) {
        return Err(Error::Usage(
            "--set-size 0: a file set needs at least one byte".into(),
        ));
    }
    if args.source.is_some() && !args.sets.is_empty() {
        return Err(Error::Usage(
            "--source and --sets exclude each other".into(),
        ));
    }
    Ok(())
}

/// Each set's plan: a generated set's size from `--set-size` or the profile, capped files.
fn set_plans(
    sets: &[SetName],
    args: &RunOptions,
    profile: &Profile,
    file_size: u64,
) -> Vec<SetPlan> {
    sets.iter()
        .map(|&name| SetPlan {
            name,
            total_bytes: match name {
                SetName::Generated(kind) => args.set_size.map(|s| s.0).unwrap_or_else(|| {
                    profile
                        .sets
                        .iter()
                        .find(|(k, _)| *k == kind)
                        .map_or(profile.sets[0].1, |&(_, bytes)| bytes)
                }),
                SetName::Source => 0,
            },
            max_files: args.files.unwrap_or(u64::MAX),
            size_cap: file_size,
        })
        .collect()
}

fn run_plan(args: &RunOptions) -> Result<RunPlan> {
    let profile = Profile::get(args.profile);
    let runs = args.runs.unwrap_or(profile.runs);
    if runs == 0 || runs > MAX_RUNS {
        return Err(Error::Usage(format!(
            "--runs {runs}: must be between 1 and {MAX_RUNS}"
        )));
    }
    let file_size = block_file_size(args.size, profile.file_size)?;
    let block_duration = seconds(
        "--duration",
        args.duration_s,
        |s| s > 0.0 && s <= MAX_DURATION_S,
        &format!("more than 0 and at most {MAX_DURATION_S}"),
        profile.block_duration,
    )?;
    let min_time = seconds(
        "--min-time",
        args.min_time_s,
        |s| (0.0..=MAX_DURATION_S).contains(&s),
        &format!("between 0 and {MAX_DURATION_S}"),
        profile.min_time,
    )?;
    let sustained_size = args.size.map_or(profile.sustained_size, |s| s.0);
    let sustained_time = seconds(
        "--time",
        args.time_s,
        |s| s > 0.0 && s <= MAX_SUSTAINED_S,
        &format!("more than 0 and at most {MAX_SUSTAINED_S}"),
        profile.sustained_time,
    )?;
    check_file_set_flags(args)?;
    let options = suite_options(&profile, &args.sets, &args.threads, args.source.is_some());
    let variants = workload::select(workload::suite(&options), &args.tests, profile.tests)
        .map_err(|e| Error::Usage(format!("--tests: {e}")))?;
    if variants.is_empty() {
        return Err(Error::Usage("--tests selects no test".into()));
    }
    let verify = args.verify.unwrap_or(profile.verify);
    let destination = args.destination.clone();
    let file_sets = set_plans(&options.sets, args, &profile, file_size);
    Ok(RunPlan {
        destination,
        profile,
        variants,
        runs,
        file_size,
        block_duration,
        min_time,
        engine: args.engine,
        force_buffered: args.buffered,
        allow_drop_caches: !args.keep_caches,
        check_space: !args.skip_space_check,
        file_sets,
        source: args.source.clone(),
        cross_filesystems: args.cross_filesystems,
        source_dir: args.source_dir.clone().unwrap_or_else(std::env::temp_dir),
        verify,
        seed: args.seed.unwrap_or_else(|| fastrand::u64(..)),
        label: args.label.clone(),
        sustained_time,
        sustained_size,
    })
}
