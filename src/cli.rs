//! The command line's shape (clap), and dispatch to the commands. Validation lives in `settings`.

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::error::{EXIT_USAGE, Error, Result};
use crate::history_cli::{
    self, CompareArgs, DbArg, ExportArgs, ForgetArgs, HistoryArgs, ReportArgs, ShowArgs,
};
use crate::probe::{self, DeclaredLink};
use crate::report;
use crate::runner::{self, NoProgress, Progress};
use crate::settings;
use crate::units::ByteSize;
use crate::workload::{self, ProfileName, SetKind, TestSelector};

#[derive(Debug, Parser)]
#[command(
    name = "destbench",
    version,
    about = "Benchmarks backup destinations the way backups use them",
    propagate_version = true
)]
pub struct Cli {
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
    /// Show the chain from PATH to the wire: mount, block devices, buses, network, and the
    /// bandwidth of each link.
    Info(InfoArgs),
    /// How long a first full backup of SOURCE will take on a destination, from its measured
    /// per-file cost and bandwidth.
    Estimate(Box<crate::estimate_cli::EstimateArgs>),
}

#[derive(Debug, clap::Args)]
pub struct InfoArgs {
    /// A file or directory on the destination.
    pub path: PathBuf,

    /// Print one JSON document (schema destbench.chain/1) instead of the tree.
    #[arg(long)]
    pub json: bool,

    /// Declare the speed of a link the system cannot report (a shaped or virtual network
    /// link), e.g. 100mbit, 1gbit; shown as declared, never as read.
    #[arg(long)]
    pub link_speed: Option<DeclaredLink>,
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The destination directory (a scratch directory is made inside it and removed after).
    pub path: Option<PathBuf>,

    /// How long and how often: quick (~15 s), backup (default, ≤ 2 min on an SSD), full.
    #[arg(long, default_value = "backup", value_parser = parse_profile)]
    pub profile: ProfileName,

    /// Tests to run, comma-separated: seq-write, seq-read, 4k-write, 4k-read, tm-check; a single
    /// variant as test:variant (seq-read:SEQ1M-Q8T1).
    #[arg(long, value_delimiter = ',')]
    pub tests: Vec<TestSelector>,

    /// Size of the block tests' file, and the most the sustained test writes (4k, 50MB, 1GiB:
    /// k/M/G binary, kB/MB/GB decimal).
    #[arg(long)]
    pub size: Option<ByteSize>,

    /// Repetitions of every test (default from the profile).
    #[arg(long)]
    pub runs: Option<usize>,

    /// Seconds each block-test repetition runs (default from the profile).
    #[arg(long, allow_negative_numbers = true)]
    pub duration: Option<f64>,

    /// The longest the sustained test writes, in seconds (default from the profile; it stops
    /// earlier once the rate is steady, or at --size / the free space).
    #[arg(long, allow_negative_numbers = true)]
    pub time: Option<f64>,

    /// I/O engine: auto (sync at queue depth 1, io_uring above), sync, uring.
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,

    /// Print one JSON document (schema destbench.run/1) on stdout instead of the table.
    #[arg(long)]
    pub json: bool,

    /// A label stored with the results.
    #[arg(long)]
    pub label: Option<String>,

    /// Never use O_DIRECT: buffered I/O with fdatasync and verified eviction.
    #[arg(long)]
    pub buffered: bool,

    /// Never drop the machine's page cache, even as root when per-file eviction fails.
    #[arg(long)]
    pub no_drop_caches: bool,

    /// Copy-thread counts of the file-set tests, comma-separated (default from the profile, e.g.
    /// 1,2,3,4 in full).
    #[arg(long, value_delimiter = ',')]
    pub threads: Vec<usize>,

    /// Generated file sets to use, comma-separated: small, medium, large, mixed.
    #[arg(long, value_delimiter = ',')]
    pub sets: Vec<SetKind>,

    /// Total size of each generated file set (default from the profile).
    #[arg(long)]
    pub set_size: Option<ByteSize>,

    /// At most this many files in each generated set.
    #[arg(long)]
    pub files: Option<u64>,

    /// Use this folder as the file set instead of generated ones (read-only: nothing in it is
    /// ever written, renamed or deleted).
    #[arg(long)]
    pub source: Option<PathBuf>,

    /// Where generated file sets are made (default: the system's temp directory; choose a fast
    /// local disk).
    #[arg(long)]
    pub source_dir: Option<PathBuf>,

    /// Verify restored files against the source with blake3 (default: on in backup and full).
    #[arg(long, overrides_with = "no_verify")]
    pub verify: bool,

    /// Do not verify restored files.
    #[arg(long)]
    pub no_verify: bool,

    /// Skip the free-space check (for filesystems that misreport free space); a destination
    /// that fills up still fails the test that hit it, cleanly.
    #[arg(long)]
    pub no_space_check: bool,

    /// Seed for the random data and offsets (default: random; recorded in the results).
    #[arg(long)]
    pub seed: Option<u64>,

    /// Declare the speed of a link the system cannot report (e.g. 100mbit) for the verdict;
    /// shown as declared, never as read.
    #[arg(long)]
    pub link_speed: Option<DeclaredLink>,
    /// Do not store this run in the history database.
    #[arg(long)]
    pub no_history: bool,

    #[command(flatten)]
    pub history_db: DbArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    Auto,
    Sync,
    Uring,
    /// No I/O, fixed latencies: for testing destbench itself.
    #[value(hide = true)]
    Null,
}

impl EngineArg {
    pub fn name(self) -> &'static str {
        match self {
            EngineArg::Auto => "auto",
            EngineArg::Sync => "sync",
            EngineArg::Uring => "uring",
            EngineArg::Null => "null",
        }
    }
}

fn parse_profile(s: &str) -> std::result::Result<ProfileName, String> {
    s.parse()
}

/// Parses `args` and runs the command. Usage errors from clap are printed as one line.
pub fn main(args: impl IntoIterator<Item = OsString>) -> Result<ExitCode> {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version
            let _ = e.print();
            return Ok(ExitCode::SUCCESS);
        }
        Err(e) => {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("invalid command line");
            let first = first.strip_prefix("error: ").unwrap_or(first);
            eprintln!("destbench: {first} (see destbench --help)");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    match cli.command {
        Command::Run(args) => run(&args),
        Command::List => {
            let profile = workload::Profile::get(ProfileName::Full);
            let options = settings::suite_options(&profile, &[], &[], false);
            write_stdout(&report::terminal::list_tests(&workload::suite(&options)))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Info(args) => {
            let chain = probe::probe(&args.path, args.link_speed.as_ref())?;
            write_stdout(&if args.json {
                report::chain::render_json(&chain)
            } else {
                report::chain::render(&chain)
            })?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Estimate(args) => crate::estimate_cli::run(&args),
        Command::History(args) => history_cli::dispatch(history_cli::history(&args)),
        Command::Show(args) => history_cli::dispatch(history_cli::show(&args)),
        Command::Compare(args) => history_cli::dispatch(history_cli::compare(&args)),
        Command::Export(args) => history_cli::dispatch(history_cli::export(&args)),
        Command::Report(args) => history_cli::dispatch(history_cli::html_report(&args)),
        Command::Forget(args) => history_cli::dispatch(history_cli::forget(&args)),
    }
}

fn run(args: &RunArgs) -> Result<ExitCode> {
    let plan = settings::run_plan(args)?;
    let store = history_cli::open_for_run(args.no_history, &args.history_db)?;
    crate::interrupt::install().map_err(|e| Error::io("installing signal handlers", e))?;
    let mut progress: Box<dyn Progress> = if std::io::stderr().is_terminal() {
        Box::new(report::TerminalProgress::new())
    } else {
        Box::new(NoProgress)
    };
    // Probed once, before the run; a path that cannot be probed is left to the runner to
    // report (it names the problem the same way), so the chain is simply absent then.
    let chain = probe::probe(&plan.destination, args.link_speed.as_ref()).ok();
    let mut run_report = runner::run(&plan, progress.as_mut())?;
    run_report.chain = chain;
    run_report.verdict = Some(crate::verdict::of(&run_report));
    let text = if args.json {
        report::json::render(&run_report)
    } else {
        report::terminal::render(&run_report, report::terminal::Style::detect())
    };
    write_stdout(&text)?;
    // Only a run that finished is stored, in one transaction: an error or an interruption
    // returned above and stored nothing.
    if let Some(store) = store {
        let (id, path) = history_cli::store_run(store, &run_report)?;
        eprintln!("destbench: stored as run {id} in {}", path.display());
    }
    Ok(if run_report.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(crate::error::EXIT_RUNTIME)
    })
}

/// Writes to stdout; a closed pipe (`destbench run | head`) is not an error.
pub(crate) fn write_stdout(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Error::io("writing to stdout", e))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> std::result::Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("destbench").chain(args.iter().copied()))
    }

    #[test]
    fn run_defaults() {
        let Command::Run(run) = parse(&["run"]).unwrap().command else {
            panic!("not run")
        };
        assert_eq!(run.profile, ProfileName::Backup);
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
        assert_eq!(run.profile, ProfileName::Quick);
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
        assert!(parse(&["run", "--profile", "slow"]).is_err());
        assert!(parse(&["run", "--engine", "aio"]).is_err());
        assert!(parse(&["run", "--runs", "-1"]).is_err());
    }
}
