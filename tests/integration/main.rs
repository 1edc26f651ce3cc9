//! destbench's integration tests, built into one test binary.

mod support;
mod testbed;
mod testbed_checks;
