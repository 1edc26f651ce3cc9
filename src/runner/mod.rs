//! Phases, repetitions, timing and progress: runs a plan of test variants against a destination.

mod access;
mod ctx;
mod eta;
mod hook;
mod kinds;
mod measure;
mod progress;
mod sources;
mod time;
mod untimed;
mod variant;

use std::rc::Rc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

pub use crate::settings::RunPlan;
pub use access::Access;
pub use eta::Eta;
pub use hook::{Alone, RepetitionHook};
pub use progress::{NoProgress, Progress};
pub use sources::{check_folder, check_source};

use crate::engine::EngineFactory;
use crate::error::{Error, Result};
use crate::interrupt;
use crate::platform;
use crate::platform::confine::Launcher;
use crate::probe::Chain;
use crate::results::{
    AdaptiveSettings, Destination, RUN_SCHEMA, RunDocument, RunSettings, TestFailure, TestResult,
    time_machine_lines,
};
use crate::results::{Warning, WarningKind};
use crate::scratch::{self, Scratch};
use crate::workload::DataStamper;
use ctx::{Ctx, Programs, can_run};
use time::schedule::Schedule;

/// The seconds a run of `plan` is planned to take before anything is measured (`destbench ui`
/// shows it beside each profile): the first plan the progress bar's ETA starts from, with every
/// variant taken as runnable.
pub fn planned_total_s(plan: &RunPlan) -> f64 {
    measure::first_plan_s(
        plan,
        &Schedule::new(plan, |_| true),
        &eta::Eta::for_plan(plan),
    )
}

/// Runs the plan. Returns Err only for what stops the whole run (bad destination, no space,
/// interruption); a failing test is recorded in the report's `failures` and the others go on.
/// `chain` is the destination's chain as probed before the run (None when it could not be),
/// recorded with the results and read, never probed again, by the tests that need it.
pub fn run(
    plan: &RunPlan,
    chain: Option<Chain>,
    progress: &mut dyn Progress,
) -> Result<RunDocument> {
    run_with(plan, chain, progress, &Alone)
}

/// [`run`] with a hook around every repetition (one client of several: `cluster`). With other
/// clients a failing test ends the run (`RepetitionHook::failures_end_run`).
pub fn run_with(
    plan: &RunPlan,
    chain: Option<Chain>,
    progress: &mut dyn Progress,
    hook: &dyn RepetitionHook,
) -> Result<RunDocument> {
    let fixed;
    let plan = if hook.with_others() {
        fixed = fixed_for_others(plan);
        &fixed
    } else {
        plan
    };
    let started = SystemTime::now();
    let wall = Instant::now();
    let (engines, scratch) = prepare(plan, chain.as_ref(), hook)?;
    let access = access::detect(
        &scratch,
        &engines,
        plan.force_buffered,
        plan.allow_drop_caches,
    );
    let programs = scratch.launcher(&[], plan.unconfined_programs);
    let mut warnings = warnings_before(plan, &engines, &access);
    warnings.extend(programs_warning(plan, &programs));
    let mut stamper = DataStamper::new(plan.seed);
    let mut ctx = Ctx {
        scratch: &scratch,
        engines: &engines,
        access: &access,
        stamper: &mut stamper,
        series_interval: plan.profile.series_interval,
        seed: plan.seed,
        sources: sources::Sources::default(),
        chain: chain.as_ref(),
        hook,
        ledger: Rc::default(),
        programs: &programs,
        durable_write: None,
    };
    let measure::Measurements {
        results,
        failures,
        time,
        plan: sized,
    } = measure::measure(&mut ctx, plan, progress, &mut warnings, wall)?;
    let plan = &sized;
    interrupt::check()?;
    if !failures.is_empty() {
        warnings.push(Warning::new(
            WarningKind::Failures,
            format!(
                "{} test variant(s) failed; see the failures",
                failures.len()
            ),
        ));
    }
    drop(scratch);
    Ok(RunDocument {
        started_unix_s: started
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
        duration_s: wall.elapsed().as_secs_f64(),
        access: access.info(),
        warnings,
        time: Some(time),
        ..document(plan, chain, results, failures)
    })
}

/// The destination (and source) checked, the engines chosen, and the scratch directory made.
fn prepare(
    plan: &RunPlan,
    chain: Option<&Chain>,
    hook: &dyn RepetitionHook,
) -> Result<(EngineFactory, Scratch)> {
    let engines = engines_for(plan, chain)?;
    scratch::check_destination(&plan.destination)?;
    if let Some(source) = &plan.source {
        sources::check_source(source)?;
    }
    // Creating the scratch directory first is the real test of a read-only or unwritable
    // destination; the space check then removes it again if the run would not fit.
    let scratch = Scratch::create_tagged(&plan.destination, hook.scratch_tag().as_deref())?;
    if engines.capabilities().real_io && plan.check_space {
        kinds::space::check_space(plan)?;
    }
    Ok((engines, scratch))
}

/// The plan with its repetitions and block durations fixed in advance, for a run beside other
/// clients (`RepetitionHook::with_others`).
fn fixed_for_others(plan: &RunPlan) -> RunPlan {
    RunPlan {
        repeats: crate::settings::Repeats::Exactly(plan.repeats.least()),
        block_until_steady: false,
        ..plan.clone()
    }
}

/// The engines the plan asks for, suited to the destination's filesystem.
fn engines_for(plan: &RunPlan, chain: Option<&Chain>) -> Result<EngineFactory> {
    let mut engines = EngineFactory::new(plan.engine)
        .map_err(|e| Error::Usage(format!("{} {e}", crate::settings::defs::ENGINE)))?;
    if let Some(filesystem) = chain.and_then(Chain::filesystem) {
        engines.suit_filesystem(filesystem);
    }
    Ok(engines)
}

/// The run document of the plan's results, with the chain probed before it; when and how the
/// run went are the caller's to fill in.
fn document(
    plan: &RunPlan,
    chain: Option<Chain>,
    results: Vec<TestResult>,
    failures: Vec<TestFailure>,
) -> RunDocument {
    RunDocument {
        schema: RUN_SCHEMA.into(),
        destbench_version: crate::version::VERSION.into(),
        destination: Destination {
            path: plan.destination.clone(),
            ..Destination::default()
        },
        settings: settings(plan),
        time_machine_log: time_machine_lines(&plan.destination, &results),
        results,
        failures,
        peak_rss_bytes: platform::peak_rss(),
        chain,
        ..RunDocument::default()
    }
}

/// What the run says before it measures: leftovers of killed runs where it works, a memory-backed
/// destination, tests the engine leaves out, and io_uring not used under `auto`.
fn warnings_before(plan: &RunPlan, engines: &EngineFactory, access: &Access) -> Vec<Warning> {
    let mut warnings = Vec::new();
    // Leftovers of killed runs where this one works: said once, removed only by `clean`.
    let mut places = vec![plan.destination.clone()];
    if plan.source.is_none() && plan.source_dir != plan.destination {
        places.push(plan.source_dir.clone());
    }
    let found: Vec<_> = places
        .iter()
        .flat_map(|p| scratch::leftovers::find(p))
        .collect();
    let clean = format!(
        "destbench clean {}",
        places
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    );
    warnings.extend(
        scratch::leftovers::summary(&found, &clean)
            .map(|text| Warning::new(WarningKind::Leftovers, text)),
    );
    if access.memory_backed {
        warnings.push(Warning::new(WarningKind::MemoryBacked, &access.note));
    }
    let capabilities = engines.capabilities();
    let mut left_out: Vec<&str> = plan
        .variants
        .iter()
        .filter(|v| !can_run(capabilities, v))
        .map(|v| v.test.as_str())
        .collect();
    left_out.dedup();
    if !left_out.is_empty() {
        warnings.push(Warning::new(
            WarningKind::LeftOut,
            format!(
                "the {} engine does no I/O, so {} (real devices) were left out",
                engines.kind_for(1).name(),
                left_out.join(", ")
            ),
        ));
    }
    if let Some(problem) = engines.auto_declines_uring() {
        warnings.push(Warning::new(
            WarningKind::NoUring,
            format!(
                "io_uring is not usable ({problem}): queue depths above 1 use sync worker threads"
            ),
        ));
    }
    warnings
}

/// The settings the run document records.
fn settings(plan: &RunPlan) -> RunSettings {
    RunSettings {
        profile: plan.profile.name,
        runs: plan.repeats.most(),
        adaptive: match plan.repeats {
            crate::settings::Repeats::UntilPrecise(a) => Some(AdaptiveSettings {
                min_runs: a.min_runs,
                max_runs: a.max_runs,
                precision: a.precision,
                budget_s: plan.profile.budget.as_secs_f64(),
                size_share: 1.0 / plan.sizing.divisor as f64,
            }),
            crate::settings::Repeats::Exactly(_) => None,
        },
        file_size_bytes: plan.file_size,
        block_duration_s: plan.block_duration.as_secs_f64(),
        min_time_s: plan.min_time.as_secs_f64(),
        engine: plan.engine.name().to_string(),
        seed: plan.seed,
        label: plan.label.clone(),
        imported_from: None,
    }
}

/// Which copy programs the plan starts on the destination, each named once.
fn programs_of(plan: &RunPlan) -> Vec<&'static str> {
    let mut names: Vec<&str> = plan
        .variants
        .iter()
        .filter_map(|v| v.workload.program())
        .map(|p| p.program())
        .collect();
    names.dedup();
    names
}

/// What the run says of the programs it starts on the destination: left out where they may
/// not run (and why), or run unconfined (and why that is allowed).
fn programs_warning(plan: &RunPlan, programs: &Programs) -> Option<Warning> {
    let names = programs_of(plan);
    if names.is_empty() {
        return None;
    }
    let names = names.join(" and ");
    match programs {
        Ok(Launcher::Confined(_)) => None,
        Ok(Launcher::Unconfined { why }) => Some(Warning::new(
            WarningKind::Unconfined,
            format!("{names} ran unconfined: {why}"),
        )),
        Err(why) => Some(Warning::new(
            WarningKind::LeftOut,
            format!(
                "{names}'s copies were left out: {why} ({} runs them anyway)",
                crate::settings::defs::UNCONFINED_PROGRAMS
            ),
        )),
    }
}
