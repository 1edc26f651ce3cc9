//! JSON: the run document of `run --json` (schema `destbench.run/2`, documented in docs/json.md,
//! the serialisation of [`RunDocument`]), and the export of stored runs.

use serde::Serialize;

use crate::history::{Environment, RunRecord};
use crate::report::export::Exporter;
use crate::report::export::{EXPORT_SCHEMA, runs as documented_runs};
use crate::results::RunDocument;

/// The run document, pretty-printed, with a trailing newline.
pub fn render(report: &RunDocument) -> String {
    report.to_json()
}

/// `export --format json` and `show --json`: a list of stored runs, each with its id, where it
/// ran, and its run document exactly as stored.
pub struct Json;

#[derive(Serialize)]
struct StoredRun<'a> {
    id: i64,
    stored_unix_s: i64,
    environment: &'a Environment,
    /// The `destbench.run/2` document exactly as stored.
    run: &'a serde_json::Value,
}

impl Exporter for Json {
    fn serialize(&self, runs: &[RunRecord]) -> String {
        let runs: Vec<StoredRun<'_>> = runs
            .iter()
            .map(|r| StoredRun {
                id: r.id,
                stored_unix_s: r.stored_unix_s,
                environment: &r.environment,
                run: &r.document,
            })
            .collect();
        documented_runs(EXPORT_SCHEMA, &runs)
    }
}
