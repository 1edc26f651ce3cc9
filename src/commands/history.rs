//! `destbench history`, `show` and `forget`: the stored runs listed, one shown, one removed.

use crate::cli::{ForgetArgs, HistoryArgs, ShowArgs};
use crate::error::Result;
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
        report::terminal::history::list(&entries)
    })
}

pub fn show(args: &ShowArgs) -> Result<String> {
    let records = db::records(&args.db, &[args.id])?;
    Ok(if args.json {
        report::export::Exporter::serialize(&report::export::json::Json, &records)
    } else {
        report::terminal::history::show(&records[0], args.verbose)
    })
}

pub fn forget(args: &ForgetArgs) -> Result<String> {
    // Read-only first (nothing stored yet is an unknown id, and nothing gets created); then
    // opened for writing.
    let (path, store) = db::open_existing(&args.db)?;
    let Some(store) = store else {
        return Err(db::no_run(Some(args.id), path));
    };
    let id = db::resolve(&store, args.id)?;
    drop(store);
    crate::history::Store::open(&path)?.forget(id)?;
    Ok(format!("forgot run {id}\n"))
}
