//! The destbench binary: turns the library's result into an exit code and prints the error once.

use std::process::ExitCode;

fn main() -> ExitCode {
    match destbench::main(std::env::args_os()) {
        Ok(code) => code,
        Err(err) => {
            // Under MPI only rank 0 speaks for the run; the other ranks just exit.
            if !matches!(err, destbench::Error::ReportedByRankZero(_)) {
                eprintln!("destbench: {err}");
            }
            ExitCode::from(err.exit_code())
        }
    }
}
