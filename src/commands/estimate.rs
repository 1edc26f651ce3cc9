//! `destbench estimate SOURCE`: its flags as `estimate::Options`, the stored runs it names
//! loaded from the history, the estimate made by `estimate::run` and rendered by
//! `report::estimate`.

use std::process::ExitCode;
use std::time::Duration;

use crate::cli::EstimateArgs;
use crate::error::{EXIT_RUNTIME, Result};
use crate::estimate::{self, Options, StoredRun, ToolSettings};
use crate::report;

use super::{db, write_stdout};

pub fn estimate(args: &EstimateArgs) -> Result<ExitCode> {
    let (text, all_estimated) = render(args)?;
    write_stdout(&text)?;
    Ok(if all_estimated {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_RUNTIME)
    })
}

/// The estimate as the command prints it (`destbench ui` shows the same text).
pub fn text(args: &EstimateArgs) -> Result<String> {
    render(args).map(|(text, _)| text)
}

/// The estimate rendered, and whether every destination was estimated.
fn render(args: &EstimateArgs) -> Result<(String, bool)> {
    let plan = Options {
        source: args.source.clone(),
        cross_filesystems: args.cross_filesystems,
        to: args.to.iter().chain(&args.compare).cloned().collect(),
        from_stored_runs: !args.runs.is_empty(),
        threads: args.threads,
        tool: args.tool.clone(),
        measure_source: args.measure_source,
        source_dir: args.source_dir.clone(),
        setup: args.setup.clone(),
        tool_settings: ToolSettings {
            timeout: Duration::from_secs_f64(args.tool_timeout),
            changed: args.changed / 100.0,
            unconfined: args.unconfined_programs,
        },
    }
    .plan()?;
    // Stored runs before the survey: a wrong id should not cost a measurement.
    let stored = stored_runs(args)?;
    let report = estimate::run(&plan, &stored)?;
    let text = if args.json {
        report::estimate::render_json(&report)
    } else {
        report::estimate::render(&report)
    };
    Ok((text, report.all_estimated()))
}

/// The runs of `--run`, in their order.
fn stored_runs(args: &EstimateArgs) -> Result<Vec<StoredRun>> {
    if args.runs.is_empty() {
        return Ok(Vec::new());
    }
    let records = db::records(&args.db, &args.runs)?;
    Ok(records
        .into_iter()
        .map(|r| StoredRun {
            id: r.id,
            run: r.run,
        })
        .collect())
}
