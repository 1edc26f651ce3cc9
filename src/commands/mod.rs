//! What each command does: one file per command, each a thin function from the typed arguments
//! of `cli` to the library (settings, runner, history, report). This is the top of the crate:
//! nothing below imports it.

mod clean;
mod compare;
mod config;
mod db;
mod estimate;
mod export;
mod history;
mod import_fio;
mod info;
mod list;
#[cfg(feature = "mpi")]
mod ranks;
mod report;
mod run;
mod shell;
#[cfg(test)]
mod tests;
mod ui;

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::error::{EXIT_USAGE, Error, Result};
use crate::runner::{NoProgress, Progress};

/// Parses `args` and runs the command. Usage errors from clap are printed whole, as clap
/// renders them: the list of missing arguments, the "did you mean" tip and the usage line are
/// what a user needs to fix the command; errors of destbench's own stay one line (`src/main.rs`).
pub fn main(args: impl IntoIterator<Item = OsString>) -> Result<ExitCode> {
    let args: Vec<OsString> = args.into_iter().collect();
    // On Windows destbench also starts the programs it confines, at low integrity.
    #[cfg(windows)]
    if let Some(code) = crate::platform::confine::low_integrity_child(&args) {
        // All 32 bits of the program's exit code: ExitCode keeps 8.
        std::process::exit(code);
    }
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version on stdout.
            let _ = e.print();
            return Ok(ExitCode::SUCCESS);
        }
        Err(e) => {
            // Whole, as clap renders it (the usage of a bare `destbench` included), with the
            // first line in destbench's own form so that every error starts the same way.
            let text = e.render().to_string();
            let text = text.strip_prefix("error: ").unwrap_or(&text);
            eprint!("destbench: {text}");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    anstream::ColorChoice::write_global(match cli.color {
        clap::ColorChoice::Auto => anstream::ColorChoice::Auto,
        clap::ColorChoice::Always => anstream::ColorChoice::Always,
        clap::ColorChoice::Never => anstream::ColorChoice::Never,
    });
    match cli.command {
        // Under an MPI launcher every rank runs rank 0's command line (src/commands/ranks.rs).
        #[cfg(feature = "mpi")]
        Command::Run(_) if crate::cluster::launcher().is_some() => ranks::run(),
        Command::Run(args) => run::run(&args),
        Command::Estimate(args) => estimate::estimate(&args),
        Command::List => print(list::list()),
        Command::Info(args) => print(info::info(&args)),
        Command::History(args) => print(history::history(&args)),
        Command::Show(args) => print(history::show(&args)),
        Command::Forget(args) => print(history::forget(&args)),
        Command::Compare(args) => print(compare::compare(&args)),
        Command::Export(args) => print(export::export(&args)),
        Command::Report(args) => print(report::html_report(&args)),
        Command::ImportFio(args) => print(import_fio::import_fio(&args)),
        Command::Clean(args) => print(clean::clean(&args)),
        Command::Completions(args) => print(shell::completions(args.shell)),
        Command::Man(args) => print(shell::man(args.subcommand.as_deref())),
        Command::Ui(args) => ui::ui(&args),
    }
}

/// Prints a command's output.
fn print(output: Result<String>) -> Result<ExitCode> {
    write_stdout(&output?)?;
    Ok(ExitCode::SUCCESS)
}

/// Writes to stdout; a closed pipe (`destbench run | head`) is not an error.
fn write_stdout(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Error::io("writing to stdout", e))
        }
        _ => Ok(()),
    }
}

/// The progress bar on a terminal, nothing otherwise.
fn progress() -> Box<dyn Progress> {
    if std::io::stderr().is_terminal() {
        Box::new(crate::report::TerminalProgress::new())
    } else {
        Box::new(NoProgress)
    }
}
