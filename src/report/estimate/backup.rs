//! A backup program's estimate (`estimate --tool restic`, `--tool 'cmd:…'`) as text and as
//! the `commands` of `destbench.estimate/1`. Everything shown is computed by
//! `estimate::model::command`; this only lays it out.

use std::fmt::Write;

use serde::Serialize;

use crate::estimate::model::backup::{BackupEstimate, Limit, SecondRun, Side, ToolRun};
use crate::estimate::{BackupDestination, Origin};
use crate::units::{format_bytes, human_duration};
use crate::workload::presets::BackupTool;

use crate::estimate::model::Range;

/// A prediction and its range, as every estimate prints it.
pub(in crate::report) fn range(r: &Range) -> String {
    format!(
        "{} ({} to {})",
        human_duration(r.expected),
        human_duration(r.low),
        human_duration(r.high)
    )
}

/// Each destination's first backup with the tool, its fit, runs, limit and second backup.
pub(in crate::report) fn lines(out: &mut String, commands: &[BackupDestination]) {
    for c in commands {
        let _ = writeln!(
            out,
            "\nto {} (measured now) with {}:",
            c.origin.destination, c.tool
        );
        match &c.estimate {
            Err(problem) => {
                let _ = writeln!(out, "  no estimate: {problem}");
            }
            Ok(e) => estimate_lines(out, c, e),
        }
        if !c.runs.is_empty() {
            let _ = writeln!(out, "  {}", runs_line(&c.runs));
        }
    }
    let _ = writeln!(
        out,
        "\nThe tool ran on miniatures of the source's own files (their share of every size class), each into an empty repository, timed to the end of a sync of the destination; the range spans the fits to each miniature's fastest and slowest runs and the fit's own 95% error at the whole source (its start's and its slope's), and at least twice the fit's residual and the model's own error on real trees ({:.0}%) either side. Deduplication and compression are what the miniatures show: duplicates spread across the whole source are seen only as far as the sample holds both copies. Each run read its miniature from a cold cache (as root, the machine's caches dropped: its inodes and directories too), as a first backup reads its source; {} says whether the source's reading is the limit.",
        100.0 * crate::estimate::model::MODEL_ERROR,
        crate::settings::defs::MEASURE_SOURCE
    );
}

fn estimate_lines(out: &mut String, c: &BackupDestination, e: &BackupEstimate) {
    let _ = writeln!(out, "  first backup: {}", range(&e.predicted_seconds));
    let _ = writeln!(
        out,
        "  fit: {:.2} s once + {} for the whole source's files and bytes (residual {:.1}%)",
        e.start_s,
        human_duration(e.whole_s),
        100.0 * e.residual
    );
    let _ = writeln!(out, "  limit: {}", limit_line(&c.tool, &e.limit));
    if let Some(s) = &e.source {
        let _ = writeln!(
            out,
            "  the source: reading it takes {} ({:.1} MB/s, {:.2} ms per file), added",
            human_duration(s.cost.seconds),
            s.cost.bytes_per_s / 1e6,
            s.cost.per_file_s * 1e3
        );
    }
    if let (Some(seconds), Some(second)) = (e.second_seconds, &c.second) {
        let _ = writeln!(
            out,
            "  second backup, after {:.0}% of the files changed: {} (one run on the largest miniature: {} files, {} rewritten, {:.2} s)",
            100.0 * c.changed,
            human_duration(seconds),
            second.changed_files,
            format_bytes(second.changed_bytes),
            second.seconds
        );
    }
}

/// Which side limits, in the words of the example.
fn limit_line(tool: &BackupTool, l: &Limit) -> String {
    let cores = if tool.threads == Some(1) {
        "the 1 core it can use (it works on one thread)".to_string()
    } else {
        format!("{} cores", l.cores)
    };
    let used = l.cores_used.map_or_else(
        || "the tool's CPU time is not known on this system".to_string(),
        |u| format!("{tool} used {u:.1} of {cores}"),
    );
    let why = match l.side {
        Side::Source => {
            return "reading the source takes longer than the backup: the source is the limit here"
                .into();
        }
        Side::Tool => "the tool's work, not the destination, is the limit here".to_string(),
        Side::Cpu => format!(
            "other programs kept the machine's cores busy ({:.1} of {} in all): the shared CPU is the limit here, and the backup would be faster on an idle machine",
            l.machine_cores_used.unwrap_or(0.0),
            l.machine_cores
        ),
        Side::Destination => "it waited on the destination, which is the limit here".to_string(),
        Side::SourceOrDestination => format!(
            "it waited on reading the source or writing the destination ({} says which)",
            crate::settings::defs::MEASURE_SOURCE
        ),
    };
    format!("{used}: {why}")
}

/// The runs, by miniature.
fn runs_line(runs: &[ToolRun]) -> String {
    let mut by_share: Vec<(&ToolRun, Vec<String>)> = Vec::new();
    for r in runs {
        let time = format!("{:.2}", r.seconds);
        match by_share
            .iter_mut()
            .find(|(first, _)| first.share == r.share)
        {
            Some((_, times)) => times.push(time),
            None => by_share.push((r, vec![time])),
        }
    }
    let parts: Vec<String> = by_share
        .iter()
        .map(|(r, times)| {
            format!(
                "{:.1}% ({} files, {}) {} s",
                100.0 * r.share,
                r.files,
                format_bytes(r.bytes),
                times.join(", ")
            )
        })
        .collect();
    format!(
        "runs on miniatures (share of the source): {}",
        parts.join("; ")
    )
}

/// One destination's estimate with a backup program, for the JSON.
#[derive(Serialize)]
pub(in crate::report) struct BackupDoc<'a> {
    #[serde(flatten)]
    origin: &'a Origin,
    tool: ToolDoc<'a>,
    predicted_seconds: Option<Range>,
    /// `start_s + share × whole_s`, with its residual.
    fit: Option<FitDoc>,
    limit: Option<Limit>,
    runs: &'a [ToolRun],
    second_backup: Option<SecondDoc<'a>>,
    source: Option<crate::estimate::model::SourceSide>,
    error: Option<String>,
}

#[derive(Serialize)]
struct ToolDoc<'a> {
    name: String,
    command: &'a str,
    setup: Option<&'a str>,
    /// Set beside the throwaway secrets.
    env: &'a [(&'static str, &'static str)],
}

#[derive(Serialize)]
struct FitDoc {
    start_s: f64,
    whole_s: f64,
    residual: f64,
}

#[derive(Serialize)]
struct SecondDoc<'a> {
    changed_percent: f64,
    /// For the whole source; None without a first backup's fit.
    predicted_seconds: Option<f64>,
    run: &'a SecondRun,
}

impl<'a> BackupDoc<'a> {
    pub(in crate::report) fn of(c: &'a BackupDestination) -> BackupDoc<'a> {
        let e = c.estimate.as_ref().ok();
        BackupDoc {
            origin: &c.origin,
            tool: ToolDoc {
                name: c.tool.to_string(),
                command: &c.tool.line,
                setup: c.tool.setup.as_ref().map(|(line, _)| line.as_str()),
                env: c.tool.env,
            },
            predicted_seconds: e.map(|e| e.predicted_seconds),
            fit: e.map(|e| FitDoc {
                start_s: e.start_s,
                whole_s: e.whole_s,
                residual: e.residual,
            }),
            limit: e.map(|e| e.limit),
            runs: &c.runs,
            second_backup: c.second.as_ref().map(|run| SecondDoc {
                changed_percent: 100.0 * c.changed,
                predicted_seconds: e.and_then(|e| e.second_seconds),
                run,
            }),
            source: e.and_then(|e| e.source),
            error: c.estimate.as_ref().err().map(ToString::to_string),
        }
    }
}
