//! destbench's integration tests, built into one test binary. The long ones are `#[ignore]`d,
//! and `.ci/run` runs them: the figures held against an emulated device of known speed (`cargo
//! test -- --ignored --skip lab::`) and the lab's qemu guests, which run alone (`cargo test
//! --test integration lab:: -- --ignored`).
//!
//! Modules that make FIFOs, device nodes, Unix permissions or signals are Unix's (`cfg(unix)`);
//! the rest also builds for Windows and runs under wine (`.ci/run`, `scripts/wine/run`). The
//! fault matrix (fanotify, inotify) and the testbed's own checks (O_DIRECT) are Linux's; the
//! testbed's tests skip on other systems, saying why (root and Linux's loop, nbd and dm).
#[cfg(unix)]
mod answer;
mod chain;
mod cli_ux;
#[cfg(unix)]
mod estimate;
#[cfg(unix)]
mod estimate_tools;
mod eta;
#[cfg(target_os = "linux")]
mod faults;
#[cfg(unix)]
mod faults_history;
mod fio_interop;
mod headline;
#[cfg(unix)]
mod health;
mod history;
mod html_report;
mod lab;
#[cfg(feature = "mpi")]
mod mpi;
#[cfg(target_os = "linux")]
mod precision_coverage;
#[cfg(unix)]
mod run_files;
mod run_input;
mod run_null;
mod run_real;
#[cfg(unix)]
mod run_signals;
mod run_testbed;
mod support;
mod sustained;
mod testbed;
#[cfg(target_os = "linux")]
mod testbed_checks;
#[cfg(unix)]
mod tm_fidelity;
#[cfg(unix)]
mod ui;
#[cfg(unix)]
mod ui_answer;
#[cfg(unix)]
mod ui_browser;
