//! What a caller asks of a run, typed: the one path from the command line, the config file and
//! library callers to the plan. Each setting has one name and one meaning from here down.

use std::path::PathBuf;

use clap::builder::TypedValueParser;

use super::defs::{self, PROFILE};
use super::flags::{
    List, TestSelectorParser, engine, given, positive, positive_u64, sets_help, sets_short_help,
    tests_help, tests_short_help,
};
use super::{ConfigFile, Given, RunPlan, plan};
use crate::engine::EngineChoice;
use crate::error::{Error, Result};
use crate::units::ByteSize;
use crate::workload::{ProfileName, SetKind, TestSelector};

/// Every field a choice, `None` or empty for the profile's default. The command line writes
/// straight into it (`cli::RunArgs` flattens it: each field below is its flag), the config file
/// fills what the flags left unset, and library callers build it. The values a config file can
/// also set are [`Given`], so that an error names where they came from.
#[derive(Debug, Clone, clap::Args)]
pub struct RunOptions {
    /// The destination (`run`'s PATH, or Time Machine's).
    #[arg(skip = PathBuf::from("."))]
    pub destination: PathBuf,
    /// Resolved from `--profile` and the config file by [`with_config`](Self::with_config).
    #[arg(skip)]
    pub profile: ProfileName,
    // `None` for the profile's tests.
    #[arg(short, long = defs::TESTS.long, value_parser = List(TestSelectorParser),
          hide_possible_values = true, help = tests_short_help(), long_help = tests_help())]
    pub tests: Option<Given<Vec<TestSelector>>>,
    // The block tests' file, and the sustained test's cap.
    #[arg(long = defs::SIZE.long, help = defs::SIZE.help(), value_parser = given::<ByteSize>)]
    pub size: Option<Given<ByteSize>>,
    // tm-backup's band size; `None` for the one Time Machine would choose.
    #[arg(long = defs::BAND_SIZE.long, help = defs::BAND_SIZE.help(),
          value_parser = given::<ByteSize>)]
    pub band_size: Option<Given<ByteSize>>,
    #[arg(short, long = defs::RUNS.long, help = defs::RUNS.help(), allow_negative_numbers = true,
          value_parser = positive.map(Given::from))]
    pub runs: Option<Given<usize>>,
    // Seconds.
    #[arg(long = defs::DURATION.long, help = defs::DURATION.help(), allow_negative_numbers = true,
          value_name = "DURATION", value_parser = given::<f64>)]
    pub block_duration: Option<Given<f64>>,
    // Seconds.
    #[arg(long = defs::MIN_TIME.long, help = defs::MIN_TIME.help(), allow_negative_numbers = true,
          value_parser = given::<f64>)]
    pub min_time: Option<Given<f64>>,
    // Seconds.
    #[arg(long = defs::TIME.long, help = defs::TIME.help(), allow_negative_numbers = true,
          value_name = "TIME", value_parser = given::<f64>)]
    pub sustained_time: Option<Given<f64>>,
    /// I/O engine of the block tests: auto (sync at queue depth 1, io_uring above), sync, uring
    /// (the file-set and metadata tests use system calls under each).
    #[arg(long = defs::ENGINE.long, value_parser = engine(), default_value = "auto")]
    pub engine: EngineChoice,
    /// A label stored with the results.
    #[arg(long)]
    pub label: Option<String>,
    #[arg(long = defs::BUFFERED.long, help = defs::BUFFERED.help())]
    pub force_buffered: bool,
    /// Never drop the machine's page cache, even as root when per-file eviction fails.
    #[arg(long = defs::NO_DROP_CACHES.long, action = clap::ArgAction::SetFalse)]
    pub allow_drop_caches: bool,
    #[arg(long = defs::UNCONFINED_PROGRAMS.long, help = defs::UNCONFINED_PROGRAMS.help())]
    pub unconfined_programs: bool,
    // `None` for the profile's.
    #[arg(long = defs::THREADS.long, help = defs::THREADS.help(), allow_negative_numbers = true,
          value_parser = List(positive))]
    pub threads: Option<Given<Vec<usize>>>,
    // `None` for the profile's.
    #[arg(long = defs::SETS.long, help = sets_short_help(), long_help = sets_help(),
          value_parser = List(|s: &str| s.parse::<SetKind>()))]
    pub sets: Option<Given<Vec<SetKind>>>,
    #[arg(long = defs::SET_SIZE.long, help = defs::SET_SIZE.help(),
          value_parser = given::<ByteSize>)]
    pub set_size: Option<Given<ByteSize>>,
    #[arg(long = defs::FILES.long, help = defs::FILES.help(), allow_negative_numbers = true,
          value_parser = positive_u64.map(Given::from))]
    pub files: Option<Given<u64>>,
    #[arg(long = defs::SOURCE.long, help = defs::SOURCE.help())]
    pub source: Option<PathBuf>,
    /// Let --source enter directories on other filesystems (mount points); by default they are
    /// skipped and counted, as `find -xdev` does.
    #[arg(long)]
    pub cross_filesystems: bool,
    /// Where generated file sets are made (default: the system's temp directory; choose a fast
    /// local disk).
    #[arg(long = defs::SOURCE_DIR.long)]
    pub source_dir: Option<PathBuf>,
    // Both at once is a contradiction, refused rather than settled by their order.
    #[arg(long = defs::VERIFY.long, help = defs::VERIFY.help(), conflicts_with = "no_verify")]
    pub verify: bool,
    /// Do not verify restored files.
    #[arg(long)]
    pub no_verify: bool,
    /// Skip the free-space check (for filesystems that misreport free space); a destination
    /// that fills up still fails the test that hit it, cleanly.
    #[arg(long = defs::NO_SPACE_CHECK.long, action = clap::ArgAction::SetFalse)]
    pub check_space: bool,
    /// Seed for the random data and offsets (default: random; recorded in the results).
    #[arg(long)]
    pub seed: Option<u64>,
}

/// The defaults of `destbench run .`: the backup profile, everything else from it.
impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            destination: PathBuf::from("."),
            profile: ProfileName::default(),
            tests: None,
            size: None,
            runs: None,
            block_duration: None,
            sustained_time: None,
            min_time: None,
            engine: EngineChoice::default(),
            label: None,
            force_buffered: false,
            allow_drop_caches: true,
            unconfined_programs: false,
            check_space: true,
            threads: None,
            sets: None,
            set_size: None,
            files: None,
            source: None,
            cross_filesystems: false,
            source_dir: None,
            verify: false,
            no_verify: false,
            seed: None,
            band_size: None,
        }
    }
}

impl RunOptions {
    /// The defaults of `destbench run PATH`.
    pub fn new(destination: impl Into<PathBuf>) -> Self {
        RunOptions {
            destination: destination.into(),
            ..RunOptions::default()
        }
    }

    /// The profile named (`--profile`, else the config file's `[defaults]`, else the one set
    /// already), and the config file under what is set already: the command line wins over the
    /// file, the user's profile table over `[defaults]`, and [`plan`](Self::plan) fills the rest
    /// from destbench's profile.
    pub fn with_config(mut self, named: Option<&str>, file: Option<&ConfigFile>) -> Result<Self> {
        if let Some(named) = named.or_else(|| file?.default_profile()) {
            match named.parse::<ProfileName>() {
                Ok(profile) => self.profile = profile,
                Err(builtin) => {
                    let own = file.and_then(|f| Some((f, f.profile(named)?)));
                    let Some((file, (profile, table))) = own else {
                        return Err(unknown_profile(&builtin, file));
                    };
                    self.profile = profile;
                    file.fill(table, &mut self);
                }
            }
        }
        if let Some(file) = file {
            file.fill(file.defaults(), &mut self);
        }
        Ok(self)
    }

    /// Validates the options and fills the defaults.
    pub fn plan(&self) -> Result<RunPlan> {
        plan::run_plan(self)
    }
}

fn unknown_profile(builtin: &str, file: Option<&ConfigFile>) -> Error {
    let mine = file.map(ConfigFile::profile_names).unwrap_or_default();
    Error::Usage(if mine.is_empty() {
        format!("{PROFILE}: {builtin}")
    } else {
        format!(
            "{PROFILE}: {builtin}, nor one of the config file's ({})",
            mine.join(", ")
        )
    })
}
