//! The history commands' flags (`history`, `show`, `compare`, `export`, `report`, `forget`)
//! and `--db`, which `run` and `estimate` share.

use std::path::PathBuf;

use clap::ValueEnum;

use crate::history;

/// A stored run as the command line names it: its id, or `latest` / `last` for the newest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunId {
    Latest,
    Id(i64),
}

impl std::str::FromStr for RunId {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "latest" | "last" => Ok(RunId::Latest),
            _ => match s.parse::<i64>() {
                Ok(id) if id > 0 => Ok(RunId::Id(id)),
                Ok(_) => Err("a run id must be positive".into()),
                Err(_) => Err(format!(
                    "`{s}` is not a run id: give a number from `destbench history`, or latest"
                )),
            },
        }
    }
}

/// `--db`, shared by `run` and every history command.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct DbArg {
    /// The history database [default: $XDG_DATA_HOME/destbench/history.sqlite, else
    /// ~/.local/share/destbench/history.sqlite].
    #[arg(long = crate::settings::defs::DB.long, value_name = "PATH", env = history::DB_ENV)]
    pub db: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct HistoryArgs {
    /// A JSON list of the runs (schema destbench.history/1), each with its id, instead of the table.
    #[arg(short, long)]
    pub json: bool,
    #[command(flatten)]
    pub db: DbArg,
}

#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// The run's id (from `destbench history`), or latest.
    #[arg(allow_negative_numbers = true)]
    pub id: RunId,
    /// Print the stored run as JSON (its destbench.run/2 document and where it ran).
    #[arg(short, long)]
    pub json: bool,
    /// Also print every result's repetitions, in the order they ran, each with its time.
    #[arg(short, long)]
    pub verbose: bool,
    #[command(flatten)]
    pub db: DbArg,
}

#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// Two or more run ids (or latest); the first is the baseline of the ratios.
    #[arg(required = true, num_args = 2.., allow_negative_numbers = true)]
    pub ids: Vec<RunId>,
    /// The comparison as JSON (schema destbench.compare/1).
    #[arg(short, long)]
    pub json: bool,
    #[command(flatten)]
    pub db: DbArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    Json,
    Csv,
    Md,
    Fio,
}

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// One or more run ids (or latest).
    #[arg(required = true, num_args = 1.., allow_negative_numbers = true)]
    pub ids: Vec<RunId>,
    /// json (whole stored runs), csv (one row per result), md (tables to paste in a post), fio
    /// (a job file reproducing each block variant; `destbench import-fio` reads its result back).
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    #[command(flatten)]
    pub db: DbArg,
}

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// One or more run ids (or latest); the first is the baseline of the ratios.
    #[arg(required = true, num_args = 1.., allow_negative_numbers = true)]
    pub ids: Vec<RunId>,
    /// Write one self-contained HTML file with tables and charts here.
    #[arg(
        short = 'o',
        long,
        visible_alias = "output",
        value_name = "FILE",
        required = true
    )]
    pub html: PathBuf,
    #[command(flatten)]
    pub db: DbArg,
}

#[derive(Debug, clap::Args)]
pub struct ForgetArgs {
    /// The run's id, or latest.
    #[arg(allow_negative_numbers = true)]
    pub id: RunId,
    #[command(flatten)]
    pub db: DbArg,
}

#[derive(Debug, clap::Args)]
pub struct ImportFioArgs {
    /// An fio result written with `--output-format=json`.
    pub file: PathBuf,
    /// What `history` and `compare` call the run [default: fio's version].
    #[arg(long)]
    pub label: Option<String>,
    #[command(flatten)]
    pub db: DbArg,
}
