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

/// The main page, or `subcommand`'s (named destbench-SUBCOMMAND, as the main page refers to it).
pub fn man(subcommand: Option<&str>) -> Result<String> {
    let mut cli = Cli::command();
    cli.build();
    let page = match subcommand {
        None => cli,
        Some(name) => {
            let known: Vec<String> = cli
                .get_subcommands()
                .map(|s| s.get_name().to_string())
                .collect();
            let sub = cli.find_subcommand(name).ok_or_else(|| {
                Error::Usage(format!(
                    "man: no subcommand '{name}' (known: {})",
                    known.join(", ")
                ))
            })?;
            // Built, its display name is destbench-NAME, the title of its page.
            sub.clone()
        }
    };
    let mut out = Vec::new();
    clap_mangen::Man::new(page)
        .render(&mut out)
        .map_err(|e| Error::io("rendering the man page", e))?;
    String::from_utf8(out).map_err(|e| Error::Usage(format!("man page: {e}")))
}
