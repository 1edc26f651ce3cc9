//! `destbench export --format csv`: one row per run, test and variant, for spreadsheets. The
//! repetitions' figures are in one `samples` cell, separated by spaces, so the row count stays
//! one per result whatever `--runs` was.

use std::fmt::Write as _;

use crate::history::RunRecord;
use crate::report::escape::csv_field;
use crate::report::export::Exporter;

/// The schema of the CSV export, in its first column (CSV has no place for a header comment).
pub const CSV_SCHEMA: &str = "destbench.csv/1";

const HEADER: &[&str] = &[
    "schema",
    "run_id",
    "label",
    "destination",
    "started_unix_s",
    "test",
    "variant",
    "unit",
    "median",
    "min",
    "max",
    "mean",
    "cv",
    "ops_per_s_median",
    "op_kind",
    "threads",
    "p50_us",
    "p99_us",
    "p999_us",
    "method",
    "engine",
    "samples",
];

/// Documents that do not record threads read as 0: an empty cell, as before.
fn threads(threads: usize) -> String {
    if threads > 0 {
        threads.to_string()
    } else {
        String::new()
    }
}

/// Full precision: a CSV is for further computation, not for reading.
fn number(value: f64) -> String {
    value.to_string()
}

/// `export --format csv`.
pub struct Csv;

impl Exporter for Csv {
    fn serialize(&self, runs: &[RunRecord]) -> String {
        render(runs)
    }
}

fn render(records: &[RunRecord]) -> String {
    let mut out = HEADER.join(",");
    out.push('\n');
    for record in records {
        let run = &record.run;
        for r in &run.results {
            let lat = r.latency_us;
            let cells = [
                CSV_SCHEMA.to_string(),
                record.id.to_string(),
                csv_field(run.settings.label.as_deref().unwrap_or("")),
                csv_field(&run.destination.path.display().to_string()),
                run.started_unix_s.to_string(),
                csv_field(r.test.as_str()),
                csv_field(&r.variant),
                csv_field(r.unit.as_str()),
                number(r.median),
                number(r.min),
                number(r.max),
                number(r.mean),
                number(r.cv),
                number(r.ops_per_s_median),
                csv_field(r.op_kind.as_str()),
                threads(r.threads),
                lat.map(|l| number(l.p50)).unwrap_or_default(),
                lat.map(|l| number(l.p99)).unwrap_or_default(),
                lat.map(|l| number(l.p999)).unwrap_or_default(),
                csv_field(r.method.as_str()),
                csv_field(r.engine.name()),
                r.samples
                    .iter()
                    .map(|s| number(*s))
                    .collect::<Vec<_>>()
                    .join(" "),
            ];
            let _ = writeln!(out, "{}", cells.join(","));
        }
    }
    out
}
