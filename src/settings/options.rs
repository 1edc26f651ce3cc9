//! What a caller asks of a run, typed: the one path from the command line, the config file and
//! library callers to the plan. Each setting has one name and one meaning from here down.

use std::path::PathBuf;

use super::defs::PROFILE;
use super::{ConfigFile, Given, RunPlan, plan};
use crate::engine::EngineChoice;
use crate::error::{Error, Result};
use crate::units::ByteSize;
use crate::workload::{ProfileName, SetKind, TestSelector};

/// Every field a choice, `None` or empty for the profile's default. The values a config file can
/// also set are [`Given`], so that an error names where they came from.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub destination: PathBuf,
    pub profile: ProfileName,
    /// `--tests`: `None` for the profile's tests.
    pub tests: Option<Given<Vec<TestSelector>>>,
    /// `--size`: the block tests' file, and the sustained test's cap.
    pub size: Option<Given<ByteSize>>,
    pub runs: Option<Given<usize>>,
    /// `--duration`, seconds.
    pub block_duration: Option<Given<f64>>,
    /// `--time`, seconds.
    pub sustained_time: Option<Given<f64>>,
    /// `--min-time`, seconds.
    pub min_time: Option<Given<f64>>,
    pub engine: EngineChoice,
    pub label: Option<String>,
    /// Never O_DIRECT (`--buffered`).
    pub force_buffered: bool,
    /// May drop the machine's page cache (off with `--no-drop-caches`).
    pub allow_drop_caches: bool,
    /// Run the programs a run starts unconfined where the system cannot confine them
    /// (`--unconfined-programs`).
    pub unconfined_programs: bool,
    /// Refuse to start without the free space the run needs (off with `--no-space-check`).
    pub check_space: bool,
    /// `--threads`: `None` for the profile's.
    pub threads: Option<Given<Vec<usize>>>,
    /// `--sets`: `None` for the profile's.
    pub sets: Option<Given<Vec<SetKind>>>,
    pub set_size: Option<Given<ByteSize>>,
    pub files: Option<Given<u64>>,
    pub source: Option<PathBuf>,
    /// `--cross-filesystems`.
    pub cross_filesystems: bool,
    pub source_dir: Option<PathBuf>,
    /// `--verify` / `--no-verify`; `None` for the profile's choice.
    pub verify: Option<bool>,
    /// `None` for a random seed (recorded in the results).
    pub seed: Option<u64>,
    /// `--band-size`: tm-backup's band size; `None` for the one Time Machine would choose.
    pub band_size: Option<Given<ByteSize>>,
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
            verify: None,
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
