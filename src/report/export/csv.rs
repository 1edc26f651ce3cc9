//! `destbench export --format csv`: one row per run, test and variant, for spreadsheets. The
//! repetitions' figures are in one `samples` cell, separated by spaces, so the row count stays
//! one per result whatever `--runs` was.

use crate::history::RunRecord;
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
    let mut out = csv::Writer::from_writer(Vec::new());
    let written = out.write_record(HEADER).and_then(|()| {
        records
            .iter()
            .flat_map(|record| record.run.results.iter().map(move |r| row(record, r)))
            .try_for_each(|cells| out.write_record(&cells))
    });
    // Writing into memory fails only on a bug (a row of another width), never on input.
    let bytes = written
        .and_then(|()| out.into_inner().map_err(|e| e.into_error().into()))
        .expect("a CSV written into memory");
    String::from_utf8(bytes).expect("CSV of UTF-8 cells is UTF-8")
}

fn row(record: &RunRecord, r: &crate::results::TestResult) -> [String; HEADER.len()] {
    let run = &record.run;
    let lat = r.latency_us;
    [
        CSV_SCHEMA.to_string(),
        record.id.to_string(),
        run.settings.label.clone().unwrap_or_default(),
        run.destination.path.display().to_string(),
        run.started_unix_s.to_string(),
        r.test.as_str().to_string(),
        r.variant.clone(),
        r.unit.as_str().to_string(),
        number(r.median),
        number(r.min),
        number(r.max),
        number(r.mean),
        number(r.cv),
        number(r.ops_per_s_median),
        r.op_kind.as_str().to_string(),
        threads(r.threads),
        lat.map(|l| number(l.p50)).unwrap_or_default(),
        lat.map(|l| number(l.p99)).unwrap_or_default(),
        lat.map(|l| number(l.p999)).unwrap_or_default(),
        r.method.as_str().to_string(),
        r.engine.name().to_string(),
        r.samples
            .iter()
            .map(|s| number(*s))
            .collect::<Vec<_>>()
            .join(" "),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::tests::{record, result};

    #[test]
    fn a_label_with_separators_quotes_and_lines_reads_back_as_one_cell() {
        let label = "usb, \"the slow one\"\nsecond line";
        let runs = [record(
            7,
            label,
            serde_json::json!([result("seq-write", "SEQ1M-Q1T1", &[30.0, 31.5])]),
        )];
        let text = Csv.serialize(&runs);
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        assert_eq!(reader.headers().unwrap().len(), HEADER.len());
        let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(rows.len(), 1, "{text}");
        assert_eq!((&rows[0][1], &rows[0][2]), ("7", label));
        assert_eq!(&rows[0][21], "30 31.5");
    }
}
