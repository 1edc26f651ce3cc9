//! The history database as the commands reach it: where it is (`--db`, `DESTBENCH_DB`, the XDG
//! data directory), opening it without creating it, and storing a finished run.

use std::path::PathBuf;

use crate::cli::{DbArg, RunId};
use crate::error::{Error, Result};
use crate::history::{self, RunRecord, Store, environment};
use crate::results::RunReport;

/// The database's path: `--db` (or its environment variable), else the default location.
pub fn path(db: &DbArg) -> Result<PathBuf> {
    db.db
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

/// Opens an existing store; a missing one is an error only when a run was asked for.
pub fn open_existing(db: &DbArg) -> Result<(PathBuf, Option<Store>)> {
    let path = path(db)?;
    let store = Store::open_existing(&path)?;
    Ok((path, store))
}

/// The stored runs `ids`, in that order; an unknown id (or no database) is an error naming it.
pub fn records(db: &DbArg, ids: &[RunId]) -> Result<Vec<RunRecord>> {
    let (path, store) = open_existing(db)?;
    let Some(store) = store else {
        return Err(no_run(ids.first().copied(), path));
    };
    ids.iter()
        .map(|&id| Ok(store.get(resolve(&store, id)?)?))
        .collect()
}

/// The number a [`RunId`] stands for: `latest` is the newest stored run.
pub fn resolve(store: &Store, id: RunId) -> Result<i64> {
    match id {
        RunId::Id(id) => Ok(id),
        RunId::Latest => store
            .latest_id()?
            .ok_or_else(|| no_run(Some(id), store.path().to_path_buf())),
    }
}

/// "No such run", or "no runs yet" when `latest` was asked of an empty history.
pub fn no_run(id: Option<RunId>, path: PathBuf) -> Error {
    match id {
        Some(RunId::Id(id)) => history::HistoryError::UnknownRun { id, path }.into(),
        _ => Error::Usage(format!(
            "no runs stored yet in {} (`destbench run PATH` makes one)",
            path.display()
        )),
    }
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
    let (path, store) = open_existing(db)?;
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
