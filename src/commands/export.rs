//! `destbench export`: stored runs as JSON, CSV or Markdown on stdout.

use crate::cli::{ExportArgs, ExportFormat};
use crate::error::Result;
use crate::history;
use crate::report;

use super::db;

pub fn export(args: &ExportArgs) -> Result<String> {
    let records = db::records(&args.db, &args.ids)?;
    Ok(match args.format {
        ExportFormat::Json => report::export::records(&records),
        ExportFormat::Csv => report::csv::render(&records),
        ExportFormat::Md => {
            report::markdown::render(&history::compare::compare(&records), &records)
        }
    })
}
