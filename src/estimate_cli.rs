//! `destbench estimate SOURCE`: surveys SOURCE, gathers `files-copy` measurements of each
//! destination (stored runs, or a fresh short measurement), and hands both to the model in
//! `verdict::estimate` and the renderer in `report::estimate`.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::cli::Cli;
use crate::error::{Error, Result};
use crate::history::Store;
use crate::history_cli::DbArg;
use crate::report;
use crate::results::RunReport;
use crate::runner::{self, NoProgress, Progress};
use crate::settings;
use crate::tree::scan;
use crate::verdict::estimate::{self, CopyMeasurement, DestinationEstimate, Origin};
use crate::workload::{SetKind, SetName};

/// Threads listing directories: the survey waits on the filesystem far more than on the CPU,
/// so more threads than cores keep more requests in flight (a disk's queue, a share's round
/// trips).
const SURVEY_THREADS: usize = 8;
/// The fresh measurement of `--to`: a small-file and a large-file set, two repetitions each,
/// about 20-30 s on a 40 MB/s disk or a 100 Mbit/s share.
const MEASURE_RUNS: &str = "2";
const MEASURE_SMALL_BYTES: u64 = 20_000_000;
const MEASURE_LARGE_BYTES: u64 = 80_000_000;
const MEASURE_LARGE_CAP: &str = "40MiB";

#[derive(Debug, clap::Args)]
pub struct EstimateArgs {
    /// The folder to back up (only surveyed: names and sizes, never contents).
    pub source: PathBuf,

    /// Measure this destination now (a short files-copy of a small-file and a large-file set,
    /// about 30 s) and estimate for it; repeat for several.
    #[arg(long, value_name = "PATH")]
    pub to: Vec<PathBuf>,

    /// Another destination to measure and compare with (the same as another --to).
    #[arg(long, value_name = "PATH")]
    pub compare: Vec<PathBuf>,

    /// Estimate from a stored run's files-copy results (from `destbench history`); repeat for
    /// several.
    #[arg(long = "run", value_name = "ID")]
    pub runs: Vec<i64>,

    /// The copy threads to estimate for: results of this many threads are used (default 1, as
    /// most backup tools copy one file at a time).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,

    /// Where the fresh measurement's file sets are generated (default: the temp directory).
    #[arg(long)]
    pub source_dir: Option<PathBuf>,

    /// Print one JSON document (schema destbench.estimate/1) instead of the text.
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub db: DbArg,
}

pub fn run(args: &EstimateArgs) -> Result<ExitCode> {
    let targets: Vec<&PathBuf> = args.to.iter().chain(&args.compare).collect();
    if targets.is_empty() && args.runs.is_empty() {
        return Err(Error::Usage(
            "estimate needs a destination: --to PATH (measured now) or --run ID (stored)".into(),
        ));
    }
    if args.threads == 0 || args.threads > settings::MAX_THREADS {
        return Err(Error::Usage(format!(
            "--threads {}: must be between 1 and {}",
            args.threads,
            settings::MAX_THREADS
        )));
    }
    // Stored runs first: a wrong id should not cost a measurement.
    let mut gathered: Vec<(Origin, Vec<CopyMeasurement>)> = Vec::new();
    if !args.runs.is_empty() {
        let path = args.db.path()?;
        let Some(store) = Store::open_existing(&path)? else {
            return Err(crate::history::HistoryError::UnknownRun {
                id: args.runs[0],
                path,
            }
            .into());
        };
        for &id in &args.runs {
            let record = store.get(id)?;
            gathered.push((
                Origin {
                    destination: record.run.destination.path.display().to_string(),
                    run_id: Some(id),
                    measured_now: false,
                },
                estimate::copy_measurements(&record.run, args.threads),
            ));
        }
    }
    let survey = scan::survey(&args.source, SURVEY_THREADS)?;
    crate::interrupt::install().map_err(|e| Error::io("installing signal handlers", e))?;
    for target in targets {
        let report = measure(target, args)?;
        gathered.push((
            Origin {
                destination: target.display().to_string(),
                run_id: None,
                measured_now: true,
            },
            estimate::copy_measurements(&report, args.threads),
        ));
    }
    let estimates: Vec<DestinationEstimate> = gathered
        .into_iter()
        .map(|(origin, measurements)| DestinationEstimate {
            estimate: estimate::estimate(&survey.histogram, &measurements, args.threads)
                .map_err(|e| e.to_string()),
            origin,
            measurements,
        })
        .collect();
    let text = if args.json {
        report::estimate::render_json(&args.source, &survey, args.threads, &estimates)
    } else {
        report::estimate::render(&args.source, &survey, args.threads, &estimates)
    };
    crate::cli::write_stdout(&text)?;
    Ok(if estimates.iter().all(|e| e.estimate.is_ok()) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(crate::error::EXIT_RUNTIME)
    })
}

/// The short files-copy measurement of `--to`: built through the `run` command line so it is
/// validated exactly as a user's run would be.
fn measure(target: &std::path::Path, args: &EstimateArgs) -> Result<RunReport> {
    let t = args.threads;
    let mut argv: Vec<std::ffi::OsString> = vec!["destbench".into(), "run".into()];
    argv.push(target.as_os_str().to_owned());
    argv.extend(
        [
            "--tests",
            &format!("files-copy:small-{t}t-cache-on,files-copy:large-{t}t-cache-on"),
            "--sets",
            "small,large",
            "--threads",
            &t.to_string(),
            "--runs",
            MEASURE_RUNS,
            "--size",
            MEASURE_LARGE_CAP,
        ]
        .map(std::ffi::OsString::from),
    );
    if let Some(dir) = &args.source_dir {
        argv.push("--source-dir".into());
        argv.push(dir.as_os_str().to_owned());
    }
    let cli = <Cli as clap::Parser>::try_parse_from(argv)
        .map_err(|e| Error::Usage(format!("building the measurement: {e}")))?;
    let crate::cli::Command::Run(run_args) = cli.command else {
        return Err(Error::Usage("building the measurement".into()));
    };
    let mut plan = settings::run_plan(&run_args)?;
    for set in &mut plan.file_sets {
        set.total_bytes = match set.name {
            SetName::Generated(SetKind::Small) => MEASURE_SMALL_BYTES,
            _ => MEASURE_LARGE_BYTES,
        };
    }
    let mut progress: Box<dyn Progress> = if std::io::stderr().is_terminal() {
        Box::new(report::TerminalProgress::new())
    } else {
        Box::new(NoProgress)
    };
    let report = runner::run(&plan, progress.as_mut())?;
    if let Some(failure) = report.failures.first() {
        return Err(Error::Destination {
            path: target.to_path_buf(),
            problem: format!(
                "measuring for the estimate: {} {} failed: {}",
                failure.test, failure.variant, failure.error
            ),
        });
    }
    Ok(report)
}
