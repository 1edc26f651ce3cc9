//! destbench: benchmarks backup destinations the way backups use them.
//!
//! Data flows one way: `settings` -> `workload` -> `runner` (through an `engine`) -> `results`
//! (summarised by `stats`) -> `report`.

pub mod answer;
pub mod cli;
pub mod cluster;
pub mod commands;
pub mod engine;
pub mod error;
pub mod estimate;
pub mod history;
pub mod interrupt;
pub mod platform;
pub mod probe;
pub mod report;
pub mod results;
pub mod runner;
pub mod scratch;
pub mod settings;
pub mod stats;
pub mod tree;
pub mod units;
pub mod verdict;
pub mod workload;

/// The version a bug report can quote: `0.2.0 (3f2c1ab 2026-11-30) x86_64-unknown-linux-musl,
/// io_uring` (built by build.rs); `destbench --version` and every run document carry it.
pub const VERSION: &str = env!("DESTBENCH_VERSION");
