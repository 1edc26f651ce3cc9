//! `destbench report --html FILE`: one self-contained HTML file of stored runs.

use crate::cli::ReportArgs;
use crate::error::{Error, Result};
use crate::history;
use crate::report;

use super::db;

/// Writes the HTML report; returns the line to print.
pub fn html_report(args: &ReportArgs) -> Result<String> {
    let records = db::records(&args.db, &args.ids)?;
    let html = report::html::render(&records, &history::compare::compare(&records));
    std::fs::write(&args.html, html)
        .map_err(|e| Error::io(format!("writing {}", args.html.display()), e))?;
    Ok(format!("wrote {}\n", args.html.display()))
}
