//! `destbench estimate`: how long a first full backup of a tree takes on each destination.
//!
//! [`run`] surveys the source (`survey`), gathers copies measured on each destination (the
//! calibration sets of `sets`, with the source's `miniature`, copied now by the tool:
//! `calibration`; or a stored run's `files-copy` results: `stored`), samples the source's
//! reads where asked (`source_sample`), and fits the cost model to each destination's copies
//! (`model`, pure). A backup program (`--tool restic`, `--tool 'cmd:…'`) is run itself on
//! miniatures of the source's own files instead (`command`). It returns every destination's
//! estimate whole; `report::estimate` renders it.

mod backup;
mod calibration;
mod error;
mod miniature;
pub mod model;
mod options;
mod sets;
pub mod source_sample;
mod stored;
mod survey;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::Error;
use crate::interrupt;
use crate::results::RunDocument;
use crate::tree::survey::Survey;
use crate::workload::Tool;

pub use backup::{BackupDestination, ToolSettings};
pub use error::{EstimateError, NoEstimate};
use model::SourceCost;
use model::time_machine::{self, NoTimeMachine, TimeMachineEstimate};
pub use model::{CopyMeasurement, Estimate};
pub use options::{EstimatePlan, Options};
pub use stored::run_copies;
use survey::Surveyed;

/// A run from the history to estimate from.
pub struct StoredRun {
    pub id: i64,
    pub run: RunDocument,
}

/// Where one destination's measurements came from.
#[derive(Debug, Clone, Serialize)]
pub struct Origin {
    pub destination: String,
    /// The stored run, for `--run`.
    pub run_id: Option<i64>,
    /// Measured by this command (`--to`).
    pub measured_now: bool,
}

/// One destination's estimate, or why there is none.
pub struct DestinationEstimate {
    pub origin: Origin,
    /// The tool estimated for (`cp`, `rsync`, `parallel:N`).
    pub tool: Tool,
    pub measurements: Vec<CopyMeasurement>,
    pub estimate: Result<Estimate, NoEstimate>,
}

/// One destination's Time Machine estimate (`--tool timemachine`), or why there is none.
pub struct TimeMachineDestination {
    pub origin: Origin,
    pub estimate: Result<TimeMachineEstimate, NoTimeMachine>,
}

/// Everything an estimate found: the source's survey and each destination's estimate (under
/// `--tool timemachine`, each stored run's Time Machine estimate instead).
pub struct EstimateReport {
    pub source: PathBuf,
    pub survey: Survey,
    pub estimates: Vec<DestinationEstimate>,
    pub time_machine: Vec<TimeMachineDestination>,
    /// Under a backup program's `--tool`, each destination's estimate instead.
    pub backups: Vec<BackupDestination>,
}

impl EstimateReport {
    /// Whether every destination has an estimate.
    pub fn all_estimated(&self) -> bool {
        self.estimates.iter().all(|e| e.estimate.is_ok())
            && self.time_machine.iter().all(|e| e.estimate.is_ok())
            && self.backups.iter().all(|e| e.estimate.is_ok())
    }
}

/// One destination's copies, before the model.
struct Copies {
    origin: Origin,
    tool: Tool,
    measurements: Result<Vec<CopyMeasurement>, NoEstimate>,
}

/// Estimates the backup of the plan's source to the destinations measured now and to those of
/// the `stored` runs. The caller loads the stored runs (the history is a layer above) after
/// [`Options::plan`] and before this: a wrong id should not cost a survey or a measurement.
pub fn run(plan: &EstimatePlan, stored: &[StoredRun]) -> Result<EstimateReport, EstimateError> {
    let o = &plan.options;
    let time_machine = o.tool == Some(Tool::TimeMachine);
    let mut gathered: Vec<Copies> = if time_machine {
        Vec::new()
    } else {
        stored.iter().map(|s| plan.stored_copies(s)).collect()
    };
    // Before the survey: a SIGTERM then stops it cleanly at once.
    interrupt::install()
        .map_err(|e| EstimateError::Signals(Error::io("installing signal handlers", e)))?;
    let source = survey::survey(&o.source, o.measure_source, o.cross_filesystems)
        .map_err(EstimateError::Survey)?;
    if time_machine {
        return Ok(time_machine_report(&o.source, source.survey, stored));
    }
    let backups = plan.run_backup_tool(&source)?;
    gathered.extend(plan.measure_now(&source)?);
    let cost = if o.measure_source {
        let sample = source_sample::sample(&o.source).map_err(EstimateError::SourceSample)?;
        let reads: Vec<(u64, f64)> = sample.reads.iter().map(|r| (r.bytes, r.seconds)).collect();
        let h = &source.survey.histogram;
        SourceCost::of(&reads, h.total_files(), h.total_bytes(), source.listing_s)
    } else {
        None
    };
    let estimates = gathered
        .into_iter()
        .map(|copies| copies.estimate(&source, cost.as_ref()))
        .collect();
    Ok(EstimateReport {
        source: o.source.clone(),
        survey: source.survey,
        estimates,
        time_machine: Vec::new(),
        backups: backups
            .into_iter()
            .map(|c| c.estimate(cost.as_ref()))
            .collect(),
    })
}

/// `--tool timemachine`: each stored run's Time Machine estimate for the surveyed source.
fn time_machine_report(source: &Path, survey: Survey, stored: &[StoredRun]) -> EstimateReport {
    let h = &survey.histogram;
    let (bytes, files) = (h.total_bytes(), h.total_files());
    EstimateReport {
        source: source.to_path_buf(),
        time_machine: stored
            .iter()
            .map(|s| TimeMachineDestination {
                origin: Origin {
                    destination: s.run.destination.path.display().to_string(),
                    run_id: Some(s.id),
                    measured_now: false,
                },
                estimate: time_machine::estimate(&s.run, bytes, files),
            })
            .collect(),
        survey,
        estimates: Vec::new(),
        backups: Vec::new(),
    }
}

impl EstimatePlan {
    /// A stored run's copies, which stand only for destbench's own copy.
    fn stored_copies(&self, stored: &StoredRun) -> Copies {
        let measurements = match &self.options.tool {
            Some(tool @ (Tool::Cp | Tool::Rsync)) => {
                Err(NoEstimate::OtherTool { tool: tool.clone() })
            }
            _ => Ok(stored::copy_measurements(&stored.run, self.threads)),
        };
        Copies {
            origin: Origin {
                destination: stored.run.destination.path.display().to_string(),
                run_id: Some(stored.id),
                measured_now: false,
            },
            tool: Tool::Parallel(self.threads),
            measurements,
        }
    }

    /// The calibration sets and the source's miniature copied to each destination of `--to`.
    fn measure_now(&self, source: &Surveyed) -> Result<Vec<Copies>, EstimateError> {
        if self.options.to.is_empty() || self.measured_tool.backup().is_some() {
            return Ok(Vec::new());
        }
        let source_dir = self.source_dir();
        let sets =
            sets::make_sets(&source_dir, &source.survey).map_err(EstimateError::Calibration)?;
        self.options
            .to
            .iter()
            .map(|target| {
                let measurements = calibration::calibrate(
                    target,
                    &self.measured_tool,
                    &sets,
                    self.options.tool_settings.unconfined,
                )
                .map_err(EstimateError::Calibration)?;
                Ok(Copies {
                    origin: Origin {
                        destination: target.display().to_string(),
                        run_id: None,
                        measured_now: true,
                    },
                    tool: self.measured_tool.clone(),
                    measurements: Ok(measurements),
                })
            })
            .collect()
    }
}

/// A backup program's runs on one destination, before the model.
struct BackupRuns {
    origin: Origin,
    tool: crate::workload::presets::BackupTool,
    measured: backup::Measured,
    /// The share of files changed before the second backup.
    changed: f64,
}

impl EstimatePlan {
    /// Where the calibration sets and the miniatures are written: `--source-dir`, or the temp
    /// directory.
    fn source_dir(&self) -> PathBuf {
        self.options
            .source_dir
            .clone()
            .unwrap_or_else(std::env::temp_dir)
    }

    /// A backup program's runs on each destination of `--to`, where it is the tool.
    fn run_backup_tool(&self, source: &Surveyed) -> Result<Vec<BackupRuns>, EstimateError> {
        let Some(tool) = self.measured_tool.backup() else {
            return Ok(Vec::new());
        };
        self.options
            .to
            .iter()
            .map(|target| {
                let measured = backup::measure(
                    target,
                    tool,
                    (&self.options.source, &source.survey),
                    &self.source_dir(),
                    self.options.tool_settings,
                )
                .map_err(EstimateError::Calibration)?;
                Ok(BackupRuns {
                    origin: Origin {
                        destination: target.display().to_string(),
                        run_id: None,
                        measured_now: true,
                    },
                    tool: tool.clone(),
                    measured,
                    changed: self.options.tool_settings.changed,
                })
            })
            .collect()
    }
}

impl BackupRuns {
    /// The first backup fitted to the runs, the limiting side judged on the machine's cores.
    fn estimate(self, cost: Option<&SourceCost>) -> BackupDestination {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let m = self.measured;
        let estimate =
            model::backup::estimate(&m.runs, cores, self.tool.threads, m.second.as_ref(), cost);
        BackupDestination {
            origin: self.origin,
            changed: self.changed,
            tool: self.tool,
            runs: m.runs,
            second: m.second,
            estimate,
        }
    }
}

impl Copies {
    /// The model fitted to these copies, for the source as this tool copies it.
    fn estimate(self, source: &Surveyed, cost: Option<&SourceCost>) -> DestinationEstimate {
        let tool = self.tool;
        let (measurements, estimate) = match self.measurements {
            Ok(m) => {
                let what = format!("{} {tool}", crate::settings::defs::TOOL);
                let e = model::estimate(source.shape(&tool), &m, &what, cost);
                (m, e.map_err(NoEstimate::from))
            }
            Err(problem) => (Vec::new(), Err(problem)),
        };
        DestinationEstimate {
            origin: self.origin,
            tool,
            measurements,
            estimate,
        }
    }
}
