//! Every run, kept: an embedded SQLite database (a rollback journal, marked by
//! `application_id`, migrations by `user_version`) holding each
//! run's `destbench.run/2` document, where it ran, and normalised tables of results and samples
//! for the queries. `compare` turns stored runs into the side-by-side model the reports render.

pub mod compare;
pub mod environment;
mod migrations;
mod open;
pub mod record;
mod store;

use std::path::{Path, PathBuf};

use crate::settings::defs;

pub use compare::{Comparison, Group};
pub use migrations::latest as latest_schema_version;
pub use record::{Environment, Filesystem, HistoryEntry, RunRecord};
pub use store::Store;

/// The history's errors; the type lives with the crate's errors (so that `error` needs nothing
/// of the history), its constructors here.
pub use crate::error::HistoryError;

/// The environment variable naming the database (the same as `--db`).
pub const DB_ENV: &str = "DESTBENCH_DB";

impl HistoryError {
    pub fn database(path: &Path, problem: impl Into<String>) -> Self {
        HistoryError::Database {
            path: path.to_path_buf(),
            problem: problem.into(),
        }
    }

    /// An SQLite error, in words a user can act on for the cases that happen in practice.
    pub fn sqlite(path: &Path, error: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode;
        let problem = match error.sqlite_error_code() {
            Some(ErrorCode::NotADatabase) => open::not_sqlite(),
            Some(ErrorCode::DatabaseCorrupt) => format!(
                "the database is damaged ({error}); it was left untouched: move it away or pass another {}",
                defs::DB
            ),
            Some(ErrorCode::CannotOpen) => format!("cannot open ({error})"),
            Some(ErrorCode::ReadOnly) => format!("read-only ({error})"),
            _ => error.to_string(),
        };
        HistoryError::database(path, problem)
    }
}

/// Where the history lives unless `--db` or `DESTBENCH_DB` says otherwise:
/// `$XDG_DATA_HOME/destbench/history.sqlite`, else `~/.local/share/destbench/history.sqlite`
/// (on Windows `%LOCALAPPDATA%\destbench\history.sqlite`).
/// None when no variable gives an absolute directory (`platform::user_dir`'s rule, the config
/// file's too).
pub fn default_db_path() -> Option<PathBuf> {
    let data = crate::platform::user_dir(crate::platform::UserDir::Data)?;
    Some(data.join("destbench").join("history.sqlite"))
}

#[cfg(test)]
pub(crate) mod tests;

/// A destination as history and comparisons show it: its path and its filesystem's identity,
/// "/media/backup (ext4 1234-ABCD)", so that one path on two disks reads as two destinations.
pub fn with_filesystem(path: &str, fs: &Filesystem) -> String {
    let identity: Vec<&str> = [&fs.fs_type, &fs.fs_uuid]
        .into_iter()
        .filter_map(|v| v.as_deref())
        .collect();
    if identity.is_empty() {
        path.to_string()
    } else {
        format!("{path} ({})", identity.join(" "))
    }
}
