//! destbench: benchmarks backup destinations the way backups use them.
//!
//! Data flows one way: `settings` -> `workload` -> `runner` (through an `engine`) -> `results`
//! (summarised by `stats`) -> `report`.

mod answer;
mod cli;
mod cluster;
mod commands;
mod engine;
mod error;
mod estimate;
mod history;
mod interrupt;
mod platform;
mod probe;
mod report;
mod results;
mod runner;
mod scratch;
mod settings;
mod stats;
mod tree;
mod units;
mod verdict;
mod version;
mod workload;

// The surface: what the binary (src/main.rs) and the integration tests (tests/integration/)
// use, and nothing else. Inside, `pub` means visible to the crate (the modules are private), so
// the compiler's dead-code analysis sees every item nothing uses (docs/architecture.md says why
// one crate with a narrow surface rather than a crate per layer).
pub use commands::main;
pub use error::Error;
// The runner as a library, with every ETA it hands the display (tests/integration/eta.rs).
pub use engine::{EngineChoice, NullTiming};
pub use results::{RunDocument, WarningKind};
pub use runner::{Eta, Progress, run};
pub use settings::{Given, RunOptions};
pub use units::ByteSize;
pub use workload::TestSelector;
// The tests' helpers: the history's schema and identity, the report's dates, a median, and
// the system calls std lacks.
pub use history::{Filesystem, latest_schema_version, with_filesystem};
pub use platform::{is_root, symlink};
pub use report::dates::utc;
pub use stats::median;

pub use version::VERSION;
