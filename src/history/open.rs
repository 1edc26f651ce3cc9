//! Opening the history database without harming a file that is not ours.
//!
//! Order matters: a file is first read through a read-only connection (SQLITE_OPEN_READ_ONLY, so
//! SQLite cannot write to it) and checked to be a destbench history of a version this build
//! knows; only then is it opened for writing. Our databases carry [`APPLICATION_ID`] and use a
//! rollback journal (`journal_mode=DELETE`): no `-shm` file is mapped into memory, so a write to
//! a full filesystem is an `SQLITE_FULL` error and never a SIGBUS (WAL's shared memory is an
//! mmapped file whose pages fault when the filesystem cannot back them), and a reader needs
//! nothing written beside the database, so a read-only directory still answers `history`.

use std::path::Path;
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags};

use super::HistoryError;
use super::migrations::latest;
use crate::platform;
use crate::settings::defs;

/// `PRAGMA application_id` of every destbench history ("dstb" in ASCII): a file with another id
/// belongs to another application. Databases made before the id was set have 0 and are
/// recognised by their schema instead.
pub const APPLICATION_ID: i32 = 0x6473_7462;

/// How long a writer waits for another process holding the database (two runs finishing
/// together, a `history` while a run stores itself).
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// The header's "SQLite format 3\0", and the offset of its read and write version bytes, which
/// are 2 for a database in write-ahead logging mode.
const MAGIC: &[u8; 16] = b"SQLite format 3\0";
const WAL_VERSION_OFFSET: usize = 18;

/// What the first bytes of the file say, read without SQLite (which would take locks and could
/// create files beside it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Header {
    /// Missing or empty: a new database.
    Empty,
    /// An SQLite database; `wal` when its header asks for write-ahead logging (made by an older
    /// destbench, or by another application).
    Sqlite { wal: bool },
}

/// Offsets of `user_version` and `application_id` in the header (big-endian 32-bit).
const USER_VERSION_OFFSET: usize = 60;
const APPLICATION_ID_OFFSET: usize = 68;

/// Reads the header; a file that is neither empty nor an SQLite database is an error.
pub fn header(path: &Path) -> Result<Header, HistoryError> {
    use std::io::Read;
    let mut file = match std::fs::File::open(path) {
        Ok(file) => file,
        // Missing (also under a path that is not a directory): created when a run is stored,
        // which reports a path that cannot be.
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(Header::Empty);
        }
        Err(e) => return Err(HistoryError::database(path, format!("cannot open ({e})"))),
    };
    let mut bytes = Vec::with_capacity(100);
    file.by_ref()
        .take(100)
        .read_to_end(&mut bytes)
        .map_err(|e| HistoryError::database(path, format!("cannot read ({e})")))?;
    if bytes.is_empty() {
        return Ok(Header::Empty);
    }
    if bytes.len() < 100 || !bytes.starts_with(MAGIC) {
        return Err(HistoryError::database(path, not_sqlite()));
    }
    // Another application's id, or our id with a newer schema, is refused from the header
    // alone: SQLite never opens the file (a reader of a WAL database creates files beside it).
    let field =
        |at: usize| i32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    check_id(path, field(APPLICATION_ID_OFFSET))?;
    if field(APPLICATION_ID_OFFSET) == APPLICATION_ID {
        check_version(path, i64::from(field(USER_VERSION_OFFSET)))?;
    }
    Ok(Header::Sqlite {
        wal: bytes[WAL_VERSION_OFFSET] == 2,
    })
}

pub fn not_sqlite() -> String {
    format!(
        "not an SQLite database (damaged, or another kind of file); it was left untouched: move \
         it away or pass another {}",
        defs::DB
    )
}

/// What a database holds, by its header fields and schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// No tables and no id: a new database, ours to set up.
    Blank,
    /// A destbench history at this schema version.
    Ours(i64),
}

/// Checks that the database on `conn` is blank or a destbench history this build can read:
/// another application's database or a newer schema is an error, and nothing is written.
pub fn owner(conn: &Connection, path: &Path) -> Result<Owner, HistoryError> {
    let fail = |e: rusqlite::Error| HistoryError::sqlite(path, e);
    let id: i32 = conn
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .map_err(fail)?;
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(fail)?;
    let tables: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
        .map_err(fail)?;
    let has_runs: bool = conn
        .query_row(
            "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'runs'",
            [],
            |r| r.get(0),
        )
        .map_err(fail)?;
    check_id(path, id)?;
    if id == 0 && tables == 0 && version == 0 {
        return Ok(Owner::Blank);
    }
    // Before the id was set, a history was told by its `runs` table and a known version.
    if id == 0 && (!has_runs || version == 0) {
        return Err(foreign(path, "an SQLite database with tables of its own"));
    }
    check_version(path, version)?;
    Ok(Owner::Ours(version))
}

fn foreign(path: &Path, what: &str) -> HistoryError {
    HistoryError::database(
        path,
        format!(
            "{what}, not a destbench history; it was left untouched: pass another {}",
            defs::DB
        ),
    )
}

fn check_id(path: &Path, id: i32) -> Result<(), HistoryError> {
    if id != APPLICATION_ID && id != 0 {
        return Err(foreign(
            path,
            &format!("an SQLite database of another application (application_id {id:#010x})"),
        ));
    }
    Ok(())
}

fn check_version(path: &Path, version: i64) -> Result<(), HistoryError> {
    if version > latest() {
        return Err(HistoryError::database(
            path,
            format!(
                "schema version {version} was written by a newer destbench (this one knows up to \
                 {}); it was left untouched: upgrade destbench",
                latest()
            ),
        ));
    }
    Ok(())
}

/// `error`, or, when the file or its directory cannot be written (a read-only mount, no
/// permission), that: SQLite's own words for it vary ("disk I/O error" when a WAL database
/// cannot create its index).
pub fn read_only_or(path: &Path, error: HistoryError) -> HistoryError {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let denied = [path, dir]
        .into_iter()
        .find_map(|p| platform::check_writable(p).err().map(|e| (p, e)))
        .filter(|(p, e)| *p == dir || e.kind() != std::io::ErrorKind::NotFound);
    match denied {
        Some((p, e)) => HistoryError::database(
            path,
            format!(
                "read-only ({} cannot be written: {})",
                if p == dir {
                    "its directory"
                } else {
                    "the file"
                },
                e
            ),
        ),
        None => error,
    }
}

/// A read-only connection: SQLite will not write the file, nor (in rollback-journal mode)
/// create anything beside it.
pub fn read_only(path: &Path) -> Result<Connection, HistoryError> {
    let fail = |e: rusqlite::Error| HistoryError::sqlite(path, e);
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).map_err(fail)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(fail)?;
    Ok(conn)
}

/// A read-only connection that reads the database file alone, never creating or reading the
/// `-wal` and `-shm` files beside it. Used to check whose a WAL database is before anything is
/// created beside it, and to read a WAL history of an older destbench whose directory is
/// read-only (SQLite cannot create the `-shm` a WAL reader needs): safe there because nobody can
/// write it either, as its `-wal` cannot be created.
pub fn read_only_immutable(path: &Path) -> Result<Connection, HistoryError> {
    let fail = |e: rusqlite::Error| HistoryError::sqlite(path, e);
    let uri = format!("file:{}?immutable=1", uri_path(path));
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    Connection::open_with_flags(uri, flags).map_err(fail)
}

/// True when a non-empty `-wal` file lies beside the database (changes not yet in it).
pub fn has_wal(path: &Path) -> bool {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    std::fs::symlink_metadata(wal).is_ok_and(|m| m.len() > 0)
}

/// `path` percent-encoded for an SQLite `file:` URI (`?`, `#` and `%` would end or change it).
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for &b in crate::platform::path_bytes(path).iter() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Turns a database made by an older destbench from write-ahead logging to a rollback journal.
/// `locking_mode=EXCLUSIVE` first: then SQLite keeps the WAL index in heap memory instead of
/// mapping a `-shm` file (SQLite's documentation of WAL without shared memory), so even this
/// one-time switch cannot fault on a full filesystem. Back to normal locking afterwards so that
/// concurrent runs can share the file.
pub fn leave_wal(conn: &Connection, path: &Path) -> Result<(), HistoryError> {
    let fail = |e: rusqlite::Error| HistoryError::sqlite(path, e);
    let mode: String = conn
        .query_row("PRAGMA locking_mode=EXCLUSIVE", [], |r| r.get(0))
        .map_err(fail)?;
    debug_assert_eq!(mode, "exclusive");
    // Whose it is, read through its `-wal` this time (the first check read the database file
    // alone, so a foreign database whose tables are all still in its WAL looked blank). Until
    // that is known, closing must not checkpoint the WAL into the file.
    let no_checkpoint = |on: bool| {
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, on)
            .map_err(fail)
    };
    no_checkpoint(true)?;
    owner(conn, path)?;
    no_checkpoint(false)?;
    let journal: String = conn
        .query_row("PRAGMA journal_mode=DELETE", [], |r| r.get(0))
        .map_err(fail)?;
    conn.query_row("PRAGMA locking_mode=NORMAL", [], |r| r.get::<_, String>(0))
        .map_err(fail)?;
    // The exclusive lock is released at the next access to the file.
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
        r.get::<_, i64>(0)
    })
    .map_err(fail)?;
    if !journal.eq_ignore_ascii_case("delete") {
        return Err(HistoryError::database(
            path,
            format!("cannot leave write-ahead logging (journal mode stays {journal})"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_paths_are_escaped() {
        assert_eq!(uri_path(Path::new("/a b/c?d#e%")), "/a%20b/c%3Fd%23e%25");
    }
}
