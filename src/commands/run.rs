//! `destbench run`: the command line's choices become `RunOptions`; the plan is measured, the
//! chain probed once before, the verdict drawn, the result printed and stored.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::cli::{EngineArg, RunArgs};
use crate::engine::{EngineChoice, NullTiming};
use crate::error::{EXIT_RUNTIME, Error, Result};
use crate::results::RunReport;
use crate::settings::RunOptions;
use crate::workload::ProfileName;

use super::config::{Config, Overrides};
use crate::{cluster, probe, report, runner, verdict};

use super::db::RunStore;
use super::{db, progress, write_stdout};

/// The run the flags ask for, before validation: the command line over the config file's
/// profile (when the profile named is the user's), over its `[defaults]`, over destbench's
/// profile.
pub fn options(args: &RunArgs) -> Result<RunOptions> {
    let config = Config::load()?;
    let name = args
        .profile
        .clone()
        .or_else(|| config.as_ref()?.default_profile().map(str::to_string))
        .unwrap_or_else(|| ProfileName::Backup.to_string());
    let defaults = match &config {
        Some(c) => c.defaults()?,
        None => Overrides::default(),
    };
    let (profile, file) = match name.parse::<ProfileName>() {
        Ok(profile) => (profile, defaults),
        Err(builtin) => {
            let own = match &config {
                Some(c) => c.profile(&name)?,
                None => None,
            };
            let Some(own) = own else {
                let mine = config
                    .as_ref()
                    .map(|c| c.profile_names())
                    .unwrap_or_default();
                return Err(Error::Usage(if mine.is_empty() {
                    format!("--profile: {builtin}")
                } else {
                    format!(
                        "--profile: {builtin}, nor one of the config file's ({})",
                        mine.join(", ")
                    )
                }));
            };
            let file = own.over(defaults);
            (file.base.unwrap_or(ProfileName::Backup), file)
        }
    };
    Ok(RunOptions {
        destination: absolute(args.path.clone().unwrap_or_else(|| PathBuf::from("."))),
        profile,
        tests: or_file(&args.tests, file.tests),
        size: args.size.or(file.size),
        runs: args.runs.or(file.runs),
        duration_s: args.duration.or(file.duration),
        time_s: args.time,
        min_time_s: args.min_time.or(file.min_time),
        engine: match args.engine {
            EngineArg::Auto => EngineChoice::Auto,
            EngineArg::Sync => EngineChoice::Sync,
            EngineArg::Uring => EngineChoice::Uring,
            EngineArg::Null => EngineChoice::Null(NullTiming::default()),
        },
        label: args.label.clone(),
        buffered: args.buffered,
        keep_caches: args.no_drop_caches,
        threads: or_file(&args.threads, file.threads),
        sets: or_file(&args.sets, file.sets),
        set_size: args.set_size.or(file.set_size),
        files: args.files.or(file.files),
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
        skip_space_check: args.no_space_check,
        seed: args.seed,
    })
}

/// The destination as an absolute, canonical path, so that the history, comparisons, reports
/// and the Time Machine lines tell destinations apart (`.` would name every one). A path that
/// cannot be resolved is kept as given: the runner then reports what is wrong with it.
/// A list flag when given, else the config file's list, else empty (the profile's).
fn or_file<T: Clone>(cli: &[T], file: Option<Vec<T>>) -> Vec<T> {
    if cli.is_empty() {
        file.unwrap_or_default()
    } else {
        cli.to_vec()
    }
}

fn absolute(path: PathBuf) -> PathBuf {
    std::fs::canonicalize(&path).unwrap_or(path)
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
    crate::interrupt::install().map_err(|e| Error::io("installing signal handlers", e))?;
    // Probed once, before the run; a path that cannot be probed is left to the runner to
    // report (it names the problem the same way), so the chain is simply absent then.
    let chain = probe::probe(&plan.destination, args.link_speed.as_ref()).ok();
    let run_report = runner::run(&plan, chain, progress().as_mut())?;
    finish(args, run_report, store)
}

/// Judges, prints and stores a finished run (one client's, or rank 0's for all clients).
pub fn finish(
    args: &RunArgs,
    mut run_report: RunReport,
    store: Option<RunStore>,
) -> Result<ExitCode> {
    run_report.verdict = Some(verdict::of(&run_report));
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
    // Only a run that finished is stored, in one transaction: an error or an interruption
    // returned above and stored nothing; nor is a run in which every test failed (it has no
    // figure to compare).
    if let Some(store) = store {
        if run_report.results.is_empty() && !run_report.failures.is_empty() {
            eprintln!("destbench: not stored in the history: every test failed");
        } else {
            match db::store_run(&store, &run_report) {
                Ok(id) => eprintln!(
                    "destbench: stored as run {id} in {}",
                    store.path().display()
                ),
                Err(e) => return Err(not_stored(e, &run_report, args.json)),
            }
        }
    }
    Ok(if run_report.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_RUNTIME)
    })
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
