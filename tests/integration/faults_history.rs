//! The history's fault matrix: foreign, newer, corrupt and truncated databases, read-only files
//! and directories, a full filesystem (the SIGBUS case), and concurrent runs on one history.
//! For each case: the exit code, a one-line error, no signal, and the database unchanged (byte
//! for byte) or holding exactly the finished runs. The null engine keeps every run short.
//!
//! Each case is a test of its own (the table at the end): it says what it expected and what
//! it got, and the cases run one at a time.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

use crate::support::{self, destbench, fault_cases};

/// Held by each case while it runs.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// `run` on the null engine: one short block test.
const RUN: &[&str] = &[
    "--engine",
    "null",
    "--tests",
    "seq-write:SEQ1M-Q8T1",
    "--runs",
    "1",
    "--duration",
    "0.05",
    "--size",
    "4MiB",
    "--min-time",
    "0",
];

/// What a command did.
struct Got {
    code: Option<i32>,
    signal: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Got {
    fn of(cmd: &mut Command) -> Got {
        let Output {
            status,
            stdout,
            stderr,
        } = cmd.output().expect("run destbench");
        Got {
            code: status.code(),
            signal: status.signal(),
            stdout: String::from_utf8_lossy(&stdout).into_owned(),
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
        }
    }

    /// "exit 1: <the error>", "SIGNAL 7", or "exit 0".
    fn summary(&self) -> String {
        match (self.code, self.signal) {
            (_, Some(sig)) => format!("SIGNAL {sig}"),
            (Some(code), _) => {
                let last = self.stderr.trim_end().lines().last().unwrap_or("");
                // The problem, without the database's (temporary) path.
                let problem = last.split_once(".sqlite: ").map_or(last, |(_, p)| p);
                let short: String = problem.chars().take(60).collect();
                format!("exit {code}: {short}")
            }
            _ => "no status".into(),
        }
    }

    /// Exited with `code`, no signal, and (for a failure) one line naming the database and
    /// containing `needle`.
    fn check(&self, code: i32, needle: &str) -> Result<(), String> {
        if self.signal.is_some() || self.code != Some(code) {
            return Err(format!("wanted exit {code}; {}", self.stderr.trim_end()));
        }
        if code != 0 {
            let lines: Vec<&str> = self.stderr.trim_end().lines().collect();
            let error = lines.last().copied().unwrap_or("");
            let extra = lines
                .iter()
                .filter(|l| !l.starts_with("destbench: stored") && !l.starts_with("warning"))
                .count();
            if extra != 1 || !error.starts_with("destbench: ") || !error.contains(needle) {
                return Err(format!(
                    "wanted one line with {needle:?}: {}",
                    self.stderr.trim_end()
                ));
            }
        }
        Ok(())
    }
}

/// A temporary directory with a destination and a place for the database.
struct Case {
    dir: tempfile::TempDir,
}

impl Case {
    fn new() -> Case {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("dest")).unwrap();
        std::fs::create_dir(dir.path().join("db")).unwrap();
        std::fs::create_dir(dir.path().join("tmp")).unwrap();
        Case { dir }
    }

    fn db(&self) -> PathBuf {
        self.dir.path().join("db/history.sqlite")
    }

    fn cmd(&self, db: &Path) -> Command {
        let mut cmd = destbench();
        cmd.env("DESTBENCH_DB", db)
            .env("TMPDIR", self.dir.path().join("tmp"));
        cmd
    }

    fn run(&self, db: &Path, extra: &[&str]) -> Got {
        let dest = self.dir.path().join("dest");
        Got::of(self.cmd(db).arg("run").arg(&dest).args(RUN).args(extra))
    }

    fn history(&self, db: &Path) -> Got {
        Got::of(self.cmd(db).args(["history", "--json"]))
    }

    /// The ids `history --json` lists (it must succeed).
    fn ids(&self, db: &Path) -> Result<Vec<i64>, String> {
        let got = self.history(db);
        got.check(0, "")?;
        let list: serde_json::Value =
            serde_json::from_str(&got.stdout).map_err(|e| format!("history --json: {e}"))?;
        let mut ids: Vec<i64> = list["runs"]
            .as_array()
            .ok_or("history --json has no list of runs")?
            .iter()
            .filter_map(|e| e["id"].as_i64())
            .collect();
        ids.sort_unstable();
        Ok(ids)
    }

    /// A history holding `n` finished runs.
    fn with_runs(&self, n: usize) -> Result<(), String> {
        for _ in 0..n {
            self.run(&self.db(), &[]).check(0, "")?;
        }
        Ok(())
    }
}

/// The bytes of every file in the database's directory (the database and anything beside it).
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    support::entries(dir)
        .into_iter()
        .map(|name| {
            let bytes = std::fs::read(dir.join(&name)).unwrap_or_default();
            (name, bytes)
        })
        .collect()
}

fn unchanged(before: &[(String, Vec<u8>)], dir: &Path) -> Result<(), String> {
    let after = snapshot(dir);
    if after != before {
        let names = |s: &[(String, Vec<u8>)]| s.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        return Err(format!(
            "the database's directory changed: {:?} -> {:?} (or their bytes)",
            names(before),
            names(&after)
        ));
    }
    Ok(())
}

/// A file that is not ours must fail `run` (before it measures), `history`, `show`, `compare`
/// and `forget` with one line naming the database and containing `needle`, and stay byte for
/// byte as it was, with nothing created beside it.
fn refused(case: &Case, needle: &str) -> Result<String, String> {
    let db = case.db();
    let dir = db.parent().unwrap();
    let before = snapshot(dir);
    let named = format!("history database {}: ", db.display());
    let refuses = |got: &Got| {
        got.check(1, needle)?;
        got.check(1, &named)?;
        match got.stderr.trim_end().lines().count() {
            1 => Ok(()),
            _ => Err(format!("wanted one line alone: {}", got.stderr)),
        }
    };
    let run = case.run(&db, &[]);
    refuses(&run)?;
    if !support::entries(&case.dir.path().join("dest")).is_empty() {
        return Err("the run started".into());
    }
    for args in [
        &["history"][..],
        &["show", "1"],
        &["compare", "1", "2"],
        &["forget", "1"],
    ] {
        refuses(&Got::of(case.cmd(&db).args(args)))?;
    }
    unchanged(&before, dir)?;
    Ok(format!("{}; file unchanged", run.summary()))
}

/// A database another application made with `sql` (after `pragmas`).
fn foreign(case: &Case, pragmas: &str, sql: &str) {
    let conn = rusqlite::Connection::open(case.db()).unwrap();
    conn.execute_batch(pragmas).unwrap();
    conn.execute_batch(sql).unwrap();
}

/// Another application's tables; in WAL mode (`wal`) a reader would create `-wal` and `-shm`
/// beside it.
fn foreign_tables(case: &Case, wal: bool) -> Result<String, String> {
    foreign(
        case,
        if wal {
            "PRAGMA journal_mode=WAL;"
        } else {
            "PRAGMA journal_mode=DELETE;"
        },
        "CREATE TABLE photos (name TEXT); INSERT INTO photos VALUES ('cat.jpg');",
    );
    refused(case, "not a destbench history")
}

/// Another application's id, even with a table called `runs`.
fn foreign_application_id(case: &Case) -> Result<String, String> {
    foreign(
        case,
        "PRAGMA application_id=1234; PRAGMA user_version=1;",
        "CREATE TABLE runs (x);",
    );
    refused(case, "another application (application_id 0x000004d2)")
}

fn newer_version(case: &Case) -> Result<String, String> {
    case.with_runs(1)?;
    rusqlite::Connection::open(case.db())
        .unwrap()
        .pragma_update(None, "user_version", destbench::latest_schema_version() + 1)
        .unwrap();
    refused(case, "newer destbench")
}

fn not_sqlite(case: &Case) -> Result<String, String> {
    std::fs::write(case.db(), b"my shopping list\n".repeat(300)).unwrap();
    refused(case, "not an SQLite database")
}

/// A valid header, every page after it overwritten.
fn corrupt(case: &Case) -> Result<String, String> {
    case.with_runs(2)?;
    let mut bytes = std::fs::read(case.db()).unwrap();
    for (i, b) in bytes.iter_mut().enumerate().skip(100) {
        *b = (i * 7 % 251) as u8;
    }
    std::fs::write(case.db(), &bytes).unwrap();
    refused(case, "damaged")
}

/// Cut to its first page: the header promises pages that are not there.
fn truncated(case: &Case) -> Result<String, String> {
    case.with_runs(2)?;
    let bytes = std::fs::read(case.db()).unwrap();
    std::fs::write(case.db(), &bytes[..4096.min(bytes.len())]).unwrap();
    refused(case, "damaged")
}

/// Cut inside the header: not even SQLite's magic is whole.
fn truncated_header(case: &Case) -> Result<String, String> {
    case.with_runs(1)?;
    let bytes = std::fs::read(case.db()).unwrap();
    std::fs::write(case.db(), &bytes[..40]).unwrap();
    refused(case, "not an SQLite database")
}

/// `history` and `show` answer from a read-only place; `run` measures, prints, and fails to
/// store with one line, its JSON document still on stdout; nothing changes.
fn read_only_answers(case: &Case, db: &Path, runs: usize) -> Result<String, String> {
    let dir = db.parent().unwrap();
    let before = snapshot(dir);
    let ids = case.ids(db)?;
    if ids.len() != runs {
        return Err(format!("history lists {ids:?}, wanted {runs} runs"));
    }
    Got::of(case.cmd(db).args(["show", "1"])).check(0, "")?;
    let run = case.run(db, &["--json"]);
    run.check(1, "read-only")?;
    if !run
        .stderr
        .contains("the run was not stored (its JSON report is on stdout)")
    {
        return Err(format!("no word of the report: {}", run.stderr));
    }
    let doc: serde_json::Value =
        serde_json::from_str(&run.stdout).map_err(|e| format!("stdout is not the report: {e}"))?;
    if doc["schema"] != "destbench.run/2" {
        return Err("stdout is not the report".into());
    }
    unchanged(&before, dir)?;
    Ok(format!("history ok; run {}", run.summary()))
}

/// A filesystem mounted for one case (a small tmpfs, a read-only bind mount), unmounted on
/// drop, also when the case fails.
struct Mounted {
    path: PathBuf,
}

impl Mounted {
    fn new(at: &Path, steps: &[&[&str]]) -> Mounted {
        std::fs::create_dir_all(at).unwrap();
        let mounted = Mounted {
            path: at.to_path_buf(),
        };
        for args in steps {
            let ok = Command::new("mount")
                .args(*args)
                .arg(at)
                .status()
                .is_ok_and(|s| s.success());
            assert!(ok, "mount {args:?} {}", at.display());
        }
        mounted
    }

    /// `source` bind-mounted read-only at `at`: root's permissions cannot write through it.
    fn read_only(source: &Path, at: &Path) -> Mounted {
        Mounted::new(
            at,
            &[
                &["--bind", source.to_str().unwrap()],
                &["-o", "remount,bind,ro"],
            ],
        )
    }

    fn tmpfs(at: &Path, size: &str) -> Mounted {
        Mounted::new(
            at,
            &[&["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"]],
        )
    }

    /// Fills it up but for `left` bytes.
    fn fill(&self, left: u64) {
        let _ = std::fs::remove_file(self.path.join("filler"));
        let stat = rustix::fs::statvfs(&self.path).unwrap();
        let free = stat.f_bavail * stat.f_frsize;
        std::fs::write(
            self.path.join("filler"),
            vec![1u8; free.saturating_sub(left) as usize],
        )
        .unwrap();
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.path).status();
    }
}

/// Switches the history at `db` to write-ahead logging.
fn to_wal(db: &Path) {
    rusqlite::Connection::open(db)
        .unwrap()
        .query_row("PRAGMA journal_mode=WAL", [], |r| r.get::<_, String>(0))
        .unwrap();
}

/// A history in a read-only directory; with `wal`, one of an earlier destbench (write-ahead
/// logging), whose reader cannot create its `-shm` there.
fn read_only_directory(case: &Case, wal: bool) -> Result<String, String> {
    case.with_runs(2)?;
    if wal {
        to_wal(&case.db());
    }
    let ro = Mounted::read_only(case.db().parent().unwrap(), &case.dir.path().join("ro"));
    read_only_answers(case, &ro.path.join("history.sqlite"), 2)
}

/// A read-only file in a writable directory, destbench run without root's power to write it.
fn read_only_file(case: &Case) -> Result<String, String> {
    use std::os::unix::fs::PermissionsExt;
    case.with_runs(1)?;
    std::fs::set_permissions(case.db(), std::fs::Permissions::from_mode(0o444)).unwrap();
    let db = case.db();
    let before = snapshot(db.parent().unwrap());
    let no_override = |args: &[&str]| {
        let mut cmd = support::destbench_setpriv(&[
            "--bounding-set=-dac_override,-dac_read_search",
            "--inh-caps=-all",
        ]);
        cmd.env("DESTBENCH_DB", &db)
            .env("TMPDIR", case.dir.path().join("tmp"))
            .args(args);
        Got::of(&mut cmd)
    };
    let listed = no_override(&["history"]);
    listed.check(0, "")?;
    no_override(&["show", "1"]).check(0, "")?;
    let dest = case.dir.path().join("dest");
    let mut args = vec!["run", dest.to_str().unwrap()];
    args.extend(RUN);
    let run = no_override(&args);
    run.check(1, "read-only")?;
    // Without --json the document is saved in the temp directory the message names.
    let saved = run
        .stderr
        .split("its JSON report is in ")
        .nth(1)
        .and_then(|s| s.trim_end().strip_suffix(')'))
        .ok_or_else(|| format!("no saved report named: {}", run.stderr))?;
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(saved).unwrap_or_default())
        .map_err(|e| format!("{saved}: {e}"))?;
    if doc["schema"] != "destbench.run/2" || !run.stdout.contains("SEQ1M-Q8T1") {
        return Err("the report was neither printed nor saved".into());
    }
    unchanged(&before, db.parent().unwrap())?;
    Ok(format!("history ok; run {}; report saved", run.summary()))
}

/// The history's filesystem full, or nearly (0 to 64 KiB left, where WAL's mapped `-shm`
/// used to fault): no `-shm` is ever created (so nothing mapped can fault), never a signal; the run is stored (exit 0) or refused in one line with its
/// report kept (exit 1); the history then holds exactly the stored runs and still answers.
fn full_disk(case: &Case, wal: bool) -> Result<String, String> {
    let fs = Mounted::tmpfs(&case.dir.path().join("small"), "1m");
    let db = fs.path.join("history.sqlite");
    let mut outcomes = Vec::new();
    for left in [0u64, 4096, 8192, 16384, 32768, 65536] {
        let _ = std::fs::remove_file(fs.path.join("filler"));
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
        }
        case.run(&db, &[]).check(0, "")?;
        if wal {
            to_wal(&db);
        }
        fs.fill(left);
        let run = case.run(&db, &[]);
        let stored = match run.code {
            Some(0) if run.signal.is_none() => 2,
            _ => {
                run.check(1, "full")?;
                if !run.stderr.contains("not stored") || !run.stdout.contains("SEQ1M-Q8T1") {
                    return Err(format!("left {left}: report lost: {}", run.stderr));
                }
                1
            }
        };
        // The robust part: no `-shm` was made, so nothing was mapped that could fault.
        let shm = PathBuf::from(format!("{}-shm", db.display()));
        if shm.exists() {
            return Err(format!("left {left}: a -shm file was created"));
        }
        let ids = case.ids(&db)?;
        if ids.len() != stored {
            return Err(format!(
                "left {left}: history holds {ids:?} after {}",
                run.summary()
            ));
        }
        outcomes.push(if stored == 2 { "stored" } else { "refused" });
    }
    Ok(format!("no signal; {}", outcomes.join(",")))
}

/// A run in which every test failed (a real engine writing its test file on a full tmpfs) is
/// not stored: the history keeps exactly the runs it had.
fn every_test_failed(case: &Case) -> Result<String, String> {
    case.with_runs(1)?;
    let full = Mounted::tmpfs(&case.dir.path().join("full"), "1m");
    let run = Got::of(
        case.cmd(&case.db())
            .arg("run")
            .arg(&full.path)
            .args([
                "--engine",
                "sync",
                "--no-space-check",
                "--tests",
                "seq-write:SEQ1M-Q1T1",
            ])
            .args(["--size", "8MiB", "--runs", "1", "--duration", "0.1"]),
    );
    run.check(1, "not stored in the history: every test failed")?;
    if !run.stdout.contains("the test file could not be written") {
        return Err(format!("not the failure meant: {}", run.stdout));
    }
    let ids = case.ids(&case.db())?;
    if ids != [1] {
        return Err(format!("history holds {ids:?}"));
    }
    Ok(format!("{}; history still [1]", run.summary()))
}

/// A label carrying escape sequences is listed by `history` and `show` with them escaped.
fn hostile_label(case: &Case) -> Result<String, String> {
    case.run(
        &case.db(),
        &["--label", "usb\u{1b}[2J\u{1b}]0;pwned\u{7}\nfake row"],
    )
    .check(0, "")?;
    for args in [
        &["history"][..],
        &["show", "1"],
        &["export", "1", "--format", "md"],
    ] {
        let got = Got::of(case.cmd(&case.db()).args(args));
        got.check(0, "")?;
        if got.stdout.contains(['\u{1b}', '\u{7}']) || !got.stdout.contains("usb\\u{1b}[2J") {
            return Err(format!("{args:?} printed it raw: {:?}", got.stdout));
        }
    }
    Ok("escaped in history, show, export md".into())
}

/// Eight runs finishing at once on one new history (its creation races too), with readers
/// listing it meanwhile: every run lands once, with all its samples.
fn concurrent(case: &Case) -> Result<String, String> {
    let db = case.db();
    let dest = case.dir.path().join("dest");
    let writers: Vec<_> = (0..8)
        .map(|i| {
            case.cmd(&db)
                .arg("run")
                .arg(&dest)
                .args(RUN)
                .args(["--label", &format!("writer {i}")])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut reads = 0;
    for _ in 0..5 {
        let got = case.history(&db);
        // Before the first run lands there is nothing to list, which is not an error either.
        got.check(0, "")?;
        reads += 1;
    }
    for child in writers {
        let out = child.wait_with_output().unwrap();
        if !out.status.success() {
            return Err(format!(
                "a writer failed: {:?} {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    let ids = case.ids(&db)?;
    if ids != (1..=8).collect::<Vec<_>>() {
        return Err(format!("stored ids {ids:?}"));
    }
    let list = case.history(&db).stdout;
    for i in 0..8 {
        if list.matches(&format!("\"writer {i}\"")).count() != 1 {
            return Err(format!("writer {i} not stored exactly once"));
        }
    }
    // Every run whole: each holds as many samples as the others (one run's worth), none lost.
    let per_run: Vec<i64> = rusqlite::Connection::open(&db)
        .unwrap()
        .prepare("SELECT count(samples.run_id) FROM runs LEFT JOIN samples ON samples.run_id = runs.id GROUP BY runs.id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    if per_run.len() != 8 || per_run.iter().any(|&n| n == 0 || n != per_run[0]) {
        return Err(format!("samples per run {per_run:?}"));
    }
    Ok(format!("8 stored, {reads} reads ok"))
}

/// A case's outcome: printed as "case: got", or the test fails saying what was expected.
fn check(case: &str, expected: &str, got: Result<String, String>) {
    match got {
        Ok(got) => println!("{case}: {got}"),
        Err(why) => panic!("{case}: expected {expected}; {why}"),
    }
}

/// Root: mounts, and runs without root's power to write.
fn root() -> bool {
    support::require_root_and(&["mount", "umount", "setpriv"])
}

fault_cases! {
    ONE_AT_A_TIME;
    foreign_tables_are_refused: true =>
        check("foreign tables", "exit 1, refused, untouched", foreign_tables(&Case::new(), false));
    foreign_wal_is_refused: true =>
        check("foreign, WAL", "exit 1, refused, nothing beside", foreign_tables(&Case::new(), true));
    foreign_application_id_is_refused: true =>
        check("foreign app id", "exit 1, refused, untouched", foreign_application_id(&Case::new()));
    newer_version_is_refused: true =>
        check("newer version", "exit 1, refused, untouched", newer_version(&Case::new()));
    not_sqlite_is_refused: true =>
        check("not SQLite", "exit 1, refused, untouched", not_sqlite(&Case::new()));
    corrupt_pages_are_damaged: true =>
        check("corrupt pages", "exit 1, damaged, untouched", corrupt(&Case::new()));
    truncated_is_damaged: true =>
        check("truncated", "exit 1, damaged, untouched", truncated(&Case::new()));
    truncated_header_is_refused: true =>
        check("truncated header", "exit 1, refused, untouched", truncated_header(&Case::new()));
    concurrent_runs_all_land: true =>
        check("concurrent 8 runs", "all 8 stored once", concurrent(&Case::new()));
    hostile_label_is_escaped: true =>
        check("hostile label", "control chars escaped", hostile_label(&Case::new()));
    read_only_directory_answers: root() =>
        check("read-only dir", "reads ok; run exit 1, JSON out", read_only_directory(&Case::new(), false));
    read_only_directory_wal_answers: root() =>
        check("read-only dir, WAL", "reads ok; run exit 1, JSON out", read_only_directory(&Case::new(), true));
    read_only_file_answers: root() =>
        check("read-only file", "reads ok; run exit 1, saved", read_only_file(&Case::new()));
    full_disk_never_signals: root() =>
        check("full disk", "no signal; exit 0 or 1", full_disk(&Case::new(), false));
    full_disk_wal_never_signals: root() =>
        check("full disk, WAL", "no signal; exit 0 or 1", full_disk(&Case::new(), true));
    every_test_failed_is_not_stored: root() =>
        check("every test failed", "exit 1, not stored", every_test_failed(&Case::new()));
}
