//! JSON for the history commands: `history --json` (a list of runs, each with its `id`),
//! `export --format json` (whole stored runs) and `compare --json` (the comparison model).

use serde::Serialize;

use crate::history::{Comparison, Environment, HistoryEntry, RunRecord};

fn pretty(value: &impl Serialize) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("history values serialise");
    text.push('\n');
    text
}

/// `destbench history --json`.
pub fn list(entries: &[HistoryEntry]) -> String {
    pretty(&entries)
}

#[derive(Serialize)]
struct StoredRun<'a> {
    id: i64,
    stored_unix_s: i64,
    environment: &'a Environment,
    /// The `destbench.run/1` document exactly as stored.
    run: &'a serde_json::Value,
}

/// `destbench export --format json`: a list of stored runs.
pub fn records(records: &[RunRecord]) -> String {
    let runs: Vec<StoredRun<'_>> = records
        .iter()
        .map(|r| StoredRun {
            id: r.id,
            stored_unix_s: r.stored_unix_s,
            environment: &r.environment,
            run: &r.document,
        })
        .collect();
    pretty(&runs)
}

/// `destbench compare --json`.
pub fn comparison(cmp: &Comparison) -> String {
    pretty(cmp)
}
