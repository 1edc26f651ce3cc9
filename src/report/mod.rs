//! Renders the run document: the terminal report, JSON, the progress bar, and the exports of
//! stored runs (JSON, CSV, Markdown, HTML with charts), each an [`Exporter`]. Renderers only
//! format what `results` and the history's comparison hold; they compute nothing of their own.
//! Every table goes through one model, [`table::Table`].

mod answer;
pub mod chain;
pub mod clients;
pub mod dates;
pub mod escape;
pub mod estimate;
pub mod export;
mod headline;
pub mod html;
pub mod table;
pub mod terminal;
mod warnings;

pub use export::Exporter;
pub use terminal::progress::{ProgressReader, ProgressView, TerminalProgress};
