//! `destbench export`: stored runs as JSON, CSV, Markdown or an fio job file on stdout.

use crate::cli::{ExportArgs, ExportFormat};
use crate::error::Result;
use crate::history;
use crate::report;

use super::db;

pub fn export(args: &ExportArgs) -> Result<String> {
    let records = db::records(&args.db, &args.ids)?;
    let markdown;
    let exporter: &dyn report::export::Exporter = match args.format {
        ExportFormat::Json => &report::export::json::Json,
        ExportFormat::Csv => &report::export::csv::Csv,
        ExportFormat::Md => {
            markdown = report::export::markdown::Markdown(history::compare::compare(&records));
            &markdown
        }
        ExportFormat::Fio => &report::export::fio::FioJobs,
    };
    Ok(exporter.serialize(&records))
}
