//! `destbench estimate` as text and as JSON (schema `destbench.estimate/1`, in docs/json.md).
//! Everything shown is computed by `estimate`; this only lays it out.

pub(in crate::report) mod backup;

use std::fmt::Write;
use std::path::Path;

use serde::Serialize;

use crate::estimate::model::time_machine::{self, TimeMachineEstimate};
use crate::estimate::model::{
    ClassEstimate, CopyMeasurement, Costs, Estimate, MINIATURE, MiniatureCheck, Range, Shares,
    SourceSide,
};
use crate::estimate::{DestinationEstimate, EstimateReport, Origin, TimeMachineDestination};
use crate::tree::size_classes::SizeHistogram;
use crate::tree::survey::Survey;
use crate::tree::{Listed, Skipped};
use crate::units::format_bytes;
pub use crate::units::human_duration;

use crate::report::estimate::backup::range;

pub const ESTIMATE_SCHEMA: &str = "destbench.estimate/1";

fn class_name(low: u64, high: Option<u64>) -> String {
    match high {
        Some(high) if low == 0 => format!("< {}", format_bytes(high)),
        Some(high) => format!("{}-{}", format_bytes(low), format_bytes(high)),
        None => format!(">= {}", format_bytes(low)),
    }
}

fn origin_name(o: &Origin) -> String {
    match o.run_id {
        Some(id) => format!("{} (run {id})", o.destination),
        None => format!("{} (measured now)", o.destination),
    }
}

pub fn render(report: &EstimateReport) -> String {
    let mut out = String::new();
    source_lines(&mut out, &report.source, &report.survey);
    if !report.time_machine.is_empty() {
        time_machine_lines(&mut out, &report.time_machine);
        return out;
    }
    if !report.backups.is_empty() {
        crate::report::estimate::backup::lines(&mut out, &report.backups);
        return out;
    }
    for e in &report.estimates {
        let _ = writeln!(out, "\nto {}:", origin_name(&e.origin));
        match &e.estimate {
            Err(problem) => {
                let _ = writeln!(out, "  no estimate: {problem}");
            }
            Ok(est) => estimate_lines(&mut out, e, est),
        }
    }
    let ok: Vec<String> = report
        .estimates
        .iter()
        .filter_map(|e| {
            let est = e.estimate.as_ref().ok()?;
            Some(format!(
                "{} to {}",
                human_duration(est.predicted_seconds.expected),
                e.origin.destination
            ))
        })
        .collect();
    if ok.len() > 1 {
        let _ = writeln!(out, "\n{}", ok.join(", "));
    }
    let _ = writeln!(
        out,
        "\nThe range spans the fits to the fastest and slowest copies, and at least twice the model's residual on them either side. A source slower than the destination, or a destination that slows as it fills or heats, is not in it."
    );
    out
}

/// Each stored run's Time Machine estimate, and the model's words (docs/tm-backup.md).
fn time_machine_lines(out: &mut String, estimates: &[TimeMachineDestination]) {
    for e in estimates {
        let _ = writeln!(out, "\nto {} with Time Machine:", origin_name(&e.origin));
        match &e.estimate {
            Err(problem) => {
                let _ = writeln!(out, "  no estimate: {problem}");
            }
            Ok(tm) => {
                let _ = writeln!(out, "  first backup:       {}", range(&tm.first_seconds));
                let _ = writeln!(
                    out,
                    "  hourly incremental: {}",
                    range(&tm.incremental_seconds)
                );
                let _ = writeln!(
                    out,
                    "  from the run's tm-backup: user data {:.1} MB/s, incremental {:.1} MB/s, {:.1} barriers/s, bands of {}",
                    tm.user_data_mb_s,
                    tm.incremental_mb_s,
                    tm.barriers_per_s,
                    format_bytes(tm.band_size_bytes)
                );
                let _ = writeln!(out, "  Time Machine's own work: {}", tm.per_item.describe());
            }
        }
    }
    let _ = writeln!(
        out,
        "\nThe first backup is the source's bytes, plus {:.1} KiB of APFS metadata per file (none to twice that for the range), at the replay's time per user byte, plus Time Machine's own work per item on the Mac (this Mac's logged backups where the run read them, else the range published first backups show); an hourly incremental writes 1.0-10.2% (4.4% expected) of the first backup's bytes at the replay's incremental rate, as the traced incrementals did (docs/tm-backup.md). The source's reads and a destination that slows as it fills are not in it.",
        time_machine::PER_FILE_BYTES / 1024.0
    );
}

/// The surveyed source: its size, and what the survey left out.
fn source_lines(out: &mut String, source: &Path, survey: &Survey) {
    let h = &survey.histogram;
    let _ = writeln!(
        out,
        "first full backup of {}: {} files, {} in {} directories (surveyed in {:.1} s)",
        source.display(),
        h.total_files(),
        format_bytes(h.total_bytes()),
        survey.dirs,
        survey.elapsed.as_secs_f64()
    );
    let mut left_out = survey.skipped;
    // Unreadable entries have a line of their own below.
    left_out.unreadable = 0;
    if let Some(counts) = left_out.describe() {
        let _ = writeln!(out, "  skipped (no data a backup copies): {counts}");
    }
    let links = &survey.hard_links;
    if links.total_files() > 0 {
        let _ = writeln!(
            out,
            "  {} more names of those files are hard links ({} if copied again): cp -a links them, rsync -a (without -H) and destbench copy each",
            links.total_files(),
            format_bytes(links.total_bytes())
        );
    }
    if survey.unreadable.count > 0 {
        let _ = writeln!(
            out,
            "  {} unreadable entries were left out (the backup could not read them either): {}",
            survey.unreadable.count,
            survey.unreadable.examples.join("; ")
        );
    }
}

/// One destination's estimate: the prediction, where the time goes, the advice, the model,
/// the miniature's check and the size classes.
fn estimate_lines(out: &mut String, e: &DestinationEstimate, est: &Estimate) {
    let _ = writeln!(
        out,
        "  predicted for {}: {}",
        e.tool,
        range(&est.predicted_seconds)
    );
    let sh = &est.shares;
    let total = sh.total().max(f64::MIN_POSITIVE);
    let _ = writeln!(
        out,
        "  where the time goes: bandwidth {:.0}%, per-file {:.0}%, directories {:.0}%, start and final flush {:.0}%",
        100.0 * sh.bandwidth_s / total,
        100.0 * sh.per_file_s / total,
        100.0 * sh.directories_s / total,
        100.0 * sh.start_s / total
    );
    for advice in &est.advice {
        let _ = writeln!(out, "  advice: {advice}");
    }
    let _ = writeln!(out, "  {}", model_line(est, &e.measurements));
    if let Some(m) = &est.miniature {
        let _ = writeln!(out, "  {}", miniature_line(m));
    }
    classes_table(out, &est.classes);
}

/// The fitted costs and the copies they were fitted to.
fn model_line(est: &Estimate, measurements: &[CopyMeasurement]) -> String {
    let c = &est.costs;
    let overlap = if c.hidden_bytes_per_file > 0.0 {
        format!(
            " beyond each file's first {} (they cross during its fixed cost)",
            format_bytes(c.hidden_bytes_per_file as u64)
        )
    } else {
        String::new()
    };
    let slack = if c.slack_s_per_byte > 0.0 {
        format!("{:.1} MB/s", 1e-6 / c.slack_s_per_byte)
    } else {
        "no cost".to_string()
    };
    let fitted_to = measurements
        .iter()
        .filter(|m| m.variant != MINIATURE)
        .map(|m| {
            format!(
                "{} ({} dirs, {} files, {}, {}x)",
                m.variant,
                m.dirs,
                m.files,
                format_bytes(m.bytes),
                m.seconds.len()
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "model: {:.2} s once + {:.2} ms per directory + {:.2} ms per file + bytes{overlap} at {:.1} MB/s + block slack at {slack}, fitted to {fitted_to} (residual {:.1}%)",
        c.start_s,
        c.per_dir_s * 1e3,
        c.per_file_s * 1e3,
        c.bytes_per_s / 1e6,
        100.0 * est.residual
    )
}

/// The miniature's copies against the model, and what they did to the time.
fn miniature_line(m: &MiniatureCheck) -> String {
    let seconds = m
        .seconds
        .iter()
        .map(|s| format!("{s:.2}"))
        .collect::<Vec<_>>()
        .join(", ");
    let effect = match &m.not_applied {
        None => format!(
            "the time beyond the start scaled by {:.3} ({:.3} to {:.3} for the interval)",
            m.ratio, m.ratio_low, m.ratio_high
        ),
        Some(why) => format!("ratio {:.3}, not applied: {why}", m.ratio),
    };
    format!(
        "the source's miniature ({} dirs, {} files, {}) took {seconds} s where the model says {:.2} s: {effect}",
        m.dirs,
        m.files,
        format_bytes(m.bytes),
        m.model_seconds,
    )
}

fn classes_table(out: &mut String, classes: &[ClassEstimate]) {
    let _ = writeln!(
        out,
        "  {:<22} {:>10} {:>12} {:>12} {:>10} {:>10}",
        "size class", "files", "bytes", "time", "MB/s", "files/s"
    );
    for c in classes {
        let _ = writeln!(
            out,
            "  {:<22} {:>10} {:>12} {:>12} {:>10.1} {:>10.0}",
            class_name(c.low_bytes, c.high_bytes),
            c.files,
            format_bytes(c.bytes),
            human_duration(c.expected_seconds),
            c.rate_mb_s,
            c.files_per_s
        );
    }
}

#[derive(Serialize)]
struct Doc<'a> {
    schema: &'static str,
    source: SourceDoc<'a>,
    estimates: Vec<EstimateDoc<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    time_machine: Vec<TimeMachineDoc<'a>>,
    /// `commands` in the document: its schema is older than the word.
    #[serde(skip_serializing_if = "Vec::is_empty", rename = "commands")]
    backups: Vec<crate::report::estimate::backup::BackupDoc<'a>>,
}

/// One stored run's Time Machine estimate, or its error.
#[derive(Serialize)]
struct TimeMachineDoc<'a> {
    #[serde(flatten)]
    origin: &'a Origin,
    estimate: Option<&'a TimeMachineEstimate>,
    error: Option<String>,
}

#[derive(Serialize)]
struct SourceDoc<'a> {
    path: String,
    files: u64,
    bytes: u64,
    dirs: u64,
    symlinks: u64,
    /// Names beyond the first of files with several names (counted once in `files`).
    hard_links: u64,
    hard_link_bytes: u64,
    special: u64,
    /// Everything left out, by kind.
    skipped: &'a Skipped,
    unreadable: &'a Listed,
    survey_s: f64,
    classes: Vec<SourceClass>,
}

#[derive(Serialize)]
struct SourceClass {
    low_bytes: u64,
    high_bytes: Option<u64>,
    files: u64,
    bytes: u64,
}

#[derive(Serialize)]
struct EstimateDoc<'a> {
    #[serde(flatten)]
    origin: &'a Origin,
    tool: String,
    predicted_seconds: Option<Range>,
    costs: Option<Costs>,
    costs_fast: Option<Costs>,
    costs_slow: Option<Costs>,
    residual: Option<f64>,
    shares: Option<Shares>,
    advice: &'a [String],
    miniature: Option<&'a MiniatureCheck>,
    source: Option<SourceSide>,
    classes: &'a [ClassEstimate],
    measurements: &'a [CopyMeasurement],
    error: Option<String>,
}

pub fn render_json(report: &EstimateReport) -> String {
    let doc = Doc {
        schema: ESTIMATE_SCHEMA,
        source: SourceDoc::of(&report.source, &report.survey),
        estimates: report.estimates.iter().map(EstimateDoc::of).collect(),
        time_machine: report
            .time_machine
            .iter()
            .map(|e| TimeMachineDoc {
                origin: &e.origin,
                estimate: e.estimate.as_ref().ok(),
                error: e.estimate.as_ref().err().map(ToString::to_string),
            })
            .collect(),
        backups: report
            .backups
            .iter()
            .map(crate::report::estimate::backup::BackupDoc::of)
            .collect(),
    };
    crate::report::export::pretty(&doc)
}

impl<'a> SourceDoc<'a> {
    fn of(source: &Path, survey: &'a Survey) -> SourceDoc<'a> {
        let h = &survey.histogram;
        SourceDoc {
            path: source.display().to_string(),
            files: h.total_files(),
            bytes: h.total_bytes(),
            dirs: survey.dirs,
            symlinks: survey.symlinks,
            hard_links: survey.hard_links.total_files(),
            hard_link_bytes: survey.hard_links.total_bytes(),
            special: survey.special,
            skipped: &survey.skipped,
            unreadable: &survey.unreadable,
            survey_s: survey.elapsed.as_secs_f64(),
            classes: (0..h.files.len())
                .map(|c| {
                    let (low_bytes, high_bytes) = SizeHistogram::class_range(c);
                    SourceClass {
                        low_bytes,
                        high_bytes,
                        files: h.files[c],
                        bytes: h.bytes[c],
                    }
                })
                .collect(),
        }
    }
}

impl<'a> EstimateDoc<'a> {
    /// One destination: its estimate's figures, or its error and no figures.
    fn of(e: &'a DestinationEstimate) -> EstimateDoc<'a> {
        let est = e.estimate.as_ref().ok();
        EstimateDoc {
            origin: &e.origin,
            tool: e.tool.to_string(),
            predicted_seconds: est.map(|x| x.predicted_seconds),
            costs: est.map(|x| x.costs),
            costs_fast: est.map(|x| x.costs_fast),
            costs_slow: est.map(|x| x.costs_slow),
            residual: est.map(|x| x.residual),
            shares: est.map(|x| x.shares),
            advice: est.map_or(&[], |x| &x.advice),
            miniature: est.and_then(|x| x.miniature.as_ref()),
            source: est.and_then(|x| x.source),
            classes: est.map_or(&[], |x| &x.classes),
            measurements: &e.measurements,
            error: e.estimate.as_ref().err().map(ToString::to_string),
        }
    }
}
