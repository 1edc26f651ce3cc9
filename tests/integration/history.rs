//! History: runs on the null engine stored in a temporary database, read back by `history`,
//! `show`, `compare`, `export` (snapshots) and `forget`. Foreign, damaged and concurrently written
//! databases are the fault matrix's (`faults_history.rs`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::{destbench, each, exits};

/// A temporary destination and history database.
pub struct Fixture {
    pub dir: tempfile::TempDir,
}

impl Fixture {
    pub fn new() -> Fixture {
        Fixture {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    pub fn db(&self) -> PathBuf {
        self.dir.path().join("data/history.sqlite")
    }

    pub fn dest(&self) -> &Path {
        self.dir.path()
    }

    pub fn cmd(&self) -> Command {
        let mut cmd = destbench();
        cmd.env("DESTBENCH_DB", self.db());
        cmd
    }

    /// `run DEST --engine null --json FLAGS` (flags split at spaces), not yet started.
    pub fn null_json_run(&self, flags: &str) -> Command {
        let mut cmd = self.cmd();
        cmd.args([
            "run",
            self.dest().to_str().unwrap(),
            "--engine",
            "null",
            "--json",
        ])
        .args(flags.split_whitespace());
        cmd
    }

    /// A null-engine run with a fixed seed; `extra` adds flags (a label, a duration).
    pub fn run(&self, extra: &[&str]) -> Output {
        let duration: &[&str] = if extra.contains(&"--duration") {
            &[]
        } else {
            &["--duration", "0.5"]
        };
        let mut cmd = self.cmd();
        cmd.args(["run", self.dest().to_str().unwrap(), "--engine", "null"])
            .args(["--runs", "2", "--size", "16MiB", "--seed", "1"])
            .args(duration)
            .args(if extra.contains(&"--tests") {
                &[][..]
            } else {
                &["--tests", "seq-write,tm-check"][..]
            })
            .args(extra);
        exits(&mut cmd, 0).0
    }

    /// Runs a history command that must succeed; returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let (out, _) = exits(self.cmd().args(args), 0);
        String::from_utf8(out.stdout).unwrap()
    }

    pub fn ids(&self) -> Vec<i64> {
        let list: serde_json::Value =
            serde_json::from_str(&self.ok(&["history", "--json"])).unwrap();
        assert_eq!(list["schema"], "destbench.history/1");
        each(&list["runs"], "id", serde_json::Value::as_i64)
    }
}

/// Fails a command and returns its one-line stderr.
fn fails(cmd: &mut Command, code: i32) -> String {
    let (_, stderr) = exits(cmd, code);
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(
        stderr.starts_with("destbench: ") && !stderr.contains("panicked"),
        "{stderr}"
    );
    stderr
}

/// Replaces what differs between machines and runs: timestamps, the temp dir, the host, the
/// machine's storage chain.
fn redact(value: &mut serde_json::Value, dir: &str) {
    const VOLATILE: &[&str] = &[
        "started_unix_s",
        "stored_unix_s",
        "duration_s",
        "cpu_s",
        "host",
        "kernel",
        "fs_type",
        "fs_uuid",
        "device",
        "device_model",
        "device_serial",
        "destbench_version",
        "peak_rss_bytes",
        // The run's time account: wall-clock seconds of its untimed work.
        "time",
        // The chain and the verdict describe this machine's disks and mounts; the answer its
        // home volume.
        "chain",
        "verdict",
        "answer",
    ];
    match value {
        serde_json::Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if VOLATILE.contains(&key.as_str()) {
                    *v = "[redacted]".into();
                } else {
                    redact(v, dir);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(|v| redact(v, dir)),
        serde_json::Value::String(s) => *s = s.replace(dir, "[DIR]"),
        _ => {}
    }
}

/// Two labelled runs that differ only in the block duration (so the write figures differ).
fn two_runs(f: &Fixture) -> (String, String) {
    f.run(&["--label", "half second"]);
    f.run(&["--label", "one | second", "--duration", "1"]);
    let ids = f.ids();
    (ids[1].to_string(), ids[0].to_string())
}

#[test]
fn every_run_is_stored_and_listed_newest_first() {
    let f = Fixture::new();
    assert!(!f.db().exists());
    let out = f.run(&["--label", "first"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("stored as run 1 in "), "{stderr}");
    assert!(
        f.db().exists(),
        "the database and its directory are created"
    );
    f.run(&["--no-history"]);
    f.run(&["--label", "second"]);
    let list: serde_json::Value = serde_json::from_str(&f.ok(&["history", "--json"])).unwrap();
    let list = &list["runs"];
    let labels: Vec<&str> = each(list, "label", serde_json::Value::as_str);
    assert_eq!(labels, ["second", "first"], "--no-history stored nothing");
    assert_eq!(f.ids(), [2, 1]);
    // The headline: seq-write SEQ1M-Q8T1 on the null engine, 8 x 5000 MiB per 0.501 s.
    let expected = 8.0 * 5000.0 * 1_048_576.0 / 0.501 / 1e6;
    let headline = list[0]["seq_write_mb_s"].as_f64().unwrap();
    assert!(
        (headline - expected).abs() < 1e-6 * expected,
        "{headline} vs {expected}"
    );

    let table = f.ok(&["history"]);
    assert!(
        table.lines().next().unwrap().starts_with("id  date"),
        "{table}"
    );
    assert!(
        table.contains("second") && table.contains(&format!("{expected:.2}")),
        "{table}"
    );

    let shown = f.ok(&["show", "1"]);
    assert!(shown.starts_with("run 1: first\n"), "{shown}");
    assert!(
        shown.contains("SEQ1M-Q8T1") && shown.contains("50MB"),
        "{shown}"
    );

    f.ok(&["forget", "1"]);
    assert_eq!(f.ids(), [2]);
    let err = fails(f.cmd().args(["show", "1"]), 1);
    assert!(err.contains("no run 1 in the history database"), "{err}");
    assert!(err.contains(f.db().to_str().unwrap()), "{err}");
}

#[test]
fn the_db_flag_wins_over_the_environment() {
    let f = Fixture::new();
    let other = f.dir.path().join("other.sqlite");
    f.run(&["--db", other.to_str().unwrap()]);
    assert!(other.exists() && !f.db().exists());
    let out = f.ok(&["history", "--json", "--db", other.to_str().unwrap()]);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&out).unwrap()["runs"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        f.ok(&["history"]),
        "no runs stored yet\n",
        "no database is not an error"
    );
}

#[test]
fn unknown_ids_and_malformed_commands() {
    let f = Fixture::new();
    f.run(&[]);
    let err = fails(f.cmd().args(["compare", "1", "7"]), 1);
    assert!(err.contains("no run 7"), "{err}");
    for (args, needle) in [
        (&["compare", "1"][..], "2 values required"),
        (&["export", "1", "--format", "pdf"], "invalid value 'pdf'"),
        (&["show", "one"], "`one` is not a run id"),
        (&["show", "-3"], "a run id must be positive"),
        (&["show"], "<ID>"),
    ] {
        // clap's usage errors whole: the problem first, then the usage line and the pointer.
        let (_, err) = exits(f.cmd().args(args), 2);
        let first = err.lines().next().unwrap_or_default();
        assert!(
            first.starts_with("destbench: ") && err.contains(needle),
            "{args:?}: {err}"
        );
        assert!(err.contains("try '--help'"), "{args:?}: {err}");
    }
    let err = fails(f.cmd().args(["forget", "9"]), 1);
    assert!(err.contains("no run 9"), "{err}");
}

#[test]
fn compare_says_which_differences_are_real() {
    let f = Fixture::new();
    let (a, b) = two_runs(&f);
    f.run(&["--label", "same as first"]);
    let c = f.ids()[0].to_string();
    let cmp: serde_json::Value =
        serde_json::from_str(&f.ok(&["compare", &a, &b, &c, "--json"])).unwrap();
    assert_eq!(cmp["schema"], "destbench.compare/1");
    let row = |test: &str, variant: &str| {
        cmp["groups"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["test"] == test)
            .and_then(|g| {
                g["rows"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|r| r["variant"] == variant)
            })
            .unwrap()
            .clone()
    };
    // SEQ1M-Q1T1 over 0.5 s + 1 ms sync against 1 s + 1 ms: the ratio is known exactly.
    let q1 = row("seq-write", "SEQ1M-Q1T1");
    let ratio = q1["cells"][1]["ratio"].as_f64().unwrap();
    assert!((ratio - 0.501 / 1.001 * 2.0).abs() < 1e-9, "{ratio}");
    assert_eq!(q1["cells"][1]["verdict"], "real (no spread in either run)");
    assert_eq!(q1["cells"][2]["ratio"], 1.0);
    assert_eq!(q1["cells"][2]["verdict"], "no difference (identical)");
    // Whole files do not depend on the duration.
    let files = row("seq-write", "20-100MB");
    assert_eq!(files["cells"][1]["ratio"], 1.0);

    // The durations differ: said before any verdict, in the JSON and the text.
    assert_eq!(
        cmp["settings_differ"][0],
        "duration: [1] 0.5 s, [2] 1 s, [3] 0.5 s"
    );
    let text = f.ok(&["compare", &a, &b]);
    let warned = text
        .find("warning: the runs' settings differ")
        .expect("settings warned about");
    assert!(
        text.contains("  - duration: [1] 0.5 s, [2] 1 s\n"),
        "{text}"
    );
    assert!(warned < text.find("real").unwrap(), "{text}");
    let same = f.ok(&["compare", &a, &c]);
    assert!(!same.contains("settings differ"), "{same}");
    assert!(text.contains("[1] run 1: half second"), "{text}");
    // Each run with its answer, a backup's time, under its name; in the JSON too.
    let after_first = &text[text.find("[1] run 1: half second").unwrap()..];
    let answer_line = after_first.lines().nth(1).unwrap();
    assert!(
        answer_line.starts_with("    A first backup of your data here: "),
        "{text}"
    );
    let answer = cmp["runs"][0]["answer"].as_str().unwrap();
    assert!(
        answer.starts_with("A first backup of your data here: "),
        "{answer}"
    );
    assert!(text.contains("real (no spread in either run)"), "{text}");
}

#[test]
fn export_snapshots() {
    let f = Fixture::new();
    let (a, b) = two_runs(&f);
    let dir = f.dir.path().to_str().unwrap();

    let mut json: serde_json::Value =
        serde_json::from_str(&f.ok(&["export", &a, &b, "--format", "json"])).unwrap();
    let started: Vec<i64> = (0..2)
        .map(|i| json["runs"][i]["run"]["started_unix_s"].as_i64().unwrap())
        .collect();
    assert_eq!(json["schema"], "destbench.export/1");
    let host = json["runs"][0]["environment"]["host"]
        .as_str()
        .unwrap_or("-")
        .to_string();
    // The filesystem's identity beside the destination in the Markdown: this machine's.
    let env = &json["runs"][0]["environment"];
    let identity = destbench::with_filesystem(
        "",
        &destbench::Filesystem {
            fs_type: env["fs_type"].as_str().map(str::to_string),
            fs_uuid: env["fs_uuid"].as_str().map(str::to_string),
        },
    );
    redact(&mut json, dir);
    insta::assert_json_snapshot!("export_json", json);

    let csv = f.ok(&["export", &a, &b, "--format", "csv"]);
    let csv: Vec<String> = csv
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let mut cells: Vec<String> = line.split(',').map(str::to_string).collect();
            if i > 0 {
                assert_eq!(cells[0], "destbench.csv/1");
                cells[4] = "[ts]".into(); // started_unix_s
            }
            cells.join(",").replace(dir, "[DIR]")
        })
        .collect();
    insta::assert_snapshot!("export_csv", csv.join("\n"));

    let md = f.ok(&["export", &a, &b, "--format", "md"]);
    let mut md = md
        .replace(dir, "[DIR]")
        .replace(&format!("| {host} |"), "| [host] |")
        .replace(&format!("[DIR]{identity}`"), "[DIR] [filesystem]`");
    for s in started {
        md = md.replace(&destbench::utc(s), "[date]");
    }
    insta::assert_snapshot!("export_md", md);
}

#[test]
fn a_database_that_cannot_be_created_fails_the_run_after_its_report() {
    let f = Fixture::new();
    let file = f.dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let db = file.join("history.sqlite");
    let mut out = f.null_json_run("--runs 1 --duration 0.1 --size 4MiB --tests seq-write");
    out.args(["--db", db.to_str().unwrap()]);
    let (out, stderr) = exits(&mut out, 1);
    assert!(
        stderr.contains(&format!(
            "history database {}: cannot create its directory",
            db.display()
        )),
        "{stderr}"
    );
    let doc: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("the report came first");
    assert_eq!(doc["schema"], "destbench.run/2");
}
