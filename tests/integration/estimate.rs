//! `destbench estimate`: the prediction against destbench's own real copy of the same tree on
//! destinations of known speed, and a survey that survives what it cannot read.

use std::path::Path;

use crate::support::{
    self, assert_success, destbench, destbench_setpriv, entries, exits, num, result, run_json,
    run_on,
};
use crate::testbed::Testbed;

/// A tree shaped like a home folder: many small files in nested directories, sizes spread
/// log-uniformly from 100 B to 1 MB, and a few large files holding much of the bytes.
fn realistic_tree(root: &Path, seed: u64) -> (u64, u64) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let (mut files, mut bytes) = (0u64, 0u64);
    let mut write = |path: &Path, size: u64, rng: &mut fastrand::Rng| {
        let data: Vec<u8> = (0..size).map(|_| rng.u8(..)).collect();
        std::fs::write(path, data).unwrap();
        files += 1;
        bytes += size;
    };
    for d in 0..20 {
        let dir = root.join(format!("docs{}/sub{}", d % 6, d));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..50 {
            let size = (100f64 * (1e6f64 / 100.0).powf(rng.f64())) as u64;
            write(&dir.join(format!("f{f}.dat")), size, &mut rng);
        }
    }
    let media = root.join("media");
    std::fs::create_dir(&media).unwrap();
    for (i, mb) in [8u64, 15, 25].into_iter().enumerate() {
        write(
            &media.join(format!("clip{i}.mov")),
            mb * 1_000_000,
            &mut rng,
        );
    }
    (files, bytes)
}

/// Estimates the tree for `mount` (measured now), then copies the tree there with destbench
/// itself (1 thread, write cache on, as the estimate assumes; one pass, as a backup makes);
/// returns (predicted, real) seconds.
fn predicted_and_real(mount: &Path, tree: &Path) -> (serde_json::Value, f64) {
    let doc = run_json(&[
        "estimate",
        tree.to_str().unwrap(),
        "--to",
        mount.to_str().unwrap(),
        "--tool",
        "parallel:1",
        "--json",
    ]);
    assert_eq!(doc["schema"], "destbench.estimate/1");
    let estimate = doc["estimates"][0].clone();
    let real = run_on(
        mount,
        &format!(
            "--no-history --runs 1 --min-time 0 --source {} --threads 1 \
             --tests files-copy:source-1t-cache-on",
            tree.display()
        ),
    );
    let copy = result(&real, "files-copy", "source-1t-cache-on");
    (estimate, num(&copy["repetitions"][0]["elapsed_s"]))
}

fn check(label: &str, estimate: &serde_json::Value, real: f64) {
    let p = &estimate["predicted_seconds"];
    let expected = num(&p["expected"]);
    let error = expected / real - 1.0;
    eprintln!(
        "estimate on {label}: expected {expected:.2} s (low {:.2}, high {:.2}) vs real copy {real:.2} s: error {:+.1}%; model {:.2} ms/file + {:.1} MB/s",
        num(&p["low"]),
        num(&p["high"]),
        error * 100.0,
        num(&estimate["costs"]["per_file_s"]) * 1e3,
        num(&estimate["costs"]["bytes_per_s"]) / 1e6,
    );
    assert!(
        error.abs() <= 0.20,
        "{label}: predicted {expected:.2} s, the real copy took {real:.2} s"
    );
    assert!(num(&p["low"]) < expected && expected < num(&p["high"]));
}

/// Brings up a testbed destination, estimates a realistic tree for it and copies the tree
/// there for real: the two must agree (see `check`).
fn estimate_against_a_real_copy(kind: &str, args: &[&str], seed: u64, what: &str) {
    let Some((_alone, tb)) = Testbed::up_alone(kind, args) else {
        return;
    };
    let tree = tempfile::tempdir().unwrap();
    let (files, bytes) = realistic_tree(tree.path(), seed);
    let (estimate, real) = predicted_and_real(tb.mount(), tree.path());
    check(
        &format!("{what}, {files} files, {bytes} B"),
        &estimate,
        real,
    );
}

/// On a disk held to 40 MB/s, the prediction for a realistic tree is within 20% of the real copy.
#[test]
#[ignore = "long: figures against an emulated device of known speed, which it holds alone"]
fn estimate_matches_a_real_copy_on_a_slow_disk() {
    estimate_against_a_real_copy("slow-disk", &["--rate", "40"], 7, "slow-disk 40 MB/s");
}

/// Over a 100 Mbit/s share, where each file costs round trips, the same holds.
#[test]
#[ignore = "long: figures against an emulated device of known speed, which it holds alone"]
fn estimate_matches_a_real_copy_over_a_slow_share() {
    estimate_against_a_real_copy("nas", &["--link", "100mbit"], 8, "nas 100 Mbit/s");
}

/// setpriv options that take away root's power to read any file.
const NO_READ_ANYTHING: &[&str] = &[
    "--bounding-set=-dac_override,-dac_read_search",
    "--inh-caps=-all",
];

/// A directory the survey cannot list is counted and named, the rest is surveyed, and the
/// files' contents are never needed. Run without the capabilities that let root read anything.
#[test]
fn unreadable_directories_are_counted_not_fatal() {
    // The estimate's default tool is rsync where it is installed (.ci/run installs it).
    if !support::require_root_and(&["setpriv", "rsync"]) {
        return;
    }
    let tree = tempfile::tempdir().unwrap();
    let (files, bytes) = realistic_tree(tree.path(), 9);
    let closed = tree.path().join("closed");
    std::fs::create_dir(&closed).unwrap();
    std::fs::write(closed.join("secret"), b"12345").unwrap();
    std::fs::set_permissions(&closed, std::os::unix::fs::PermissionsExt::from_mode(0o000)).unwrap();
    // A stored run is needed for an estimate without measuring; the survey is what is tested.
    let db = tempfile::tempdir().unwrap();
    let out = destbench_setpriv(NO_READ_ANYTHING)
        .args([
            "estimate",
            tree.path().to_str().unwrap(),
            "--run",
            "1",
            "--json",
            "--db",
        ])
        .arg(db.path().join("none.sqlite"))
        .output()
        .unwrap();
    // No such run: the error names it, and nothing was surveyed yet.
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no run 1"));
    let dest = tempfile::tempdir_in("/var/tmp").unwrap();
    let out = destbench_setpriv(NO_READ_ANYTHING)
        .args(["estimate", tree.path().to_str().unwrap(), "--json", "--to"])
        .arg(dest.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    std::fs::set_permissions(&closed, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    assert_success(&out);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let source = &doc["source"];
    assert_eq!(
        source["files"], files,
        "the closed directory's file is not counted"
    );
    assert_eq!(source["bytes"], bytes);
    assert_eq!(source["unreadable"]["count"], 1);
    assert!(
        source["unreadable"]["examples"][0]
            .as_str()
            .unwrap()
            .starts_with("closed"),
        "{source}"
    );
}

/// A bad --tool is one line naming it, exit 2, before anything is surveyed or written.
#[test]
fn an_unknown_tool_is_a_usage_error() {
    let dest = tempfile::tempdir().unwrap();
    for (tool, says) in [("tar", "unknown tool 'tar'"), ("parallel:0", "parallel:0")] {
        let (_, stderr) = exits(
            destbench()
                .args(["estimate", "/usr/share/doc", "--tool", tool, "--to"])
                .arg(dest.path()),
            2,
        );
        // clap's error: the problem on its first line, then its usual hint.
        let first = stderr.lines().next().unwrap_or_default();
        assert!(first.contains(says), "{stderr}");
    }
    assert!(entries(dest.path()).is_empty());
}

/// `--tool cp` calibrates cp itself: five sets of different shapes and the source's miniature
/// copied twice each, a cost
/// for directories, files, bytes and slack, the shares of the expected time, the advice, and
/// a warning before of what it writes; with --measure-source, the source's side and which one
/// limits; the destination is left as it was, the source untouched, and no history is
/// written (a measurement for an estimate is not a run: `bench/estimate-vs-real.sh` relies on it).
#[test]
fn a_tool_profile_is_calibrated_on_the_destination() {
    // cp is coreutils', always there.
    let history = tempfile::tempdir().unwrap();
    let db = history.path().join("history.sqlite");
    let tree = tempfile::tempdir().unwrap();
    let (files, bytes) = realistic_tree(tree.path(), 11);
    std::os::unix::fs::symlink("docs0", tree.path().join("link")).unwrap();
    // Written to the disk: --measure-source leaves out files whose pages cannot be dropped.
    let synced = std::process::Command::new("sync")
        .arg("-f")
        .arg(tree.path())
        .status();
    assert!(synced.unwrap().success());
    let before: Vec<String> = entries(tree.path());
    let dest = tempfile::tempdir_in("/var/tmp").unwrap();
    let out = destbench()
        .args([
            "estimate",
            tree.path().to_str().unwrap(),
            "--tool",
            "cp",
            "--json",
            "--measure-source",
            "--to",
        ])
        .arg(dest.path())
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        !db.exists(),
        "estimate --to wrote a history at {}",
        db.display()
    );
    assert!(
        stderr.contains("calibrating cp on")
            && stderr.contains("each copy kept until all are timed, then deleted"),
        "{stderr}"
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["source"]["files"], files);
    assert_eq!(doc["source"]["bytes"], bytes);
    let e = &doc["estimates"][0];
    assert_eq!(e["tool"], "cp");
    let sets: Vec<&str> = e["measurements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            assert_eq!(m["seconds"].as_array().unwrap().len(), 2, "{m}");
            m["variant"].as_str().unwrap()
        })
        .collect();
    assert_eq!(
        sets,
        ["empty", "dirs", "tiny", "aligned", "large", "miniature"]
    );
    // The source's miniature: its shape within the budget (2,000 files, 32 MiB), copied twice.
    let mini = &e["miniature"];
    let mini_files = num(&mini["files"]);
    assert!(mini_files > 10.0 && mini_files < files as f64, "{mini}");
    assert!(num(&mini["bytes"]) <= (32 << 20) as f64, "{mini}");
    assert_eq!(mini["seconds"].as_array().unwrap().len(), 2, "{mini}");
    assert!(num(&mini["ratio"]) > 0.0, "{mini}");
    assert!(stderr.contains("and a miniature of the source"), "{stderr}");
    let p = &e["predicted_seconds"];
    let expected = num(&p["expected"]);
    assert!(
        num(&p["low"]) <= expected && expected <= num(&p["high"]),
        "{p}"
    );
    let sh = &e["shares"];
    // The shares add up to the destination's time; reading the source adds its own.
    let sum = ["bandwidth_s", "per_file_s", "directories_s", "start_s"]
        .iter()
        .map(|k| num(&sh[k]))
        .sum::<f64>();
    let both = sum + num(&e["source"]["seconds"]);
    assert!((expected / both - 1.0).abs() < 1e-9, "{e}");
    assert!(num(&e["costs"]["per_file_s"]) >= 0.0 && num(&e["costs"]["bytes_per_s"]) > 0.0);
    assert!(e["advice"].is_array());
    assert!(
        entries(dest.path()).is_empty(),
        "{:?}",
        entries(dest.path())
    );
    assert_eq!(entries(tree.path()), before);
}

/// A stored run holds destbench's own copies only: asked for cp, that destination says so.
#[test]
fn a_stored_run_cannot_stand_for_another_tool() {
    let db = tempfile::tempdir().unwrap();
    let dbpath = db.path().join("h.sqlite");
    let dest = tempfile::tempdir_in("/var/tmp").unwrap();
    exits(
        destbench()
            .arg("run")
            .arg(dest.path())
            .args([
                "--engine",
                "null",
                "--json",
                "--runs",
                "1",
                "--min-time",
                "0",
            ])
            .args([
                "--tests",
                "files-copy:small-1t-cache-on,files-copy:large-1t-cache-on",
            ])
            .args(["--sets", "small,large", "--size", "64M", "--db"])
            .arg(&dbpath),
        0,
    );
    let tree = tempfile::tempdir().unwrap();
    realistic_tree(tree.path(), 12);
    let estimate = |tool: &str| estimate_stored(tree.path(), &dbpath, "1", tool);
    let out = estimate("cp");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let error = doc["estimates"][0]["error"].as_str().unwrap();
    assert!(error.contains("destbench's own copies only"), "{error}");
    let out = estimate("parallel:1");
    assert_success(&out);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["estimates"][0]["tool"], "parallel:1");
    assert!(num(&doc["estimates"][0]["predicted_seconds"]["expected"]) > 0.0);
}

/// `--tool timemachine` from a stored tm-backup run (null engine: exact figures): the first
/// backup is the source's bytes plus the per-file metadata at the replay's time per user byte,
/// plus Time Machine's own work per item (none at best); a run without tm-backup says so;
/// `--to` is refused.
#[test]
fn time_machine_is_estimated_from_a_stored_replay() {
    let db = tempfile::tempdir().unwrap();
    let dbpath = db.path().join("h.sqlite");
    let dest = tempfile::tempdir_in("/var/tmp").unwrap();
    let stored = |tests: &str| {
        let out = destbench()
            .arg("run")
            .arg(dest.path())
            .args(["--engine", "null", "--json", "--profile", "quick"])
            .args(["--tests", tests, "--db"])
            .arg(&dbpath)
            .output()
            .unwrap();
        assert_success(&out);
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let run = stored("tm-backup");
    stored("seq-write:SEQ1M-Q1T1");
    let tree = tempfile::tempdir().unwrap();
    realistic_tree(tree.path(), 13);
    let estimate = |id: &str| estimate_stored(tree.path(), &dbpath, id, "timemachine");
    let out = estimate("1");
    assert_success(&out);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let (bytes, files) = (num(&doc["source"]["bytes"]), num(&doc["source"]["files"]));
    let first = &run["results"][0]["details"]["first"];
    let per_byte = num(&first["seconds"]) / num(&first["user_bytes"]);
    let per_file = 82.0 * 1048576.0 / 22511.0;
    let e = &doc["time_machine"][0]["estimate"];
    // Time Machine's own work per item: published figures here, no Mac's log being read.
    assert_eq!(e["per_item"]["from"], "published", "{e}");
    let per_item = num(&e["per_item"]["seconds"]["expected"]);
    assert!(per_item > 0.0 && num(&e["per_item"]["seconds"]["low"]) == 0.0);
    let expected = (bytes + files * per_file) * per_byte + files * per_item;
    assert!((num(&e["first_seconds"]["expected"]) - expected).abs() < 1e-9 * expected);
    assert!((num(&e["first_seconds"]["low"]) - bytes * per_byte).abs() < 1e-9 * expected);
    let inc = &e["incremental_seconds"];
    assert!(num(&inc["low"]) < num(&inc["expected"]) && num(&inc["expected"]) < num(&inc["high"]));
    let out = estimate("2");
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let error = doc["time_machine"][0]["error"].as_str().unwrap();
    assert!(error.contains("no tm-backup result"), "{error}");
    let out = destbench()
        .arg("estimate")
        .arg(tree.path())
        .args(["--to", "/var/tmp", "--tool", "timemachine"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// `destbench estimate SOURCE --json` from the stored run `run` of the history `db`, for `tool`.
fn estimate_stored(source: &Path, db: &Path, run: &str, tool: &str) -> std::process::Output {
    destbench()
        .arg("estimate")
        .arg(source)
        .args(["--run", run, "--json", "--tool", tool, "--db"])
        .arg(db)
        .output()
        .unwrap()
}
