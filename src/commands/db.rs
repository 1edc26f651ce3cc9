//! The history database as the commands reach it: where it is (`--db`, `DESTBENCH_DB`, the XDG
//! data directory), opening it without creating it, and storing a finished run.

use std::path::PathBuf;

use crate::cli::{DbArg, RunId};
use crate::error::{Error, Result};
use crate::history::{self, RunRecord, Store, environment};
use crate::results::RunDocument;
use crate::settings::defs;

/// The database's path: `--db` (or its environment variable), else the default location.
pub fn path(db: &DbArg) -> Result<PathBuf> {
    db.db
        .clone()
        .filter(|p| !p.as_os_str().is_empty())
        .or_else(history::default_db_path)
        .ok_or_else(|| {
            Error::Usage(format!(
                "no home directory to keep the history in: pass {} PATH or set {}",
                defs::DB,
                history::DB_ENV
            ))
        })
}

/// Opens an existing store read-only; `None` when nothing was ever stored.
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

/// Where a run will be stored. The database is checked (read-only) before the run, so that a
/// damaged, foreign or newer database stops the run before minutes of measuring, but opened for
/// writing only after it: a run that holds no connection cannot block other runs or readers,
/// and a read-only or full disk fails the storing, not the run.
pub struct RunStore {
    path: PathBuf,
}

pub fn open_for_run(no_history: bool, db: &DbArg) -> Result<Option<RunStore>> {
    if no_history {
        return Ok(None);
    }
    let path = path(db)?;
    Store::check(&path)?;
    Ok(Some(RunStore { path }))
}

impl RunStore {
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }
}

/// Stores a finished run (creating the database when missing); returns its id.
pub fn store_run(target: &RunStore, report: &RunDocument) -> Result<i64> {
    let mut store = Store::open(&target.path)?;
    let env = environment::collect(&environment::Machine::this(), report.chain.as_ref());
    Ok(store.insert(report, &env)?)
}
