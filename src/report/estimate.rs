//! `destbench estimate` as text and as JSON (schema `destbench.estimate/1`, in docs/json.md).
//! Everything shown is computed by `verdict::estimate`; this only lays it out.

use std::fmt::Write;
use std::path::Path;

use serde::Serialize;

use crate::tree::scan::{SizeHistogram, Survey};
use crate::tree::{Listed, Skipped};
use crate::units::format_bytes;
use crate::verdict::estimate::{
    ClassEstimate, CopyMeasurement, Costs, DestinationEstimate, Origin, Range,
};

pub const ESTIMATE_SCHEMA: &str = "destbench.estimate/1";

/// A duration the way people say it: `38 s`, `4.5 min`, `42 min`, `3 h 05 min`.
pub fn human_duration(seconds: f64) -> String {
    if seconds < 60.0 {
        format!("{seconds:.0} s")
    } else if seconds < 600.0 {
        format!("{:.1} min", seconds / 60.0)
    } else if seconds < 3600.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        let minutes = (seconds / 60.0).round() as u64;
        format!("{} h {:02} min", minutes / 60, minutes % 60)
    }
}

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

fn range(r: &Range) -> String {
    format!(
        "{} ({} to {})",
        human_duration(r.expected),
        human_duration(r.low),
        human_duration(r.high)
    )
}

pub fn render(
    source: &Path,
    survey: &Survey,
    threads: usize,
    estimates: &[DestinationEstimate],
) -> String {
    let mut out = String::new();
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
    if survey.unreadable.count > 0 {
        let _ = writeln!(
            out,
            "  {} unreadable entries were left out (the backup could not read them either): {}",
            survey.unreadable.count,
            survey.unreadable.examples.join("; ")
        );
    }
    for e in estimates {
        let _ = writeln!(out, "\nto {}:", origin_name(&e.origin));
        match &e.estimate {
            Err(problem) => {
                let _ = writeln!(out, "  no estimate: {problem}");
            }
            Ok(est) => {
                let _ = writeln!(
                    out,
                    "  predicted: {}  ({threads} copy thread(s), write cache on)",
                    range(&est.predicted_seconds)
                );
                let _ = writeln!(
                    out,
                    "  model: {:.2} ms per file + bytes at {:.1} MB/s, fitted to {}",
                    est.costs.per_file_s * 1e3,
                    est.costs.bytes_per_s / 1e6,
                    e.measurements
                        .iter()
                        .map(|m| format!(
                            "{} ({} files, {}, {}x)",
                            m.variant,
                            m.files,
                            format_bytes(m.bytes),
                            m.seconds.len()
                        ))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                let _ = writeln!(
                    out,
                    "  {:<22} {:>10} {:>12} {:>12} {:>10} {:>10}",
                    "size class", "files", "bytes", "time", "MB/s", "files/s"
                );
                for c in &est.classes {
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
        }
    }
    let ok: Vec<String> = estimates
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
        "\nThe range spans the measured repetitions, and at least ±15% for what the model leaves out (a slow source, a destination that slows as it fills or heats)."
    );
    out
}

#[derive(Serialize)]
struct Doc<'a> {
    schema: &'static str,
    source: SourceDoc<'a>,
    threads: usize,
    estimates: Vec<EstimateDoc<'a>>,
}

#[derive(Serialize)]
struct SourceDoc<'a> {
    path: String,
    files: u64,
    bytes: u64,
    dirs: u64,
    symlinks: u64,
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
    predicted_seconds: Option<Range>,
    costs: Option<Costs>,
    costs_fast: Option<Costs>,
    costs_slow: Option<Costs>,
    classes: &'a [ClassEstimate],
    measurements: &'a [CopyMeasurement],
    error: Option<&'a str>,
}

pub fn render_json(
    source: &Path,
    survey: &Survey,
    threads: usize,
    estimates: &[DestinationEstimate],
) -> String {
    let h = &survey.histogram;
    let doc = Doc {
        schema: ESTIMATE_SCHEMA,
        source: SourceDoc {
            path: source.display().to_string(),
            files: h.total_files(),
            bytes: h.total_bytes(),
            dirs: survey.dirs,
            symlinks: survey.symlinks,
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
        },
        threads,
        estimates: estimates
            .iter()
            .map(|e| {
                let est = e.estimate.as_ref().ok();
                EstimateDoc {
                    origin: &e.origin,
                    predicted_seconds: est.map(|x| x.predicted_seconds),
                    costs: est.map(|x| x.costs),
                    costs_fast: est.map(|x| x.costs_fast),
                    costs_slow: est.map(|x| x.costs_slow),
                    classes: est.map_or(&[], |x| &x.classes),
                    measurements: &e.measurements,
                    error: e.estimate.as_ref().err().map(String::as_str),
                }
            })
            .collect(),
    };
    super::export::pretty(&doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_naturally() {
        for (seconds, text) in [
            (38.2, "38 s"),
            (270.0, "4.5 min"),
            (2520.0, "42 min"),
            (3.0 * 3600.0 + 300.0, "3 h 05 min"),
        ] {
            assert_eq!(human_duration(seconds), text);
        }
    }
}
