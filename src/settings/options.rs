//! What a caller asks of a run ([`RunOptions`], declared in `defs` beside its settings): the
//! config file under the flags, then the plan. Each setting has one name and one meaning from
//! here down.

use std::path::PathBuf;

use super::defs::PROFILE;
use super::{ConfigFile, RunOptions, RunPlan, plan};
use crate::error::{Error, Result};
use crate::workload::ProfileName;

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
