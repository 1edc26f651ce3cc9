//! `destbench history`, `show` and `forget`: the stored runs listed, one shown, one removed.

use crate::cli::{ForgetArgs, HistoryArgs, ShowArgs};
use crate::error::Result;
use crate::history;
use crate::report;

use super::db;

pub fn history(args: &HistoryArgs) -> Result<String> {
    let (_, store) = db::open_existing(&args.db)?;
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
    let records = db::records(&args.db, &[args.id])?;
    Ok(if args.json {
        report::Exporter::serialize(&report::json::Json, &records)
    } else {
        report::history::show(&records[0])
    })
}

pub fn forget(args: &ForgetArgs) -> Result<String> {
    // Read-only first (nothing stored yet is an unknown id, and nothing gets created); then
    // opened for writing.
    let (path, store) = db::open_existing(&args.db)?;
    if store.is_none() {
        return Err(history::HistoryError::UnknownRun { id: args.id, path }.into());
    }
    drop(store);
    history::Store::open(&path)?.forget(args.id)?;
    Ok(format!("forgot run {}\n", args.id))
}
