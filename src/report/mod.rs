//! Renders the run document: the terminal report, JSON, the progress bar, and the exports of
//! stored runs (JSON, CSV, Markdown, HTML with charts), each an [`Exporter`]. Renderers only
//! format what `results` and the history's comparison hold; they compute nothing of their own.
//! Every table goes through one model, [`table::Table`].

mod answer;
pub mod chain;
mod charts;
pub mod clients;
pub mod csv;
mod details;
mod diagram;
pub mod escape;
pub mod estimate;
mod estimate_command;
pub mod export;
mod figures;
pub mod fio;
mod headline;

pub mod history;
pub mod html;
pub mod json;
pub mod markdown;
mod progress;
mod results_table;
mod summary;
pub mod table;
pub mod terminal;
pub mod tiles;
mod warnings;

pub use progress::{ProgressReader, ProgressView, TerminalProgress};

use crate::history::RunRecord;

/// A format stored runs are exported to (`export --format`, `report --html`).
pub trait Exporter {
    /// The whole export of `runs`, in their order (the first is the baseline of comparisons).
    fn serialize(&self, runs: &[RunRecord]) -> String;
}
