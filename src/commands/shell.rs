//! `destbench completions SHELL` and `destbench man`: both generated from the same clap
//! definition that parses the command line, so they list every subcommand, flag and value
//! (test ids, profiles) the code accepts.

use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::Cli;
use crate::error::{Error, Result};

pub fn completions(shell: Shell) -> Result<String> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "destbench", &mut out);
    String::from_utf8(out).map_err(|e| Error::Usage(format!("completion script: {e}")))
}

pub fn man() -> Result<String> {
    let mut out = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut out)
        .map_err(|e| Error::io("rendering the man page", e))?;
    String::from_utf8(out).map_err(|e| Error::Usage(format!("man page: {e}")))
}
