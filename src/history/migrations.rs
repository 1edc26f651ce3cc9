//! The database schema, as an ordered list of migrations keyed by SQLite's `user_version`.
//!
//! A migration is never edited once released: a change to the schema is a new entry at the end.
//! The full `destbench.run/2` document is the record of a run; the tables beside it hold what
//! the history commands query (headline figures, samples) so that they need no JSON parsing.

/// `(user_version after it, SQL)`, in order.
pub const MIGRATIONS: &[(i64, &str)] = &[(
    1,
    "
    CREATE TABLE runs (
        -- AUTOINCREMENT: a forgotten run's id is never given to a later run.
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        stored_unix_s INTEGER NOT NULL,
        started_unix_s INTEGER NOT NULL,
        label TEXT,
        destination TEXT NOT NULL,
        profile TEXT NOT NULL,
        seed INTEGER NOT NULL,
        destbench_version TEXT NOT NULL,
        host TEXT,
        kernel TEXT,
        fs_type TEXT,
        fs_uuid TEXT,
        device TEXT,
        device_model TEXT,
        device_serial TEXT,
        failures INTEGER NOT NULL,
        document TEXT NOT NULL
    );
    CREATE TABLE results (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        test TEXT NOT NULL,
        variant TEXT NOT NULL,
        unit TEXT NOT NULL,
        median REAL NOT NULL,
        method TEXT NOT NULL,
        engine TEXT NOT NULL,
        PRIMARY KEY (run_id, position)
    );
    CREATE INDEX results_by_test ON results(test, variant);
    CREATE TABLE samples (
        run_id INTEGER NOT NULL,
        position INTEGER NOT NULL,
        repetition INTEGER NOT NULL,
        value REAL NOT NULL,
        PRIMARY KEY (run_id, position, repetition),
        FOREIGN KEY (run_id, position) REFERENCES results(run_id, position) ON DELETE CASCADE
    );
    CREATE TABLE warnings (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        -- NULL for a warning about the whole run.
        position INTEGER,
        text TEXT NOT NULL
    );
    CREATE INDEX warnings_by_run ON warnings(run_id);
    ",
)];

/// The schema version this destbench writes.
pub fn latest() -> i64 {
    MIGRATIONS.last().map_or(0, |(version, _)| *version)
}
