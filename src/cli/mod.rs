//! The command line's shape, and nothing else: clap-derive structs that describe argv, each flag
//! declared once with its help and default. Validation lives in `settings`, behaviour in
//! `commands`; lists in the help (tests, profiles, sets) are generated from the tables in
//! `workload`, so they cannot fall behind the code.

mod estimate;
mod history;
mod run;
mod ui;

use std::path::PathBuf;

use clap::{ColorChoice, Parser, Subcommand};

pub use estimate::EstimateArgs;
pub use history::{
    CompareArgs, DbArg, ExportArgs, ExportFormat, ForgetArgs, HistoryArgs, ImportFioArgs,
    ReportArgs, RunId, ShowArgs,
};
pub use run::RunArgs;
pub use ui::UiArgs;

use crate::probe::DeclaredLink;

#[derive(Debug, Parser)]
#[command(
    name = "destbench",
    version = crate::version::VERSION,
    about = "Benchmarks backup destinations the way backups use them",
    propagate_version = true,
    arg_required_else_help = true,
    // `--color` is global: it is given after the command as well as before it.
    override_usage = "destbench <COMMAND>"
)]
pub struct Cli {
    /// When to colour the output: auto (on a terminal, unless NO_COLOR is set), always, never.
    #[arg(long, global = true, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the benchmark suite on a destination directory.
    Run(Box<RunArgs>),
    /// List the tests and their variants.
    List,
    /// The stored runs, newest first.
    History(HistoryArgs),
    /// One stored run in full.
    Show(ShowArgs),
    /// Stored runs side by side: ratios against the first, and whether each difference is real.
    Compare(CompareArgs),
    /// Stored runs as JSON, CSV or Markdown.
    Export(ExportArgs),
    /// One self-contained HTML file with tables and charts of stored runs.
    Report(ReportArgs),
    /// Remove a stored run.
    Forget(ForgetArgs),
    /// Store an fio JSON result (`fio --output-format=json`) as a run, to compare with
    /// destbench's (`export --format fio` writes the matching job file).
    ImportFio(ImportFioArgs),
    /// Show the chain from PATH to the wire: mount, block devices, buses, network, and the
    /// bandwidth of each link.
    Info(InfoArgs),
    /// How long a first full backup of SOURCE will take on a destination, from its measured
    /// per-file cost and bandwidth.
    Estimate(Box<EstimateArgs>),
    /// Remove the leftovers of destbench runs that were killed (SIGKILL, a power cut, a share
    /// that dropped): their scratch directories and generated file sets. Only directories with
    /// destbench's marker, made on this host by a process that is gone, are touched.
    Clean(CleanArgs),
    /// Print a shell completion script: `source <(destbench completions bash)`.
    Completions(CompletionsArgs),
    /// Print the man page (roff): `destbench man | man -l -`; `destbench man run` for a
    /// subcommand's page, with all its options.
    Man(ManArgs),
    /// Serve a page on 127.0.0.1 to pick a destination, run, and read the results in a browser.
    Ui(UiArgs),
}

#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// A subcommand whose page to print (destbench-run(1)); the main page without.
    pub subcommand: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, clap::Args)]
pub struct CleanArgs {
    /// Where to look: destinations of earlier runs, --source-dir folders (default: the system's
    /// temp directory, where generated file sets are made).
    pub paths: Vec<PathBuf>,

    /// Only list what would be removed.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, clap::Args)]
pub struct InfoArgs {
    /// A file or directory on the destination.
    pub path: PathBuf,

    /// Print one JSON document (schema destbench.chain/2) instead of the tree.
    #[arg(short, long)]
    pub json: bool,

    /// Declare the speed of a link the system cannot report (a shaped or virtual network
    /// link), e.g. 100mbit, 1gbit; shown as declared, never as read.
    #[arg(long = crate::settings::defs::LINK_SPEED.long)]
    pub link_speed: Option<DeclaredLink>,
}

#[cfg(test)]
mod tests;
