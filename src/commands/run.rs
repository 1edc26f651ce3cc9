//! `destbench run`: the flags and the config file become `RunOptions`; the plan is measured, the
//! chain probed once before, the verdict drawn, the result printed and stored.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::cli::{EngineArg, RunArgs};
use crate::engine::{EngineChoice, NullTiming};
use crate::error::{EXIT_RUNTIME, Error, Result};
use crate::results::RunReport;
use crate::runner::Progress;
use crate::settings::{Given, RunOptions, RunPlan};
use crate::workload::ProfileName;

use super::config;
use crate::{cluster, probe, report, runner, verdict};

use super::db::RunStore;
use super::{db, progress, write_stdout};

/// The run the flags ask for, before validation: the flags, then the config file under them
/// (`settings` decides what wins).
pub fn options(args: &RunArgs) -> Result<RunOptions> {
    let config = config::load()?;
    let mut options = flags(args);
    if args.time_machine {
        options.destination = probe::time_machine_destination()?;
    }
    options.with_config(args.profile.as_deref(), config.as_ref())
}

/// What the flags set, each under the name the plan gives it.
fn flags(args: &RunArgs) -> RunOptions {
    RunOptions {
        destination: absolute(args.path.clone().unwrap_or_else(|| PathBuf::from("."))),
        profile: ProfileName::default(),
        tests: list(&args.tests),
        size: args.size.map(Given::from),
        band_size: args.band_size.map(Given::from),
        runs: args.runs.map(Given::from),
        block_duration_s: args.duration.map(Given::from),
        sustained_time_s: args.time.map(Given::from),
        min_time_s: args.min_time.map(Given::from),
        engine: match args.engine {
            EngineArg::Auto => EngineChoice::Auto,
            EngineArg::Sync => EngineChoice::Sync,
            EngineArg::Uring => EngineChoice::Uring,
            EngineArg::Null => EngineChoice::Null(NullTiming::default()),
        },
        label: args.label.clone(),
        force_buffered: args.buffered,
        allow_drop_caches: !args.no_drop_caches,
        check_space: !args.no_space_check,
        threads: list(&args.threads),
        sets: list(&args.sets),
        set_size: args.set_size.map(Given::from),
        files: args.files.map(Given::from),
        source: args.source.clone(),
        cross_filesystems: args.cross_filesystems,
        source_dir: args.source_dir.clone(),
        verify: if args.no_verify {
            Some(false)
        } else if args.verify {
            Some(true)
        } else {
            None
        },
        seed: args.seed,
    }
}

/// A list flag when given (`None`: the config file's, else the profile's).
fn list<T: Clone>(values: &[T]) -> Option<Given<Vec<T>>> {
    (!values.is_empty()).then(|| values.to_vec().into())
}

/// The destination as an absolute, canonical path, so that the history, comparisons, reports
/// and the Time Machine lines tell destinations apart (`.` would name every one). A path that
/// cannot be resolved is kept as given: the runner then reports what is wrong with it.
fn absolute(path: PathBuf) -> PathBuf {
    #[cfg(windows)]
    let canonical = dunce::canonicalize(&path);
    #[cfg(not(windows))]
    let canonical = std::fs::canonicalize(&path);
    canonical.unwrap_or(path)
}

pub fn run(args: &RunArgs) -> Result<ExitCode> {
    let launched = cluster::launcher();
    let asked = args.stonewall || !args.clients.is_empty();
    if let Some(note) = cluster::single_client_note(cfg!(feature = "mpi"), launched, asked) {
        eprintln!("destbench: {note}");
    }
    let plan = options(args)?.plan()?;
    // Checked before minutes of measuring, not after.
    if let Some(path) = &args.output {
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
        if dir.is_some_and(|d| !d.is_dir()) || path.is_dir() {
            return Err(Error::Usage(format!(
                "--output {}: not a file in an existing directory",
                path.display()
            )));
        }
    }
    let store = db::open_for_run(args.no_history, &args.history_db)?;
    let run_report = measure(&plan, args, progress().as_mut())?;
    finish(args, run_report, store)
}

/// The plan measured, the chain probed once before: a run from the terminal and one from
/// `destbench ui`'s page alike.
pub fn measure(plan: &RunPlan, args: &RunArgs, progress: &mut dyn Progress) -> Result<RunReport> {
    crate::interrupt::install().map_err(|e| Error::io("installing signal handlers", e))?;
    // A path that cannot be probed is left to the runner to report (it names the problem the
    // same way), so the chain is simply absent then.
    let chain = probe::probe(&plan.destination, args.link_speed.as_ref()).ok();
    #[cfg_attr(not(target_os = "macos"), allow(unused_mut))]
    let mut run_report = runner::run(plan, chain, progress)?;
    #[cfg(target_os = "macos")]
    if !run_report.time_machine_log.is_empty() {
        run_report.destination.time_machine_checks = probe::time_machine_checks(&plan.destination);
    }
    Ok(run_report)
}

/// The run with its verdict.
pub fn judge(mut run_report: RunReport) -> RunReport {
    run_report.verdict = Some(verdict::of(&run_report));
    run_report
}

/// Judges, prints and stores a finished run (one client's, or rank 0's for all clients).
pub fn finish(args: &RunArgs, run_report: RunReport, store: Option<RunStore>) -> Result<ExitCode> {
    let run_report = judge(run_report);
    let text = if args.json {
        report::json::render(&run_report)
    } else {
        let wide = args.wide || args.verbose;
        let (style, layout) = if args.output.is_some() {
            // A file is read later, anywhere: the default width, no colour codes.
            let layout = report::terminal::Layout {
                wide,
                verbose: args.verbose,
                ..Default::default()
            };
            (report::terminal::Style { color: false }, layout)
        } else {
            let layout = report::terminal::Layout::detect(wide, args.verbose);
            (report::terminal::Style::detect(), layout)
        };
        let mut text = report::terminal::render(&run_report, style, layout);
        if args.verbose {
            text.push_str(&report::terminal::repetitions(&run_report));
        }
        text
    };
    match &args.output {
        Some(path) => std::fs::write(path, &text)
            .map_err(|e| Error::io(format!("writing the report to {}", path.display()), e))?,
        None => write_stdout(&text)?,
    }
    if let Some(store) = store {
        self::store(&store, &run_report, args.json)?;
    }
    Ok(if run_report.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_RUNTIME)
    })
}

/// Stores a finished run in one transaction and says so on stderr; returns its id. An error or
/// an interruption returned before and stored nothing; nor is a run in which every test failed
/// stored (it has no figure to compare): None.
pub fn store(store: &RunStore, run_report: &RunReport, json: bool) -> Result<Option<i64>> {
    if run_report.results.is_empty() && !run_report.failures.is_empty() {
        eprintln!("destbench: not stored in the history: every test failed");
        return Ok(None);
    }
    match db::store_run(store, run_report) {
        Ok(id) => {
            eprintln!(
                "destbench: stored as run {id} in {}",
                store.path().display()
            );
            Ok(Some(id))
        }
        Err(e) => Err(not_stored(e, run_report, json)),
    }
}

/// The history could not take a finished run (a full or read-only disk): the error, and where
/// the run's results are kept instead. The report was printed already; with `--json` it is the
/// document on stdout, else the document is written to a new file in the temp directory (never
/// over an existing one).
fn not_stored(cause: Error, run_report: &crate::results::RunReport, json: bool) -> Error {
    let kept = if json {
        "its JSON report is on stdout".to_string()
    } else {
        let file = std::env::temp_dir().join(format!(
            "destbench-run-{}-{}.json",
            run_report.started_unix_s,
            std::process::id()
        ));
        let text = report::json::render(run_report);
        let written = match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&file)
        {
            // Created by us just now, so ours to remove when it cannot be written whole.
            Ok(mut f) => std::io::Write::write_all(&mut f, text.as_bytes()).inspect_err(|_| {
                let _ = std::fs::remove_file(&file);
            }),
            Err(e) => Err(e),
        };
        match written {
            Ok(()) => format!("its JSON report is in {}", file.display()),
            Err(e) => format!(
                "its JSON report could not be saved either: {}: {e}",
                file.display()
            ),
        }
    };
    Error::NotStored {
        cause: Box::new(cause),
        kept,
    }
}
