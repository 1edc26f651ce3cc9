//! The history commands' flags (`history`, `show`, `compare`, `export`, `report`, `forget`)
//! and `--db`, which `run` and `estimate` share.

use std::path::PathBuf;

use clap::ValueEnum;

use crate::history;

/// `--db`, shared by `run` and every history command.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct DbArg {
    /// The history database [default: $XDG_DATA_HOME/destbench/history.sqlite, else
    /// ~/.local/share/destbench/history.sqlite].
    #[arg(long, value_name = "PATH", env = history::DB_ENV)]
    pub db: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct HistoryArgs {
    /// A JSON list of the runs, each with its id, instead of the table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub db: DbArg,
}

#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// The run's id (from `destbench history`).
    pub id: i64,
    /// Print the stored run as JSON (its destbench.run/1 document and where it ran).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub db: DbArg,
}

#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// Two or more run ids; the first is the baseline of the ratios.
    #[arg(required = true, num_args = 2..)]
    pub ids: Vec<i64>,
    /// The comparison as JSON.
    #[arg(long)]
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
    /// One or more run ids.
    #[arg(required = true, num_args = 1..)]
    pub ids: Vec<i64>,
    /// json (whole stored runs), csv (one row per result), md (tables to paste in a post), fio
    /// (a job file reproducing each block variant; `destbench import-fio` reads its result back).
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    #[command(flatten)]
    pub db: DbArg,
}

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// One or more run ids; the first is the baseline of the ratios.
    #[arg(required = true, num_args = 1..)]
    pub ids: Vec<i64>,
    /// Write one self-contained HTML file with tables and charts here.
    #[arg(long, value_name = "FILE", required = true)]
    pub html: PathBuf,
    #[command(flatten)]
    pub db: DbArg,
}

#[derive(Debug, clap::Args)]
pub struct ForgetArgs {
    /// The run's id.
    pub id: i64,
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
