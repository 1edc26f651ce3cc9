//! The SQLite store: opening (with migrations), storing a run in one transaction, and the queries
//! the history commands need.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior, params};
use serde::Deserialize;

use super::HistoryError;
use super::migrations::{MIGRATIONS, latest};
use super::record::{Environment, HistoryEntry, RunRecord};
use crate::results::RunReport;

/// How long a writer waits for another process holding the database (two runs finishing
/// together, a `history` while a run stores itself).
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// An open history database.
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Opens the database at `path`, creating it (and its directory) when missing, and brings
    /// its schema up to date. A file that is not a destbench history database is an error that
    /// names it; it is never replaced.
    pub fn open(path: &Path) -> Result<Store, HistoryError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| {
                HistoryError::database(path, format!("cannot create its directory: {e}"))
            })?;
        }
        Self::open_with(path, OpenFlags::SQLITE_OPEN_CREATE)
    }

    /// Opens an existing database; `Ok(None)` when there is none yet (nothing was ever stored).
    pub fn open_existing(path: &Path) -> Result<Option<Store>, HistoryError> {
        if !path.exists() {
            return Ok(None);
        }
        Self::open_with(path, OpenFlags::empty()).map(Some)
    }

    fn open_with(path: &Path, extra: OpenFlags) -> Result<Store, HistoryError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX | extra;
        let fail = |e: rusqlite::Error| HistoryError::sqlite(path, e);
        let conn = Connection::open_with_flags(path, flags).map_err(fail)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(fail)?;
        // The first statement that reads the file: a damaged or foreign file fails here.
        let mode = wal_mode(&conn).map_err(fail)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(HistoryError::database(
                path,
                format!("cannot switch to write-ahead logging (journal mode stays {mode})"),
            ));
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

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn fail(&self) -> impl Fn(rusqlite::Error) -> HistoryError + '_ {
        |e| HistoryError::sqlite(&self.path, e)
    }

    /// The schema version of the file.
    pub fn schema_version(&self) -> Result<i64, HistoryError> {
        self.conn
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(self.fail())
    }

    fn migrate(&mut self) -> Result<(), HistoryError> {
        let path = self.path.clone();
        let fail = |e: rusqlite::Error| HistoryError::sqlite(&path, e);
        // IMMEDIATE takes the write lock first, so two processes opening a new file at once
        // cannot both apply the same migration; the version is read again under the lock.
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(fail)?;
        let version: i64 = tx
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(fail)?;
        if version > latest() {
            return Err(HistoryError::database(
                &path,
                format!(
                    "schema version {version} was written by a newer destbench (this one knows up to {}); upgrade destbench",
                    latest()
                ),
            ));
        }
        if version == 0 {
            let tables: i64 = tx
                .query_row("SELECT count(*) FROM sqlite_master", [], |row| row.get(0))
                .map_err(fail)?;
            if tables > 0 {
                return Err(HistoryError::database(
                    &path,
                    "an SQLite database, but not a destbench history (it has tables of its own)",
                ));
            }
        }
        for (target, sql) in MIGRATIONS.iter().filter(|(v, _)| *v > version) {
            tx.execute_batch(sql).map_err(fail)?;
            tx.pragma_update(None, "user_version", target)
                .map_err(fail)?;
        }
        tx.commit().map_err(fail)
    }

    /// Stores one run (its `destbench.run/1` document and where it ran) in a single
    /// transaction, and returns its id. Either all of it lands or none.
    pub fn insert(&mut self, doc: &RunReport, env: &Environment) -> Result<i64, HistoryError> {
        let document = doc.to_json();
        let path = self.path.clone();
        let fail = |e: rusqlite::Error| HistoryError::sqlite(&path, e);
        let stored = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(fail)?;
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
                env.fs_type,
                env.fs_uuid,
                env.device,
                env.device_model,
                env.device_serial,
                doc.failures.len() as i64,
                document,
            ],
        )
        .map_err(fail)?;
        let id = tx.last_insert_rowid();
        {
            let mut result = tx
                .prepare(
                    "INSERT INTO results (run_id, position, test, variant, unit, median, method, engine)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                )
                .map_err(fail)?;
            let mut sample = tx
                .prepare("INSERT INTO samples (run_id, position, repetition, value) VALUES (?1, ?2, ?3, ?4)")
                .map_err(fail)?;
            let mut warning = tx
                .prepare("INSERT INTO warnings (run_id, position, text) VALUES (?1, ?2, ?3)")
                .map_err(fail)?;
            for (index, r) in doc.results.iter().enumerate() {
                let position = index as i64;
                result
                    .execute(params![
                        id,
                        position,
                        r.test.as_str(),
                        r.variant,
                        r.unit.as_str(),
                        r.median,
                        r.method.as_str(),
                        r.engine.name()
                    ])
                    .map_err(fail)?;
                for (repetition, value) in r.samples.iter().enumerate() {
                    sample
                        .execute(params![id, position, repetition as i64, value])
                        .map_err(fail)?;
                }
                for text in doc.result_warnings(index) {
                    warning.execute(params![id, position, text]).map_err(fail)?;
                }
            }
            for text in &doc.warnings {
                warning
                    .execute(params![id, None::<i64>, text])
                    .map_err(fail)?;
            }
        }
        tx.commit().map_err(fail)?;
        Ok(id)
    }

    /// Every stored run, newest first, with its headline figures.
    pub fn list(&self) -> Result<Vec<HistoryEntry>, HistoryError> {
        // The headline: the QD8 1 MiB stream when measured, else the 20-100 MB file average.
        const HEADLINE: &str =
            "(SELECT median FROM results r WHERE r.run_id = runs.id AND r.test = ?1
              AND r.variant IN ('SEQ1M-Q8T1', '20-100MB')
              ORDER BY r.variant = 'SEQ1M-Q8T1' DESC LIMIT 1)";
        let sql = format!(
            "SELECT id, stored_unix_s, started_unix_s, label, destination, host, failures,
                {write}, {read},
                (SELECT variant FROM results r WHERE r.run_id = runs.id
                   AND r.test IN ('seq-write', 'seq-read') AND r.variant IN ('SEQ1M-Q8T1', '20-100MB')
                   ORDER BY r.variant = 'SEQ1M-Q8T1' DESC LIMIT 1),
                fs_type, fs_uuid
             FROM runs ORDER BY id DESC",
            write = HEADLINE.replace("?1", "'seq-write'"),
            read = HEADLINE.replace("?1", "'seq-read'"),
        );
        let mut stmt = self.conn.prepare(&sql).map_err(self.fail())?;
        let rows = stmt
            .query_map([], |row| {
                Ok(HistoryEntry {
                    id: row.get(0)?,
                    stored_unix_s: row.get(1)?,
                    started_unix_s: row.get(2)?,
                    label: row.get(3)?,
                    destination: row.get(4)?,
                    host: row.get(5)?,
                    failures: row.get(6)?,
                    seq_write_mb_s: row.get(7)?,
                    seq_read_mb_s: row.get(8)?,
                    headline_variant: row.get(9)?,
                    fs_type: row.get(10)?,
                    fs_uuid: row.get(11)?,
                })
            })
            .map_err(self.fail())?;
        rows.collect::<Result<_, _>>().map_err(self.fail())
    }

    /// The newest run's id, if any run is stored.
    pub fn latest_id(&self) -> Result<Option<i64>, HistoryError> {
        self.conn
            .query_row("SELECT max(id) FROM runs", [], |row| row.get(0))
            .map_err(self.fail())
    }

    /// One stored run; an unknown id is [`HistoryError::UnknownRun`].
    pub fn get(&self, id: i64) -> Result<RunRecord, HistoryError> {
        let row = self
            .conn
            .query_row(
                "SELECT stored_unix_s, document, destbench_version, host, kernel, fs_type, fs_uuid,
                    device, device_model, device_serial FROM runs WHERE id = ?1",
                [id],
                |row| {
                    Ok((
                        row.get::<_, i64>(0)?,
                        row.get::<_, String>(1)?,
                        Environment {
                            destbench_version: row.get(2)?,
                            host: row.get(3)?,
                            kernel: row.get(4)?,
                            fs_type: row.get(5)?,
                            fs_uuid: row.get(6)?,
                            device: row.get(7)?,
                            device_model: row.get(8)?,
                            device_serial: row.get(9)?,
                        },
                    ))
                },
            )
            .optional()
            .map_err(self.fail())?;
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
        let run = RunReport::deserialize(&document).map_err(damaged)?;
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

/// Switches to write-ahead logging and returns the journal mode now in force. Changing the
/// journal mode needs the file to itself, and SQLite answers "busy" at once, without waiting
/// through the busy timeout, when another connection is opening the same new file: so the switch
/// is retried until that timeout.
fn wal_mode(conn: &Connection) -> rusqlite::Result<String> {
    let started = std::time::Instant::now();
    loop {
        match conn.query_row("PRAGMA journal_mode=WAL", [], |row| row.get(0)) {
            Err(e)
                if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy)
                    && started.elapsed() < BUSY_TIMEOUT =>
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            other => return other,
        }
    }
}
