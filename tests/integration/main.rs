//! destbench's integration tests, built into one test binary. The long ones are `#[ignore]`d,
//! and `.ci/run` runs them: the figures held against an emulated device of known speed (`cargo
//! test -- --ignored --skip lab::`) and the lab's qemu guests, which run alone (`cargo test
//! --test integration lab:: -- --ignored`).
mod chain;
mod cli_ux;
mod estimate;
mod eta;
mod faults;
mod faults_history;
mod fio_interop;
mod headline;
mod history;
mod html_report;
mod lab;
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
