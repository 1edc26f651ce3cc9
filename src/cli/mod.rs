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
pub use run::{EngineArg, RunArgs};
pub use ui::UiArgs;

use crate::probe::DeclaredLink;

#[derive(Debug, Parser)]
#[command(
    name = "destbench",
    version = crate::VERSION,
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
    #[arg(long)]
    pub link_speed: Option<DeclaredLink>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::ByteSize;
    use crate::workload::{Profile, ProfileName, SetKind, TestId};
    use clap::CommandFactory;

    fn parse(args: &[&str]) -> std::result::Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("destbench").chain(args.iter().copied()))
    }

    /// The help is written from the tables the code runs: nothing in them can be missing.
    #[test]
    fn run_help_lists_every_test_profile_and_set() {
        // Unwrapped (the help wraps to the terminal), so that each entry is on one line.
        let cli = Cli::command();
        let mut run = cli.find_subcommand("run").unwrap().clone().term_width(0);
        let long = run.render_long_help().to_string();
        let short = run.render_help().to_string();
        for test in TestId::ALL {
            assert!(long.contains(test.about()), "{test} missing from --help");
            assert!(short.contains(test.as_str()), "{test} missing from -h");
        }
        for profile in ProfileName::ALL {
            assert!(
                long.contains(&format!(
                    "{:<7} about {} s, {}-{} runs",
                    profile.to_string(),
                    Profile::get(profile).budget.as_secs(),
                    Profile::get(profile).min_runs,
                    Profile::get(profile).max_runs
                )),
                "{profile} not in --help"
            );
            assert!(short.contains(&profile.to_string()));
        }
        for set in SetKind::ALL {
            assert!(long.contains(&format!("{:<7} files of", set.as_str())));
            assert!(short.contains(set.as_str()));
        }
    }

    #[test]
    fn color_is_global_and_auto_by_default() {
        assert_eq!(parse(&["list"]).unwrap().color, ColorChoice::Auto);
        assert_eq!(
            parse(&["--color", "never", "list"]).unwrap().color,
            ColorChoice::Never
        );
        assert_eq!(
            parse(&["history", "--color", "always"]).unwrap().color,
            ColorChoice::Always
        );
    }

    #[test]
    fn run_defaults() {
        let Command::Run(run) = parse(&["run"]).unwrap().command else {
            panic!("not run")
        };
        assert_eq!(run.profile, None);
        assert_eq!(run.engine, EngineArg::Auto);
        assert!(run.path.is_none() && run.tests.is_empty() && !run.json);
    }

    #[test]
    fn run_every_flag() {
        let Command::Run(run) = parse(&[
            "run",
            "/mnt",
            "--profile",
            "quick",
            "--tests",
            "seq-read,tm-check:50MB",
            "--size",
            "1GiB",
            "--runs",
            "4",
            "--engine",
            "uring",
            "--json",
            "--label",
            "usb",
            "--duration",
            "1.5",
            "--buffered",
            "--no-drop-caches",
            "--seed",
            "9",
        ])
        .unwrap()
        .command
        else {
            panic!("not run")
        };
        assert_eq!(run.path, Some(PathBuf::from("/mnt")));
        assert_eq!(run.profile.as_deref(), Some("quick"));
        assert_eq!(run.tests.len(), 2);
        assert_eq!(run.size, Some(ByteSize(1 << 30)));
        assert_eq!(
            (run.runs, run.duration, run.seed),
            (Some(4), Some(1.5), Some(9))
        );
        assert_eq!(run.engine, EngineArg::Uring);
        assert!(run.json && run.buffered && run.no_drop_caches);
        assert_eq!(run.label.as_deref(), Some("usb"));
    }

    #[test]
    fn info_and_link_speed() {
        let Command::Info(info) = parse(&["info", "/mnt", "--json", "--link-speed", "1gbit"])
            .unwrap()
            .command
        else {
            panic!("not info")
        };
        assert_eq!(info.path, PathBuf::from("/mnt"));
        assert!(info.json);
        assert_eq!(info.link_speed.unwrap().mbit_s, 1000.0);
        assert!(parse(&["info"]).is_err(), "PATH is required");
        assert!(parse(&["run", "--link-speed", "fast"]).is_err());
    }

    #[test]
    fn malformed_values_are_rejected() {
        assert!(parse(&["run", "--size", "lots"]).is_err());
        assert!(parse(&["run", "--tests", "seq-sideways"]).is_err());
        assert!(parse(&["run", "--engine", "aio"]).is_err());
        assert!(parse(&["run", "--runs", "-1"]).is_err());
        let both = parse(&["run", "--verify", "--no-verify"]).unwrap_err();
        assert_eq!(both.kind(), clap::error::ErrorKind::ArgumentConflict);
        assert!(parse(&["run", "--no-verify", "--verify"]).is_err());
    }
}
