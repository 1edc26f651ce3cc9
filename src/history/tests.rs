//! The store and the comparison model, on temporary databases. Foreign, damaged and concurrently
//! written databases, as the commands meet them, are the fault matrix's
//! (`tests/integration/faults_history.rs`).

use std::path::Path;

use super::open::APPLICATION_ID;
use super::*;
use crate::results::RunDocument;

/// A run document as an older or partial writer might have made it, read leniently.
fn doc(label: &str, results: serde_json::Value) -> RunDocument {
    serde_json::from_value(serde_json::json!({
        "schema": "destbench.run/1",
        "destbench_version": "0.1.0",
        "destination": { "path": "/mnt/backup" },
        "settings": { "profile": "quick", "runs": 3, "seed": 7, "label": label },
        "started_unix_s": 1_800_000_000,
        "results": results,
        "warnings": ["a run warning"],
    }))
    .unwrap()
}

pub(crate) fn result(test: &str, variant: &str, samples: &[f64]) -> serde_json::Value {
    let median = crate::stats::median(samples);
    serde_json::json!({
        "test": test, "variant": variant, "unit": "MB/s", "median": median,
        "samples": samples, "method": "null", "engine": "null", "warnings": ["w"]
    })
}

fn env() -> Environment {
    Environment {
        host: Some("box".into()),
        destbench_version: "0.1.0".into(),
        filesystem: Filesystem {
            fs_uuid: Some("1234-ABCD".into()),
            ..Filesystem::default()
        },
        ..Environment::default()
    }
}

fn count(path: &Path, table: &str) -> i64 {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

/// A new, empty store in a temporary directory (kept alive by the first value), and its path.
fn new_store() -> (tempfile::TempDir, std::path::PathBuf, Store) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    let store = Store::open(&path).unwrap();
    (dir, path, store)
}

#[test]
fn migrates_a_new_path_and_an_empty_file_and_reopens() {
    let dir = tempfile::tempdir().unwrap();
    let fresh = dir.path().join("nested/dir/history.sqlite");
    let store = Store::open(&fresh).unwrap();
    assert_eq!(store.schema_version().unwrap(), latest_schema_version());
    drop(store);
    assert_eq!(
        Store::open(&fresh).unwrap().schema_version().unwrap(),
        latest_schema_version()
    );

    let empty = dir.path().join("empty.sqlite");
    std::fs::write(&empty, b"").unwrap();
    let store = Store::open(&empty).unwrap();
    assert_eq!(store.schema_version().unwrap(), latest_schema_version());
    let mode: String = rusqlite::Connection::open(&empty)
        .unwrap()
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "delete", "a rollback journal: no -shm to map");
    assert!(
        Store::open_existing(&dir.path().join("absent"))
            .unwrap()
            .is_none()
    );
}

#[test]
fn stores_lists_gets_and_forgets() {
    let (_dir, path, mut store) = new_store();
    let first = store
        .insert(
            &doc(
                "usb2",
                serde_json::json!([
                    result("seq-write", "20-100MB", &[30.0, 31.0, 32.0]),
                    result("seq-write", "SEQ1M-Q8T1", &[35.0, 36.0, 37.0]),
                    result("seq-read", "20-100MB", &[40.0, 41.0, 42.0]),
                ]),
            ),
            &env(),
        )
        .unwrap();
    let second = store
        .insert(
            &doc(
                "sata",
                serde_json::json!([result("seq-read", "20-100MB", &[400.0, 410.0])]),
            ),
            &env(),
        )
        .unwrap();
    assert!(second > first);
    assert_eq!(store.sample_count(first).unwrap(), 9);

    let list = store.list().unwrap();
    assert_eq!(
        list.iter().map(|e| e.id).collect::<Vec<_>>(),
        vec![second, first]
    );
    assert_eq!(list[1].label.as_deref(), Some("usb2"));
    assert_eq!(
        list[1].sequential.seq_write_mb_s,
        Some(36.0),
        "SEQ1M-Q8T1 is the headline"
    );
    assert_eq!(
        list[1].sequential.seq_read_mb_s,
        Some(41.0),
        "else 20-100MB"
    );
    assert_eq!(list[0].sequential.seq_write_mb_s, None);

    let record = store.get(first).unwrap();
    assert_eq!(record.name(), "usb2");
    assert_eq!(
        record.environment.filesystem.fs_uuid.as_deref(),
        Some("1234-ABCD")
    );
    assert_eq!(record.run.results.len(), 3);
    // A warning of a document written before warnings had kinds is stored with kind "other".
    assert_eq!(
        record.document["warnings"][0],
        serde_json::json!({"kind": "other", "message": "a run warning"})
    );

    store.forget(first).unwrap();
    assert!(matches!(
        store.get(first),
        Err(HistoryError::UnknownRun { .. })
    ));
    assert!(matches!(
        store.forget(first),
        Err(HistoryError::UnknownRun { .. })
    ));
    drop(store);
    assert_eq!(
        count(&path, "samples"),
        2,
        "the forgotten run's samples went with it"
    );
    assert_eq!(count(&path, "warnings"), 2);
    // AUTOINCREMENT: a forgotten id is not reused.
    let mut store = Store::open(&path).unwrap();
    let third = store
        .insert(&doc("x", serde_json::json!([])), &env())
        .unwrap();
    assert!(third > second);
}

#[test]
fn a_failure_midway_stores_nothing() {
    let (_dir, path, mut store) = new_store();
    // Make the database itself fail on the second result's samples, after the run row and the
    // first result are already written inside the transaction.
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch(
            "CREATE TRIGGER fail_midway BEFORE INSERT ON samples WHEN NEW.value = 666
             BEGIN SELECT RAISE(ABORT, 'simulated failure'); END",
        )
        .unwrap();
    let bad = doc(
        "bad",
        serde_json::json!([
            result("seq-write", "20-100MB", &[1.0, 2.0]),
            result("seq-read", "20-100MB", &[3.0, 666.0]),
        ]),
    );
    let err = store.insert(&bad, &env()).unwrap_err().to_string();
    assert!(err.contains("simulated failure"), "{err}");
    drop(store);
    for table in ["runs", "results", "samples", "warnings"] {
        assert_eq!(
            count(&path, table),
            0,
            "{table} has rows from a failed insert"
        );
    }
}

pub(crate) fn record(id: i64, label: &str, results: serde_json::Value) -> RunRecord {
    let run = doc(label, results);
    RunRecord {
        id,
        stored_unix_s: 0,
        environment: env(),
        document: serde_json::to_value(&run).unwrap(),
        run,
    }
}

#[test]
fn compare_gives_ratios_against_the_first_and_significance() {
    let base = record(
        1,
        "usb2",
        serde_json::json!([
            result("seq-write", "20-100MB", &[30.0, 31.0, 32.0]),
            result("seq-read", "20-100MB", &[40.0, 41.0, 42.0]),
        ]),
    );
    let faster = record(
        2,
        "",
        serde_json::json!([
            result("seq-write", "20-100MB", &[300.0, 310.0, 320.0]),
            result("seq-read", "20-100MB", &[39.0, 41.5, 43.0]),
            result("4k-write", "RND4K-Q1T1", &[5.0, 5.0]),
        ]),
    );
    let cmp = compare::compare(&[base, faster]);
    assert_eq!(cmp.runs[0].name, "usb2");
    assert_eq!(
        cmp.runs[1].name, "run 2",
        "an empty label falls back to the id"
    );
    let tests: Vec<&str> = cmp.groups.iter().map(|g| g.test.as_str()).collect();
    assert_eq!(tests, ["seq-write", "seq-read", "4k-write"]);

    let write = &cmp.groups[0].rows[0];
    assert!(write.cells[0].as_ref().unwrap().ratio.is_none());
    let cell = write.cells[1].as_ref().unwrap();
    assert!((cell.ratio.unwrap() - 10.0).abs() < 1e-12);
    assert!(cell.significance.unwrap().is_real());
    assert_eq!(cell.verdict.as_deref(), Some("real (p<0.001)"));

    let read = cmp.groups[1].rows[0].cells[1].as_ref().unwrap();
    assert!((read.ratio.unwrap() - 41.5 / 41.0).abs() < 1e-12);
    assert!(!read.significance.unwrap().is_real());
    assert!(
        read.verdict
            .as_deref()
            .unwrap()
            .starts_with("no real difference (p=0.")
    );

    let only_second = &cmp.groups[2].rows[0];
    assert!(only_second.cells[0].is_none());
    let cell = only_second.cells[1].as_ref().unwrap();
    assert!(cell.ratio.is_none() && cell.significance.is_none());
}

/// Stores `document` as run `id`'s, as another version of destbench would have written it.
fn overwrite(path: &Path, id: i64, document: &serde_json::Value) {
    rusqlite::Connection::open(path)
        .unwrap()
        .execute(
            "UPDATE runs SET document = ?1 WHERE id = ?2",
            rusqlite::params![document.to_string(), id],
        )
        .unwrap();
}

#[test]
fn a_document_of_another_version_loads_and_exports_verbatim() {
    let (_dir, path, mut store) = new_store();
    let id = store
        .insert(&doc("now", serde_json::json!([])), &env())
        .unwrap();
    // A newer destbench's document: a field and a test this version does not know.
    let future = serde_json::json!({
        "schema": "destbench.run/3",
        "destination": { "path": "/mnt/nas" },
        "settings": { "profile": "overnight", "label": "future" },
        "results": [
            { "test": "seq-write", "variant": "SEQ1M-Q8T1", "median": 100.0, "samples": [100.0],
              "method": "direct", "engine": "uring", "energy_joules": 12.5 },
            { "test": "dedup", "variant": "x", "median": 1.0, "method": "direct", "engine": "sync" }
        ],
        "power": { "watts": 5.0 }
    });
    overwrite(&path, id, &future);
    let record = store.get(id).unwrap();
    assert_eq!(record.name(), "future");
    assert_eq!(record.run.results.len(), 1, "the unknown test is left out");
    assert_eq!(record.run.results[0].median, 100.0);
    assert_eq!(record.document, future, "kept verbatim for exports");
}

#[test]
fn a_stored_run_with_a_chain_of_text_facts_loads_its_chain() {
    let (_dir, path, mut store) = new_store();
    let id = store
        .insert(&doc("old", serde_json::json!([])), &env())
        .unwrap();
    // A run document written before chain facts were typed (destbench.chain/1's facts).
    let mut old = serde_json::to_value(&store.get(id).unwrap().run).unwrap();
    old["chain"] = serde_json::json!({
        "path": "Z:\\", "notes": [],
        "root": { "kind": "mount", "label": "NTFS at Z:\\", "bandwidth": { "state": "none" },
                  "facts": [ { "key": "filesystem", "value": "NTFS", "source": "a query" },
                             { "key": "signed", "value": "yes", "source": "Get-SmbConnection" } ],
                  "children": [] }
    });
    overwrite(&path, id, &old);
    let chain = store
        .get(id)
        .unwrap()
        .run
        .chain
        .expect("the old chain loads");
    assert_eq!(chain.filesystem(), Some("NTFS"));
    let signed = &chain.root.facts[1];
    assert_eq!(signed.value, crate::probe::Value::Signing(true));
}

/// A database in write-ahead logging mode, made by `sql`; its connection still open.
fn wal_database(path: &Path, sql: &str) -> rusqlite::Connection {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get::<_, String>(0))
        .unwrap();
    conn.execute_batch(sql).unwrap();
    conn
}

/// A history made by an older destbench (write-ahead logging, no application id) is read as it
/// is, and switched to a rollback journal and marked as ours when next written.
#[test]
fn an_older_wal_history_is_read_then_adopted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.sqlite");
    wal_database(&path, super::migrations::MIGRATIONS[0].1)
        .pragma_update(None, "user_version", 1)
        .unwrap();
    let pragma = |name: &str| -> String {
        rusqlite::Connection::open(&path)
            .unwrap()
            .query_row(&format!("PRAGMA {name}"), [], |r| {
                r.get::<_, rusqlite::types::Value>(0)
            })
            .map(|v| format!("{v:?}"))
            .unwrap()
    };
    assert!(
        Store::open_existing(&path)
            .unwrap()
            .unwrap()
            .list()
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        pragma("application_id"),
        "Integer(0)",
        "a reader changed it"
    );
    let mut store = Store::open(&path).unwrap();
    store
        .insert(&doc("old", serde_json::json!([])), &env())
        .unwrap();
    drop(store);
    assert_eq!(pragma("journal_mode"), "Text(\"delete\")");
    assert_eq!(
        pragma("application_id"),
        format!("Integer({})", APPLICATION_ID)
    );
}

/// Another application's WAL database whose tables are still only in its `-wal` (its writer
/// died before a checkpoint): refused by the check that reads through the WAL, and its file is
/// not switched out of WAL.
#[test]
fn a_foreign_database_with_its_tables_in_the_wal_is_refused_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live.sqlite");
    let app = wal_database(
        &live,
        "PRAGMA wal_autocheckpoint=0; CREATE TABLE photos (name TEXT);",
    );
    // The files as a crash would leave them: the database and its WAL, no index.
    let path = dir.path().join("app.sqlite");
    std::fs::copy(&live, &path).unwrap();
    std::fs::copy(
        dir.path().join("live.sqlite-wal"),
        dir.path().join("app.sqlite-wal"),
    )
    .unwrap();
    drop(app);
    let before = std::fs::read(&path).unwrap();
    let err = Store::open(&path).err().expect("refused").to_string();
    assert!(err.contains("not a destbench history"), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), before, "the file changed");
}

#[test]
fn a_damaged_document_is_listed_without_its_figures() {
    let (_dir, path, mut store) = new_store();
    let seq = result("seq-write", "SEQ1M-Q8T1", &[35.0, 36.0, 37.0]);
    let damaged = store
        .insert(&doc("damaged", serde_json::json!([seq.clone()])), &env())
        .unwrap();
    let whole = store
        .insert(&doc("whole", serde_json::json!([seq])), &env())
        .unwrap();
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute("UPDATE runs SET document = '{' WHERE id = ?1", [damaged])
        .unwrap();
    let list = store.list().unwrap();
    let figures = |id| {
        let e = list.iter().find(|e| e.id == id).unwrap();
        (
            e.sequential.seq_write_mb_s,
            e.sequential.headline_variant.clone(),
        )
    };
    assert_eq!(figures(damaged), (None, None));
    assert_eq!(figures(whole), (Some(36.0), Some("SEQ1M-Q8T1".into())));
}

/// A record of run `id` whose chain's disk (serial `serial`) reports `pending` pending sectors.
fn record_of_disk(id: i64, serial: &str, pending: u64) -> RunRecord {
    use crate::probe::{Chain, Node, NodeKind, Value};
    let mut r = record(
        id,
        "",
        serde_json::json!([result("seq-write", "20-100MB", &[30.0, 31.0])]),
    );
    let mut disk = Node::new(NodeKind::Disk, "disk sdb");
    disk.fact(Value::Serial(serial.into()), "udev");
    disk.fact(Value::PendingSectors(pending), "smartctl");
    disk.fact(Value::ReallocatedSectors(0), "smartctl");
    let mut mount = Node::new(NodeKind::Mount, "/mnt/backup");
    mount.children.push(disk);
    r.run.chain = Some(Chain::with_declared(
        Path::new("/mnt/backup"),
        mount,
        Vec::new(),
        None,
    ));
    r
}

#[test]
fn compare_shows_a_disks_health_that_changed_and_only_for_the_same_disk() {
    let runs = [
        record_of_disk(1, "WD-WX1", 0),
        record_of_disk(2, "WD-WX1", 8),
        record_of_disk(3, "OTHER", 99),
    ];
    let cmp = compare::compare(&runs);
    assert_eq!(cmp.health_changed, ["pending sectors: [1] 0, [2] 8"]);
    let same = compare::compare(&[record_of_disk(1, "A", 0), record_of_disk(2, "A", 0)]);
    assert!(same.health_changed.is_empty(), "{:?}", same.health_changed);
    let text = crate::report::terminal::history::compare(&cmp);
    assert!(
        text.contains(
            "the disk's health changed between the runs:\n  - pending sectors: [1] 0, [2] 8"
        ),
        "{text}"
    );
}
