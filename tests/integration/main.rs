//! destbench's integration tests, built into one test binary.

mod chain;
mod cli_ux;
mod estimate;
mod history;
mod html_report;
mod run_files;
mod run_input;
mod run_null;
mod run_real;
mod run_signals;
mod run_testbed;
mod support;
mod sustained;
mod testbed;
mod testbed_checks;
