//! The history commands' command-line shape (`history`, `show`, `compare`, `export`, `report`,
//! `forget`) and what they do: open the store, read runs, hand them to a renderer. Also how a
//! finished `destbench run` stores itself.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::ValueEnum;

use crate::error::{Error, Result};
use crate::history::{self, Store, environment};
use crate::report;
use crate::results::RunReport;

/// `--db`, shared by `run` and every history command.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct DbArg {
    /// The history database [default: $XDG_DATA_HOME/destbench/history.sqlite, else
    /// ~/.local/share/destbench/history.sqlite].
    #[arg(long, value_name = "PATH", env = history::DB_ENV)]
    pub db: Option<PathBuf>,
}

impl DbArg {
    pub fn path(&self) -> Result<PathBuf> {
        self.db
            .clone()
            .filter(|p| !p.as_os_str().is_empty())
            .or_else(history::default_db_path)
            .ok_or_else(|| {
                Error::Usage(format!(
                    "no home directory to keep the history in: pass --db PATH or set {}",
                    history::DB_ENV
                ))
            })
    }
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
}

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// One or more run ids.
    #[arg(required = true, num_args = 1..)]
    pub ids: Vec<i64>,
    /// json (whole stored runs), csv (one row per result), md (tables to paste in a post).
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

/// Where a run will be stored: the store itself when the database already exists (opened before
/// the run, so that a damaged database stops the run before minutes of measuring), or only its
/// path when it does not (created after the run, so that a destination error is still the first
/// thing a user without a writable home directory hears about).
pub struct RunStore {
    path: PathBuf,
    store: Option<Store>,
}

pub fn open_for_run(no_history: bool, db: &DbArg) -> Result<Option<RunStore>> {
    if no_history {
        return Ok(None);
    }
    let path = db.path()?;
    let store = Store::open_existing(&path)?;
    Ok(Some(RunStore { path, store }))
}

/// Stores a finished run; returns its id and the database's path.
pub fn store_run(target: RunStore, report: &RunReport) -> Result<(i64, PathBuf)> {
    let mut store = match target.store {
        Some(store) => store,
        None => Store::open(&target.path)?,
    };
    let env = environment::collect(&environment::Roots::default(), report.chain.as_ref());
    Ok((store.insert(report, &env)?, target.path))
}

/// Opens an existing store; a missing one is an error only when a run was asked for.
fn open_existing(db: &DbArg) -> Result<(PathBuf, Option<Store>)> {
    let path = db.path()?;
    let store = Store::open_existing(&path)?;
    Ok((path, store))
}

fn records(db: &DbArg, ids: &[i64]) -> Result<Vec<history::RunRecord>> {
    let (path, store) = open_existing(db)?;
    let Some(store) = store else {
        let id = ids.first().copied().unwrap_or(0);
        return Err(history::HistoryError::UnknownRun { id, path }.into());
    };
    ids.iter().map(|&id| Ok(store.get(id)?)).collect()
}

pub fn history(args: &HistoryArgs) -> Result<String> {
    let (_, store) = open_existing(&args.db)?;
    let entries = match store {
        Some(store) => store.list()?,
        None => Vec::new(),
    };
    Ok(if args.json {
        report::export::list(&entries)
    } else {
        report::history::list(&entries)
    })
}

pub fn show(args: &ShowArgs) -> Result<String> {
    let records = records(&args.db, &[args.id])?;
    Ok(if args.json {
        report::Exporter::serialize(&report::json::Json, &records)
    } else {
        report::history::show(&records[0])
    })
}

pub fn compare(args: &CompareArgs) -> Result<String> {
    let records = records(&args.db, &args.ids)?;
    let cmp = history::compare::compare(&records);
    Ok(if args.json {
        report::export::comparison(&cmp)
    } else {
        report::history::compare(&cmp)
    })
}

pub fn export(args: &ExportArgs) -> Result<String> {
    let records = records(&args.db, &args.ids)?;
    let exporter: &dyn report::Exporter = match args.format {
        ExportFormat::Json => &report::json::Json,
        ExportFormat::Csv => &report::csv::Csv,
        ExportFormat::Md => &report::markdown::Markdown,
    };
    Ok(exporter.serialize(&records))
}

/// Writes the HTML report; returns the line to print.
pub fn html_report(args: &ReportArgs) -> Result<String> {
    let records = records(&args.db, &args.ids)?;
    let html = report::Exporter::serialize(&report::html::Html, &records);
    write_file(&args.html, &html)?;
    Ok(format!("wrote {}\n", args.html.display()))
}

fn write_file(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| Error::io(format!("writing {}", path.display()), e))
}

pub fn forget(args: &ForgetArgs) -> Result<String> {
    let (path, store) = open_existing(&args.db)?;
    let Some(mut store) = store else {
        return Err(history::HistoryError::UnknownRun { id: args.id, path }.into());
    };
    store.forget(args.id)?;
    Ok(format!("forgot run {}\n", args.id))
}

/// Runs a history command and prints its output.
pub fn dispatch(output: Result<String>) -> Result<ExitCode> {
    crate::cli::write_stdout(&output?)?;
    Ok(ExitCode::SUCCESS)
}
