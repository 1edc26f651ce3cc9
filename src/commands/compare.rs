//! `destbench compare`: stored runs side by side, ratios against the first, significance.

use crate::cli::CompareArgs;
use crate::error::Result;
use crate::history;
use crate::report;

use super::db;

pub fn compare(args: &CompareArgs) -> Result<String> {
    let records = db::records(&args.db, &args.ids)?;
    let cmp = history::compare::compare(&records);
    Ok(if args.json {
        report::export::comparison(&cmp)
    } else {
        report::terminal::history::compare(&cmp)
    })
}
