//! JSON of the history commands that are not exports of whole runs: `history --json` (a list of
//! runs, each with its `id`) and `compare --json` (the comparison model).

use serde::Serialize;

use crate::history::{Comparison, HistoryEntry};

/// A JSON document, pretty-printed, with a trailing newline.
pub(crate) fn pretty(value: &impl Serialize) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("destbench's values serialise");
    text.push('\n');
    text
}

/// `destbench history --json`.
pub fn list(entries: &[HistoryEntry]) -> String {
    pretty(&entries)
}

/// `destbench compare --json`.
pub fn comparison(cmp: &Comparison) -> String {
    pretty(cmp)
}
