//! The SQLite store: opening (with migrations), storing a run in one transaction, and the queries
//! the history commands need.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OpenFlags, TransactionBehavior, params};
use serde::Deserialize;

use super::HistoryError;
use super::migrations::MIGRATIONS;
use super::open::{self, Header, Owner};
use super::record::{Environment, HistoryEntry, RunRecord, Sequential};
use crate::results::RunDocument;

/// An open history database.
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Opens the database at `path` for writing, creating it (and its directory) when missing,
    /// and brings its schema up to date. A file that is not a destbench history database, or
    /// one from a newer destbench, is an error that names it, and not a byte of it is changed:
    /// it is checked through a read-only connection before the read-write one is opened.
    pub fn open(path: &Path) -> Result<Store, HistoryError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| {
                HistoryError::database(path, format!("cannot create its directory: {e}"))
            })?;
        }
        let header = open::header(path)?;
        Self::check_header(path, header)?;
        Self::open_checked(path, header).map_err(|e| open::read_only_or(path, e))
    }

    fn open_checked(path: &Path, header: Header) -> Result<Store, HistoryError> {
        let fail = |e: rusqlite::Error| HistoryError::sqlite(path, e);
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(fail)?;
        conn.busy_timeout(open::BUSY_TIMEOUT).map_err(fail)?;
        if header == (Header::Sqlite { wal: true }) {
            open::leave_wal(&conn, path)?;
        }
        conn.pragma_update(None, "foreign_keys", true)
            .map_err(fail)?;
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
        };
        store.migrate()?;
        Ok(store)
    }

    /// Checks, read-only, that the file at `path` is missing, blank, or a destbench history
    /// this build can write: what `run` asks before measuring, so that a foreign, damaged or
    /// newer database stops it before minutes of work.
    pub fn check(path: &Path) -> Result<(), HistoryError> {
        Self::check_header(path, open::header(path)?)
    }

    fn check_header(path: &Path, header: Header) -> Result<(), HistoryError> {
        match header {
            Header::Empty => Ok(()),
            // A WAL file is checked without its -wal and -shm: a foreign one gets nothing
            // created beside it.
            Header::Sqlite { wal: true } => {
                open::owner(&open::read_only_immutable(path)?, path).map(drop)
            }
            Header::Sqlite { wal: false } => {
                open::owner(&Self::connect_read_only(path, header)?, path).map(drop)
            }
        }
    }

    /// Opens an existing database read-only (`history`, `show`, `compare`, `export`, `report`,
    /// `estimate`): nothing is written to it or beside it, so a read-only file or directory
    /// still answers. `Ok(None)` when there is none yet (nothing was ever stored).
    pub fn open_existing(path: &Path) -> Result<Option<Store>, HistoryError> {
        let header = open::header(path)?;
        if header == Header::Empty {
            return Ok(None);
        }
        Self::check_header(path, header)?;
        let conn = Self::connect_read_only(path, header)?;
        if open::owner(&conn, path)? == Owner::Blank {
            return Ok(None);
        }
        Ok(Some(Store {
            conn,
            path: path.to_path_buf(),
        }))
    }

    /// A read-only connection that has read the file once: a WAL database (made by an older
    /// destbench) whose `-shm` cannot be created (a read-only directory, a full disk) is
    /// opened as immutable when it has no `-wal` to read.
    fn connect_read_only(path: &Path, header: Header) -> Result<Connection, HistoryError> {
        let conn = open::read_only(path)?;
        let probe = conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
            r.get::<_, i64>(0)
        });
        match probe {
            Ok(_) => Ok(conn),
            // Without a -wal file everything is in the database file itself, which the
            // immutable connection reads exactly.
            Err(_) if header == (Header::Sqlite { wal: true }) && !open::has_wal(path) => {
                open::read_only_immutable(path)
            }
            Err(e) => Err(HistoryError::sqlite(path, e)),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn fail(&self) -> impl Fn(rusqlite::Error) -> HistoryError + '_ {
        |e| HistoryError::sqlite(&self.path, e)
    }

    /// A row that SQLite read but that does not fill its struct (columns are matched by name).
    fn row_fail(&self, error: serde_rusqlite::Error) -> HistoryError {
        match error {
            serde_rusqlite::Error::Rusqlite(e) => HistoryError::sqlite(&self.path, e),
            other => HistoryError::Database {
                path: self.path.clone(),
                problem: format!("a stored row does not read back ({other})"),
            },
        }
    }

    /// The schema version of the file.
    #[cfg(test)]
    pub fn schema_version(&self) -> Result<i64, HistoryError> {
        self.conn
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(self.fail())
    }

    /// A transaction that takes the write lock first (IMMEDIATE), so two processes cannot both
    /// decide on what they read before writing; with the path its errors name.
    fn write_transaction(&mut self) -> Result<(rusqlite::Transaction<'_>, PathBuf), HistoryError> {
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| HistoryError::sqlite(&path, e))?;
        Ok((tx, path))
    }

    fn migrate(&mut self) -> Result<(), HistoryError> {
        // Two processes opening a new file at once cannot both apply the same migration: the
        // version is read again under the write lock.
        let (tx, path) = self.write_transaction()?;
        let fail = |e: rusqlite::Error| HistoryError::sqlite(&path, e);
        // Checked again under the write lock: another process may have set the file up since.
        let version = match open::owner(&tx, &path)? {
            Owner::Blank => 0,
            Owner::Ours(version) => version,
        };
        let id: i32 = tx
            .query_row("PRAGMA application_id", [], |row| row.get(0))
            .map_err(fail)?;
        if id != open::APPLICATION_ID {
            tx.pragma_update(None, "application_id", open::APPLICATION_ID)
                .map_err(fail)?;
        }
        for (target, sql) in MIGRATIONS.iter().filter(|(v, _)| *v > version) {
            tx.execute_batch(sql).map_err(fail)?;
            tx.pragma_update(None, "user_version", target)
                .map_err(fail)?;
        }
        tx.commit().map_err(fail)
    }

    /// Stores one run (its `destbench.run/2` document and where it ran) in a single
    /// transaction, and returns its id. Either all of it lands or none.
    pub fn insert(&mut self, doc: &RunDocument, env: &Environment) -> Result<i64, HistoryError> {
        let (tx, path) = self.write_transaction()?;
        let fail = |e: rusqlite::Error| HistoryError::sqlite(&path, e);
        let id = insert_run(&tx, doc, env).map_err(fail)?;
        insert_results(&tx, id, doc).map_err(fail)?;
        tx.commit().map_err(fail)?;
        Ok(id)
    }

    /// Every stored run, newest first, with its headline figures: the large sequential results
    /// the verdict judges, read from each run's document (a damaged one lists without them).
    pub fn list(&self) -> Result<Vec<HistoryEntry>, HistoryError> {
        #[derive(Deserialize)]
        struct Row {
            #[serde(flatten)]
            entry: HistoryEntry,
            document: String,
        }
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, stored_unix_s, started_unix_s, label, destination, host, failures,
                    fs_type, fs_uuid, document
                 FROM runs ORDER BY id DESC",
            )
            .map_err(self.fail())?;
        let rows = stmt.query([]).map_err(self.fail())?;
        // Columns are matched to fields by name, so the SELECT list is the one place to keep.
        serde_rusqlite::from_rows::<Row>(rows)
            .map(|row| row.map(|r| with_headline(r.entry, &r.document)))
            .collect::<Result<_, _>>()
            .map_err(|e| self.row_fail(e))
    }

    /// The newest run's id, if any run is stored.
    pub fn latest_id(&self) -> Result<Option<i64>, HistoryError> {
        self.conn
            .query_row("SELECT max(id) FROM runs", [], |row| row.get(0))
            .map_err(self.fail())
    }

    /// One stored run; an unknown id is [`HistoryError::UnknownRun`].
    pub fn get(&self, id: i64) -> Result<RunRecord, HistoryError> {
        #[derive(Deserialize)]
        struct Row {
            stored_unix_s: i64,
            document: String,
            #[serde(flatten)]
            environment: Environment,
        }
        let mut stmt = self
            .conn
            .prepare(
                "SELECT stored_unix_s, document, destbench_version, host, kernel, fs_type, fs_uuid,
                    device, device_model, device_serial FROM runs WHERE id = ?1",
            )
            .map_err(self.fail())?;
        let rows = stmt.query([id]).map_err(self.fail())?;
        let row = serde_rusqlite::from_rows::<Row>(rows)
            .next()
            .transpose()
            .map_err(|e| self.row_fail(e))?
            .map(|r| (r.stored_unix_s, r.document, r.environment));
        let Some((stored_unix_s, text, environment)) = row else {
            return Err(HistoryError::UnknownRun {
                id,
                path: self.path.clone(),
            });
        };
        let damaged = |e: serde_json::Error| {
            HistoryError::database(
                &self.path,
                format!("run {id}: stored document is damaged: {e}"),
            )
        };
        let document: serde_json::Value = serde_json::from_str(&text).map_err(damaged)?;
        let run = RunDocument::deserialize(&document).map_err(damaged)?;
        Ok(RunRecord {
            id,
            stored_unix_s,
            environment,
            document,
            run,
        })
    }

    /// Removes a run and everything stored with it.
    pub fn forget(&mut self, id: i64) -> Result<(), HistoryError> {
        let removed = self
            .conn
            .execute("DELETE FROM runs WHERE id = ?1", [id])
            .map_err(self.fail())?;
        if removed == 0 {
            return Err(HistoryError::UnknownRun {
                id,
                path: self.path.clone(),
            });
        }
        Ok(())
    }

    /// How many sample rows are stored for a run (the normalised copy of its repetitions).
    #[cfg(test)]
    pub fn sample_count(&self, id: i64) -> Result<i64, HistoryError> {
        self.conn
            .query_row(
                "SELECT count(*) FROM samples WHERE run_id = ?1",
                [id],
                |row| row.get(0),
            )
            .map_err(self.fail())
    }
}

/// `entry` with the headline figures of its stored document.
fn with_headline(mut entry: HistoryEntry, document: &str) -> HistoryEntry {
    let Ok(run) = serde_json::from_str::<RunDocument>(document) else {
        return entry;
    };
    let [write, read] = crate::verdict::judged_in(&run);
    entry.sequential = Sequential {
        seq_write_mb_s: write.map(|r| r.median),
        seq_read_mb_s: read.map(|r| r.median),
        headline_variant: write.or(read).map(|r| r.variant.clone()),
    };
    entry
}

/// The run's own row (where it ran, its document whole); returns its id.
fn insert_run(
    tx: &rusqlite::Transaction<'_>,
    doc: &RunDocument,
    env: &Environment,
) -> rusqlite::Result<i64> {
    let stored = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    tx.execute(
        "INSERT INTO runs (stored_unix_s, started_unix_s, label, destination, profile, seed,
            destbench_version, host, kernel, fs_type, fs_uuid, device, device_model,
            device_serial, failures, document)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
        params![
            stored,
            doc.started_unix_s as i64,
            doc.settings.label,
            doc.destination.path.display().to_string(),
            doc.settings.profile.to_string(),
            // SQLite integers are signed; the seed's bits are kept, not its sign.
            doc.settings.seed as i64,
            env.destbench_version,
            env.host,
            env.kernel,
            env.filesystem.fs_type,
            env.filesystem.fs_uuid,
            env.device,
            env.device_model,
            env.device_serial,
            doc.failures.len() as i64,
            doc.to_json(),
        ],
    )?;
    Ok(tx.last_insert_rowid())
}

/// The rows the queries read without parsing documents: each result with its samples, and
/// the warnings (a result's by its position, the run's with none).
fn insert_results(
    tx: &rusqlite::Transaction<'_>,
    id: i64,
    doc: &RunDocument,
) -> rusqlite::Result<()> {
    let mut result = tx.prepare(
        "INSERT INTO results (run_id, position, test, variant, unit, median, method, engine)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    let mut sample = tx.prepare(
        "INSERT INTO samples (run_id, position, repetition, value) VALUES (?1, ?2, ?3, ?4)",
    )?;
    let mut warning =
        tx.prepare("INSERT INTO warnings (run_id, position, text) VALUES (?1, ?2, ?3)")?;
    for (index, r) in doc.results.iter().enumerate() {
        let position = index as i64;
        result.execute(params![
            id,
            position,
            r.test.as_str(),
            r.variant,
            r.unit.as_str(),
            r.median,
            r.method.as_str(),
            r.engine.name()
        ])?;
        for (repetition, value) in r.samples.iter().enumerate() {
            sample.execute(params![id, position, repetition as i64, value])?;
        }
        for w in doc.result_warnings(index) {
            warning.execute(params![id, position, w.message])?;
        }
    }
    for w in &doc.warnings {
        warning.execute(params![id, None::<i64>, w.message])?;
    }
    Ok(())
}
