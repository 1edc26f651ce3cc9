//! What a caller asks of an estimate ([`Options`]) and the same checked, its tools resolved
//! ([`EstimatePlan`]): no I/O but a look along the PATH for the tool's program.

use std::path::PathBuf;

use crate::settings::MAX_THREADS;
use crate::workload::Tool;

use super::EstimateError;
use super::backup::ToolSettings;

/// What a caller asks of an estimate, as typed values.
#[derive(Debug, Clone)]
pub struct Options {
    /// The tree to back up.
    pub source: PathBuf,
    /// Enter directories on other filesystems.
    pub cross_filesystems: bool,
    /// Destinations to measure now.
    pub to: Vec<PathBuf>,
    /// Whether the caller gives stored runs to estimate from (it loads them: see [`run`](super::run)).
    pub from_stored_runs: bool,
    /// The copy threads a stored run's results are taken for.
    pub threads: usize,
    /// The tool to estimate for; by default rsync measured now, or a stored run's own copy.
    pub tool: Option<Tool>,
    /// Also sample the source's reads.
    pub measure_source: bool,
    /// Where the calibration sets are written (default: the temp directory).
    pub source_dir: Option<PathBuf>,
    /// A backup program's setup line (`--setup`), run untimed before each first backup.
    pub setup: Option<String>,
    /// How a backup program is run.
    pub tool_settings: ToolSettings,
}

/// Checked options, with the tools they resolve to.
#[derive(Debug, Clone)]
pub struct EstimatePlan {
    pub(super) options: Options,
    /// The threads of the stored runs' copies (`--tool parallel:N` says them too).
    pub(super) threads: usize,
    /// The tool the destinations measured now are calibrated with.
    pub(super) measured_tool: Tool,
}

impl Options {
    /// Checks the options and resolves the tools: before anything is read, written or loaded.
    pub fn plan(self) -> Result<EstimatePlan, EstimateError> {
        if self.to.is_empty() && !self.from_stored_runs {
            return Err(EstimateError::NoDestination);
        }
        if self.tool == Some(Tool::TimeMachine) && !self.to.is_empty() {
            return Err(EstimateError::TimeMachineMeasuredNow);
        }
        let threads = match self.tool {
            Some(Tool::Parallel(n)) => n,
            _ => self.threads,
        };
        if threads == 0 || threads > MAX_THREADS {
            return Err(EstimateError::Threads {
                threads,
                max: MAX_THREADS,
            });
        }
        // Stored runs only ever hold destbench's own copies; measured now, rsync unless said
        // otherwise.
        let measured_tool = self.measured_tool()?;
        if let Some(program) = measured_tool.program().filter(|_| !self.to.is_empty())
            && !crate::platform::program_exists(program)
        {
            return Err(EstimateError::ToolMissing {
                program: program.to_string(),
                tool: measured_tool,
            });
        }
        Ok(EstimatePlan {
            options: self,
            threads,
            measured_tool,
        })
    }
}

impl Options {
    /// The tool measured now: rsync unless said otherwise (or several threads ask for
    /// destbench's own copy), a backup program with `--setup`'s line. A backup program runs on
    /// the destination: never from a stored run.
    fn measured_tool(&self) -> Result<Tool, EstimateError> {
        let mut tool = self.tool.clone().unwrap_or(if self.threads > 1 {
            Tool::Parallel(self.threads)
        } else {
            Tool::Rsync
        });
        match (&mut tool, &self.setup) {
            (Tool::Backup(_), _) if self.from_stored_runs => {
                return Err(EstimateError::BackupStored { tool });
            }
            (Tool::Backup(c), Some(setup)) => {
                c.set_setup(setup).map_err(EstimateError::BadSetup)?;
            }
            (_, Some(_)) => return Err(EstimateError::SetupWithoutCommand { tool }),
            _ => {}
        }
        Ok(tool)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{EXIT_USAGE, Error};

    fn options(tool: Option<Tool>, threads: usize, stored: bool) -> Options {
        Options {
            source: PathBuf::from("/src"),
            cross_filesystems: false,
            to: Vec::new(),
            from_stored_runs: stored,
            threads,
            tool,
            measure_source: false,
            source_dir: None,
            setup: None,
            tool_settings: ToolSettings {
                timeout: std::time::Duration::from_secs(60),
                changed: 0.1,
                unconfined: false,
            },
        }
    }

    /// The options' problems are found before anything is read, and are usage errors.
    #[test]
    fn a_missing_destination_or_bad_threads_are_usage_errors() {
        for (o, says) in [
            (options(None, 1, false), "needs a destination"),
            (options(None, 0, true), "0 threads"),
            (options(Some(Tool::Parallel(65)), 1, true), "65 threads"),
        ] {
            let e = Error::from(o.plan().unwrap_err());
            assert_eq!(e.exit_code(), EXIT_USAGE);
            assert!(e.to_string().contains(says), "{e}");
        }
    }

    /// Stored runs are read for `--tool parallel:N`'s threads, else `--threads`; measured now,
    /// the tool is rsync unless several threads ask for destbench's own copy.
    #[test]
    fn the_tools_resolve_from_the_tool_and_the_threads() {
        let plan = options(Some(Tool::Parallel(4)), 1, true).plan().unwrap();
        assert_eq!((plan.threads, plan.measured_tool), (4, Tool::Parallel(4)));
        let plan = options(None, 1, true).plan().unwrap();
        assert_eq!((plan.threads, plan.measured_tool), (1, Tool::Rsync));
        let plan = options(None, 2, true).plan().unwrap();
        assert_eq!((plan.threads, plan.measured_tool), (2, Tool::Parallel(2)));
    }
}
