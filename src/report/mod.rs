//! Renders results: the terminal table, JSON, the progress bar, and the history's exports (CSV,
//! Markdown, HTML with charts). Renderers only format what
//! `results` holds; they compute nothing of their own.

pub mod chain;
mod charts;
pub mod csv;
mod details;
pub mod estimate;
pub mod export;
pub mod history;
pub mod html;
pub mod json;
pub mod markdown;
mod progress;
pub mod terminal;

pub use progress::TerminalProgress;
