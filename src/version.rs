//! The version a bug report can quote: a module of its own at the bottom of the layers, so the
//! run document, the history, the scratch's marker and the command line all take it from below.

/// `0.2.0 (3f2c1ab 2026-11-30) x86_64-unknown-linux-musl, io_uring` (built by build.rs);
/// `destbench --version` and every run document carry it.
pub const VERSION: &str = env!("DESTBENCH_VERSION");
