//! Why an estimate stops, and why one destination has no estimate while the others go on.

use crate::error::Error;
use crate::workload::Tool;

use super::model::FitError;

/// Why `estimate::run` stopped: the options asked for what cannot be, or a step failed (its
/// error names the path and what was being done).
#[derive(Debug, thiserror::Error)]
pub enum EstimateError {
    #[error(
        "estimate needs a destination: {to} PATH (measured now) or {run} ID (stored)",
        to = crate::settings::defs::TO,
        run = crate::settings::defs::RUN
    )]
    NoDestination,
    #[error("{threads} threads: must be between 1 and {max}")]
    Threads { threads: usize, max: usize },
    #[error("{flag} {tool}: {program} is not installed (pick another {flag})", flag = crate::settings::defs::TOOL)]
    ToolMissing { tool: Tool, program: String },
    #[error(
        "{tool_flag} {tool} with {run}: a backup tool must run on the destination, which a stored run cannot do; measure it now with {to} PATH",
        tool_flag = crate::settings::defs::TOOL,
        run = crate::settings::defs::RUN,
        to = crate::settings::defs::TO
    )]
    BackupStored { tool: Tool },
    #[error(
        "{setup} runs before a backup program's runs: it needs {tool_flag} with a preset or cmd:COMMAND, not {tool}",
        setup = crate::settings::defs::SETUP,
        tool_flag = crate::settings::defs::TOOL
    )]
    SetupWithoutCommand { tool: Tool },
    /// `--setup`'s line does not split into words.
    #[error("{0}")]
    BadSetup(String),
    #[error(
        "{tool} timemachine estimates from a stored run's tm-backup result, not {to}: run `destbench run DEST {tests} tm-backup` and pass {run} ID",
        tool = crate::settings::defs::TOOL,
        to = crate::settings::defs::TO,
        tests = crate::settings::defs::TESTS,
        run = crate::settings::defs::RUN
    )]
    TimeMachineMeasuredNow,
    /// Installing the signal handlers that stop the survey and the copies cleanly.
    #[error(transparent)]
    Signals(Error),
    #[error(transparent)]
    Survey(Error),
    /// Writing the calibration sets, or copying them to a destination.
    #[error(transparent)]
    Calibration(Error),
    /// Reading the sample of the source's files (`--measure-source`).
    #[error(transparent)]
    SourceSample(Error),
}

impl From<EstimateError> for Error {
    /// The options' problems are usage errors (exit 2); a step's error keeps its own kind
    /// (an interruption exits 130).
    fn from(e: EstimateError) -> Error {
        match e {
            EstimateError::NoDestination
            | EstimateError::Threads { .. }
            | EstimateError::ToolMissing { .. }
            | EstimateError::BackupStored { .. }
            | EstimateError::SetupWithoutCommand { .. }
            | EstimateError::BadSetup(_)
            | EstimateError::TimeMachineMeasuredNow => Error::Usage(e.to_string()),
            EstimateError::Signals(e)
            | EstimateError::Survey(e)
            | EstimateError::Calibration(e)
            | EstimateError::SourceSample(e) => e,
        }
    }
}

/// Why one destination has no estimate.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NoEstimate {
    #[error(
        "a stored run holds destbench's own copies only, not {tool}'s: use {flag} parallel:N, or {to} to measure {tool}",
        flag = crate::settings::defs::TOOL,
        to = crate::settings::defs::TO
    )]
    OtherTool { tool: Tool },
    #[error(transparent)]
    Fit(#[from] FitError),
}
