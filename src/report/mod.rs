//! Renders results: the terminal table, JSON, and the progress bar. Renderers only format what
//! `results` holds; they compute nothing of their own.

pub mod chain;
pub mod json;
mod progress;
pub mod terminal;

pub use progress::TerminalProgress;
