//! JSON of the history commands that are not exports of whole runs: `history --json` (a list of
//! runs, each with its `id`) and `compare --json` (the comparison model).

pub mod csv;
pub mod fio;
pub mod json;
pub mod markdown;

use serde::Serialize;

use crate::history::{Comparison, HistoryEntry, RunRecord};

/// A format stored runs are exported to (`export --format json`, `csv`, `md` and `fio`, `show
/// --json`); one that compares them (Markdown) is made with their comparison, computed before.
pub trait Exporter {
    /// The whole export of `runs`, in their order (the first is the baseline of comparisons).
    fn serialize(&self, runs: &[RunRecord]) -> String;
}

/// A JSON document, pretty-printed, with a trailing newline.
pub(crate) fn pretty(value: &impl Serialize) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("destbench's values serialise");
    text.push('\n');
    text
}

/// The schema of `history --json`.
pub const HISTORY_SCHEMA: &str = "destbench.history/1";
/// The schema of `compare --json`.
pub const COMPARE_SCHEMA: &str = "destbench.compare/1";
/// The schema of `export --format json` and `show --json`.
pub const EXPORT_SCHEMA: &str = "destbench.export/1";

/// Every machine-readable document names its schema first, so that a reader can tell the
/// document and its version before reading the rest (docs/json.md).
#[derive(Serialize)]
pub(crate) struct Schema<'a, T: Serialize> {
    pub schema: &'static str,
    #[serde(flatten)]
    pub body: &'a T,
}

#[derive(Serialize)]
struct Runs<'a, T: Serialize> {
    runs: &'a T,
}

/// `{"schema": ..., "runs": [...]}`.
pub(crate) fn runs(schema: &'static str, runs: &impl Serialize) -> String {
    pretty(&Schema {
        schema,
        body: &Runs { runs },
    })
}

/// `destbench history --json`.
pub fn list(entries: &[HistoryEntry]) -> String {
    runs(HISTORY_SCHEMA, &entries)
}

/// `destbench compare --json`.
pub fn comparison(cmp: &Comparison) -> String {
    pretty(&Schema {
        schema: COMPARE_SCHEMA,
        body: cmp,
    })
}
