//! `destbench run`: the command line's choices become `RunOptions`; the plan is measured, the
//! chain probed once before, the verdict drawn, the result printed and stored.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::cli::{EngineArg, RunArgs};
use crate::engine::{EngineChoice, NullTiming};
use crate::error::{EXIT_RUNTIME, Error, Result};
use crate::settings::RunOptions;
use crate::{probe, report, runner, verdict};

use super::{db, progress, write_stdout};

/// The run the flags ask for, before validation.
pub fn options(args: &RunArgs) -> RunOptions {
    RunOptions {
        destination: absolute(args.path.clone().unwrap_or_else(|| PathBuf::from("."))),
        profile: args.profile,
        tests: args.tests.clone(),
        size: args.size,
        runs: args.runs,
        duration_s: args.duration,
        time_s: args.time,
        min_time_s: args.min_time,
        engine: match args.engine {
            EngineArg::Auto => EngineChoice::Auto,
            EngineArg::Sync => EngineChoice::Sync,
            EngineArg::Uring => EngineChoice::Uring,
            EngineArg::Null => EngineChoice::Null(NullTiming::default()),
        },
        label: args.label.clone(),
        buffered: args.buffered,
        keep_caches: args.no_drop_caches,
        threads: args.threads.clone(),
        sets: args.sets.clone(),
        set_size: args.set_size,
        files: args.files,
        source: args.source.clone(),
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
    }
}

/// The destination as an absolute, canonical path, so that the history, comparisons, reports
/// and the Time Machine lines tell destinations apart (`.` would name every one). A path that
/// cannot be resolved is kept as given: the runner then reports what is wrong with it.
fn absolute(path: PathBuf) -> PathBuf {
    std::fs::canonicalize(&path).unwrap_or(path)
}

pub fn run(args: &RunArgs) -> Result<ExitCode> {
    let plan = options(args).plan()?;
    let store = db::open_for_run(args.no_history, &args.history_db)?;
    crate::interrupt::install().map_err(|e| Error::io("installing signal handlers", e))?;
    // Probed once, before the run; a path that cannot be probed is left to the runner to
    // report (it names the problem the same way), so the chain is simply absent then.
    let chain = probe::probe(&plan.destination, args.link_speed.as_ref()).ok();
    let mut run_report = runner::run(&plan, chain, progress().as_mut())?;
    run_report.verdict = Some(verdict::of(&run_report));
    let text = if args.json {
        report::json::render(&run_report)
    } else {
        let layout = report::terminal::Layout::detect(args.wide || args.verbose, args.verbose);
        let mut text =
            report::terminal::render(&run_report, report::terminal::Style::detect(), layout);
        if args.verbose {
            text.push_str(&report::terminal::repetitions(&run_report));
        }
        text
    };
    write_stdout(&text)?;
    // Only a run that finished is stored, in one transaction: an error or an interruption
    // returned above and stored nothing.
    if let Some(store) = store {
        let (id, path) = db::store_run(store, &run_report)?;
        eprintln!("destbench: stored as run {id} in {}", path.display());
    }
    Ok(if run_report.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_RUNTIME)
    })
}
