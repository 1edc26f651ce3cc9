//! `destbench estimate SOURCE`: surveys SOURCE, gathers copies measured on each destination
//! (the calibration sets copied now by the tool of `--tool`, or a stored run's `files-copy`),
//! and hands both to the model in `verdict::estimate` and the renderer in `report::estimate`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::cli::EstimateArgs;
use crate::error::{EXIT_RUNTIME, Error, Result};
use crate::history::Store;
use crate::platform;
use crate::report;
use crate::runner::{calibration, miniature, source_sample};
use crate::scratch::Scratch;
use crate::settings;
use crate::tree::scan;
use crate::units::format_bytes;
use crate::verdict::estimate::{self, CopyMeasurement, DestinationEstimate, Origin, TreeShape};
use crate::verdict::source;
use crate::workload::Tool;

use super::{db, write_stdout};

/// Threads listing directories: the survey waits on the filesystem far more than on the CPU,
/// so more threads than cores keep more requests in flight (a disk's queue, a share's round
/// trips).
const SURVEY_THREADS: usize = 8;
/// The calibration of `--to`: each set copied this many times (the spread gives the interval).
const ROUNDS: usize = 2;
/// The miniature's layout is random but the same on every run for the same source shape.
const MINIATURE_SEED: u64 = 14;

pub fn estimate(args: &EstimateArgs) -> Result<ExitCode> {
    let targets: Vec<&PathBuf> = args.to.iter().chain(&args.compare).collect();
    if targets.is_empty() && args.runs.is_empty() {
        return Err(Error::Usage(
            "estimate needs a destination: --to PATH (measured now) or --run ID (stored)".into(),
        ));
    }
    let threads = match args.tool {
        Some(Tool::Parallel(n)) => n,
        _ => args.threads,
    };
    if threads == 0 || threads > settings::MAX_THREADS {
        return Err(Error::Usage(format!(
            "{threads} threads: must be between 1 and {}",
            settings::MAX_THREADS
        )));
    }
    // --to measures the tool asked for (rsync unless said otherwise); stored runs only ever
    // hold destbench's own copies.
    let measured_tool = args.tool.unwrap_or(if args.threads > 1 {
        Tool::Parallel(args.threads)
    } else {
        Tool::Rsync
    });
    if let Some(program) = measured_tool.program().filter(|_| !targets.is_empty())
        && !program_exists(program)
    {
        return Err(Error::Usage(format!(
            "--tool {measured_tool}: {program} is not installed (pick another --tool)"
        )));
    }
    // Stored runs first: a wrong id should not cost a measurement.
    let mut gathered: Vec<(Origin, Tool, Result<Vec<CopyMeasurement>, String>)> = Vec::new();
    if !args.runs.is_empty() {
        let path = db::path(&args.db)?;
        let Some(store) = Store::open_existing(&path)? else {
            return Err(db::no_run(args.runs.first().copied(), path));
        };
        for &id in &args.runs {
            let id = db::resolve(&store, id)?;
            let record = store.get(id)?;
            let measurements = match args.tool {
                Some(tool @ (Tool::Cp | Tool::Rsync)) => Err(format!(
                    "a stored run holds destbench's own copies only, not {tool}'s: use --tool parallel:N, or --to to measure {tool}"
                )),
                _ => Ok(estimate::copy_measurements(&record.run, threads)),
            };
            gathered.push((
                Origin {
                    destination: record.run.destination.path.display().to_string(),
                    run_id: Some(id),
                    measured_now: false,
                },
                Tool::Parallel(threads),
                measurements,
            ));
        }
    }
    // Before the survey: a SIGTERM then stops it cleanly at once.
    crate::interrupt::install().map_err(|e| Error::io("installing signal handlers", e))?;
    // A first backup also reads the tree's directories and inodes from a cold cache. With
    // --measure-source as root, the machine's caches are dropped first (only clean copies: no
    // data is written) and the tree is listed on one thread, as cp and rsync walk it: that
    // listing's time is the source's metadata cost. Otherwise the listing is quick and untimed.
    let cold_listing = args.measure_source
        && platform::is_root()
        && platform::drop_caches().is_ok()
        && platform::drop_inode_caches().is_ok();
    let threads = if cold_listing { 1 } else { SURVEY_THREADS };
    let survey = scan::survey(&args.source, threads, args.cross_filesystems)?;
    let listing_s = cold_listing.then_some(survey.elapsed.as_secs_f64());
    if !targets.is_empty() {
        let source_dir = args.source_dir.clone().unwrap_or_else(std::env::temp_dir);
        // The source's shape in small, copied beside the sets: how far the model is off for a
        // tree of this shape (see `runner::miniature`).
        let plan = miniature::plan(
            &survey.histogram,
            survey.dirs.saturating_sub(1),
            survey.symlinks,
            MINIATURE_SEED,
        );
        let sets = calibration::make_sets(&source_dir, plan.as_ref())?;
        for target in targets {
            gathered.push((
                Origin {
                    destination: target.display().to_string(),
                    run_id: None,
                    measured_now: true,
                },
                measured_tool,
                Ok(calibrate(target, measured_tool, &sets)?),
            ));
        }
    }
    // A tool that copies each name of a file with several names copies its data each time.
    let mut every_name = survey.histogram.clone();
    every_name.merge(&survey.hard_links);
    let shape = |tool: Tool| TreeShape {
        histogram: if tool.keeps_hard_links() {
            &survey.histogram
        } else {
            &every_name
        },
        // The root exists at the destination already.
        dirs: survey.dirs.saturating_sub(1),
        symlinks: survey.symlinks,
        hard_links: if tool.keeps_hard_links() {
            survey.hard_links.total_files()
        } else {
            0
        },
    };
    let reads: Option<Vec<(u64, f64)>> = if args.measure_source {
        let reads = source_sample::sample(&args.source)?;
        Some(reads.iter().map(|r| (r.bytes, r.seconds)).collect())
    } else {
        None
    };
    let estimates: Vec<DestinationEstimate> = gathered
        .into_iter()
        .map(|(origin, tool, measurements)| {
            let (measurements, estimate) = match measurements {
                Ok(m) => {
                    let mut e = estimate::estimate(shape(tool), &m, &format!("--tool {tool}"))
                        .map_err(|e| e.to_string());
                    if let (Ok(e), Some(reads)) = (&mut e, &reads) {
                        e.source = source::apply(
                            &mut e.predicted_seconds,
                            &mut e.advice,
                            reads,
                            survey.histogram.total_files(),
                            survey.histogram.total_bytes(),
                            listing_s,
                        );
                    }
                    (m, e)
                }
                Err(problem) => (Vec::new(), Err(problem)),
            };
            DestinationEstimate {
                origin,
                tool: tool.to_string(),
                measurements,
                estimate,
            }
        })
        .collect();
    let text = if args.json {
        report::estimate::render_json(&args.source, &survey, &estimates)
    } else {
        report::estimate::render(&args.source, &survey, &estimates)
    };
    write_stdout(&text)?;
    Ok(if estimates.iter().all(|e| e.estimate.is_ok()) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_RUNTIME)
    })
}

/// Whether `program` is on the PATH.
fn program_exists(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

/// Copies each calibration set to `target` with `tool`, [`ROUNDS`] times, the sets taking
/// turns so a drift of the destination spreads over all of them. Says first what it writes.
fn calibrate(target: &Path, tool: Tool, sets: &calibration::Sets) -> Result<Vec<CopyMeasurement>> {
    let scratch = Scratch::create(target)?;
    let per_round = sets.bytes_per_round();
    let files: u64 = sets
        .sets
        .iter()
        .map(|(shape, _)| shape.sizes.total_files())
        .sum();
    let miniature = sets
        .sets
        .iter()
        .find(|(shape, _)| shape.name == calibration::MINIATURE)
        .map(|(shape, _)| {
            format!(
                " and a miniature of the source ({} files in {} directories)",
                shape.sizes.total_files(),
                shape.dirs
            )
        })
        .unwrap_or_default();
    // Over a 100 Mbit/s sshfs share: 12.5 MB/s and about 2 ms a file.
    let slow_s = ROUNDS as f64 * (per_round as f64 / 12.5e6 + files as f64 * 2e-3);
    eprintln!(
        "estimate: calibrating {tool} on {}: {} copies of {} calibration sets{miniature} ({} each round, each copy kept until all are timed, then deleted) in {}; about {} at 100 Mbit/s, less on a faster destination",
        target.display(),
        ROUNDS,
        sets.sets
            .iter()
            .filter(|(shape, _)| shape.name != calibration::MINIATURE)
            .count(),
        format_bytes(per_round),
        scratch.path().display(),
        crate::units::human_duration(slow_s),
    );
    let mut measurements: Vec<CopyMeasurement> = sets
        .sets
        .iter()
        .map(|(shape, _)| CopyMeasurement {
            variant: shape.name.to_string(),
            dirs: shape.dirs,
            files: shape.sizes.total_files() + shape.symlinks,
            bytes: shape.sizes.total_bytes(),
            block_bytes: shape.sizes.total_block_bytes(),
            seconds: Vec::new(),
            sizes: Some(shape.sizes.clone()),
        })
        .collect();
    let mut copies = Vec::new();
    for round in 0..ROUNDS {
        for ((shape, path), m) in sets.sets.iter().zip(&mut measurements) {
            let name = format!("{}-{round}", shape.name);
            let elapsed = calibration::time_copy(tool, path, &scratch, &name);
            copies.push(name);
            match elapsed {
                Ok(elapsed) => m.seconds.push(elapsed.as_secs_f64()),
                Err(e) => {
                    let _ = calibration::remove_copies(&scratch, &copies);
                    return Err(e);
                }
            }
        }
    }
    calibration::remove_copies(&scratch, &copies)?;
    Ok(measurements)
}
