//! `destbench estimate SOURCE`: surveys SOURCE, gathers `files-copy` measurements of each
//! destination (stored runs, or a fresh short measurement), and hands both to the model in
//! `verdict::estimate` and the renderer in `report::estimate`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::cli::EstimateArgs;
use crate::error::{EXIT_RUNTIME, Error, Result};
use crate::history::Store;
use crate::report;
use crate::results::RunReport;
use crate::runner;
use crate::settings::{self, RunOptions};
use crate::tree::scan;
use crate::units::ByteSize;
use crate::verdict::estimate::{self, CopyMeasurement, DestinationEstimate, Origin};
use crate::workload::{SetKind, SetName, TestSelector};

use super::{db, progress, write_stdout};

/// Threads listing directories: the survey waits on the filesystem far more than on the CPU,
/// so more threads than cores keep more requests in flight (a disk's queue, a share's round
/// trips).
const SURVEY_THREADS: usize = 8;
/// The fresh measurement of `--to`: a small-file and a large-file set, two repetitions each,
/// about 20-30 s on a 40 MB/s disk or a 100 Mbit/s share.
const MEASURE_RUNS: usize = 2;
const MEASURE_SMALL_BYTES: u64 = 20_000_000;
const MEASURE_LARGE_BYTES: u64 = 80_000_000;
/// No file of the large set over this (the block-file size caps the set's files).
const MEASURE_LARGE_CAP: u64 = 40 << 20;

pub fn estimate(args: &EstimateArgs) -> Result<ExitCode> {
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
        let path = db::path(&args.db)?;
        let Some(store) = Store::open_existing(&path)? else {
            return Err(db::no_run(args.runs.first().copied(), path));
        };
        for &id in &args.runs {
            let id = db::resolve(&store, id)?;
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
    // Before the survey: a SIGTERM then stops it cleanly at once.
    crate::interrupt::install().map_err(|e| Error::io("installing signal handlers", e))?;
    let survey = scan::survey(&args.source, SURVEY_THREADS, args.cross_filesystems)?;
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
    write_stdout(&text)?;
    Ok(if estimates.iter().all(|e| e.estimate.is_ok()) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_RUNTIME)
    })
}

/// The short files-copy measurement of `--to`: the same `RunOptions` a user's run is validated
/// from, with the small and large sets and this many threads, write cache on.
fn measure(target: &Path, args: &EstimateArgs) -> Result<RunReport> {
    let t = args.threads;
    let tests = [
        format!("files-copy:small-{t}t-cache-on"),
        format!("files-copy:large-{t}t-cache-on"),
    ]
    .iter()
    .map(|s| s.parse::<TestSelector>().map_err(Error::Usage))
    .collect::<Result<Vec<_>>>()?;
    let options = RunOptions {
        tests,
        sets: vec![SetKind::Small, SetKind::Large],
        threads: vec![t],
        runs: Some(MEASURE_RUNS),
        size: Some(ByteSize(MEASURE_LARGE_CAP)),
        source_dir: args.source_dir.clone(),
        ..RunOptions::new(target)
    };
    let mut plan = options.plan()?;
    for set in &mut plan.file_sets {
        set.total_bytes = match set.name {
            SetName::Generated(SetKind::Small) => MEASURE_SMALL_BYTES,
            _ => MEASURE_LARGE_BYTES,
        };
    }
    // Only files-copy is measured here: no test needs the chain, so it is not probed.
    let report = runner::run(&plan, None, progress().as_mut())?;
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
