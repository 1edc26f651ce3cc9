//! destbench's integration tests, built into one test binary.

mod chain;
mod cli_ux;
mod estimate;
mod faults;
mod faults_history;
mod fio_interop;
mod headline;
mod history;
mod html_report;
#[cfg(feature = "mpi")]
mod mpi;
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
