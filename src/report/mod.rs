//! Renders the run document: the terminal report, JSON, the progress bar, and the exports of
//! stored runs (JSON, CSV and fio jobs, each an [`export::Exporter`]; Markdown and HTML with
//! charts, from the comparison the history computes before them). Renderers only format what
//! `results` and the history's comparison hold; they compute nothing of their own.
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
mod share;
pub mod table;
pub mod terminal;
mod warnings;

pub use terminal::progress::{ProgressReader, ProgressView, TerminalProgress};
