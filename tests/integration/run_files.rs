//! The file-set tests: copy, restore with verification, delete, metadata; a user's --source
//! folder (read-only, with unreadable and special entries); memory that does not grow with the
//! number of files.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::support::{LoopExt4, destbench, destbench_setpriv, entries, exits, result, run_on};

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn copy_restore_delete_and_meta_on_ext4() {
    let Some(fs) = LoopExt4::new(256) else { return };
    let mnt = fs.mount();
    let sources = tempfile::tempdir().unwrap();
    let doc = run_on(
        &mnt,
        &format!(
            "--runs 2 --sets small --set-size 4MB --threads 1,3 --source-dir {} --verify \
             --tests files-copy,files-restore,files-delete,meta",
            sources.path().display()
        ),
    );
    assert!(
        doc["failures"].as_array().unwrap().is_empty(),
        "{}",
        doc["failures"]
    );
    for variant in [
        "small-1t-cache-on",
        "small-1t-cache-off",
        "small-3t-cache-on",
        "small-3t-cache-off",
    ] {
        let r = result(&doc, "files-copy", variant);
        assert_eq!(r["unit"], "MB/s");
        let expected_method = if variant.ends_with("on") {
            "syncfs"
        } else {
            "fsync-each"
        };
        assert_eq!(r["method"], expected_method, "{variant}");
        let set = &r["file_set"];
        assert_eq!(set["name"], "small");
        assert!(f(&set["bytes"]) >= 4e6 && f(&set["files"]) >= 40.0, "{set}");
        for rep in r["repetitions"].as_array().unwrap() {
            // Copied again until the repetition lasts --min-time: every pass the whole set.
            let passes = f(&rep["passes"]);
            assert!(passes >= 1.0, "{rep}");
            assert_eq!(
                f(&rep["bytes"]),
                passes * f(&set["bytes"]),
                "every byte copied"
            );
            assert_eq!(
                f(&rep["ops"]),
                passes * f(&set["files"]),
                "every file copied"
            );
            assert!(
                f(&rep["elapsed_s"]) >= f(&doc["settings"]["min_time_s"])
                    || r["warnings"].to_string().contains("short-sample"),
                "{r}"
            );
        }
        assert!(f(&r["ops_per_s_median"]) > 0.0);
        assert_eq!(r["threads"], if variant.contains("3t") { 3 } else { 1 });
    }
    let restore = result(&doc, "files-restore", "small-3t");
    assert!(
        ["evict", "drop-caches"].contains(&restore["method"].as_str().unwrap()),
        "{}",
        restore["method"]
    );
    let delete = result(&doc, "files-delete", "small-1t");
    assert_eq!(delete["unit"], "files/s");
    for op in ["create", "stat", "rename", "delete"] {
        let r = result(&doc, "meta", op);
        assert_eq!(r["unit"], "ops/s");
        assert!(f(&r["median"]) > 0.0);
    }
    assert!(
        entries(&mnt).iter().all(|e| e == "lost+found"),
        "{:?}",
        entries(&mnt)
    );
    assert!(
        entries(sources.path()).is_empty(),
        "generated sets removed: {:?}",
        entries(sources.path())
    );
}

/// A source tree of `files` tiny files in directories of 500.
fn tiny_tree(root: &Path, files: usize) {
    for i in 0..files {
        let dir = root.join(format!("d{:04}", i / 500));
        if i % 500 == 0 {
            fs::create_dir(&dir).unwrap();
        }
        fs::write(dir.join(format!("f{i}")), [i as u8; 100]).unwrap();
    }
}

#[test]
fn user_source_is_read_only_and_its_odd_entries_are_listed() {
    if !crate::support::require_root_and(&["setpriv"]) {
        return;
    }
    let source = tempfile::tempdir().unwrap();
    let dest = tempfile::tempdir().unwrap();
    fs::set_permissions(dest.path(), fs::Permissions::from_mode(0o777)).unwrap();
    fs::set_permissions(source.path(), fs::Permissions::from_mode(0o755)).unwrap();
    tiny_tree(source.path(), 600);
    fs::write(source.path().join("secret"), b"not for you").unwrap();
    fs::set_permissions(
        source.path().join("secret"),
        fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    let mkfifo = std::process::Command::new("mkfifo")
        .arg(source.path().join("pipe"))
        .status();
    assert!(mkfifo.unwrap().success(), "mkfifo");
    let before: Vec<(String, u64)> = walk_listing(source.path());
    // As an ordinary user, so the 0600 file really is unreadable.
    let mut run = destbench_setpriv(&["--reuid", "65534", "--regid", "65534", "--clear-groups"]);
    run.arg("run")
        .arg(dest.path())
        .arg("--source")
        .arg(source.path());
    // nobody has no writable home for the history database.
    run.args(
        "--json --no-history --runs 1 --threads 2 --tests files-copy,files-restore".split(' '),
    );
    let (output, _) = exits(&mut run, 0);
    let doc: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let copy = result(&doc, "files-copy", "source-2t-cache-on");
    assert_eq!(copy["file_set"]["generated"], false);
    let rep = &copy["repetitions"][0];
    assert_eq!(
        f(&rep["ops"]),
        600.0 * f(&rep["passes"]),
        "the readable files were copied, on every pass"
    );
    let warnings = copy["warnings"].to_string();
    assert!(
        warnings.contains("1 unreadable") && warnings.contains("secret"),
        "{warnings}"
    );
    assert!(
        warnings.contains("1 FIFO") && warnings.contains("pipe"),
        "{warnings}"
    );
    assert_eq!(
        walk_listing(source.path()),
        before,
        "the source was changed"
    );
    assert!(entries(dest.path()).is_empty());
}

/// Names, sizes and modification times of everything under `root`.
fn walk_listing(root: &Path) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let meta = entry.metadata().unwrap();
            let mtime = meta
                .modified()
                .unwrap()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap();
            out.push((
                entry.path().display().to_string(),
                meta.len() ^ mtime.as_nanos() as u64,
            ));
            if meta.is_dir() {
                stack.push(entry.path());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn missing_source_is_one_line() {
    let dest = tempfile::tempdir().unwrap();
    let mut run = destbench();
    run.arg("run").arg(dest.path());
    run.args(["--source", "/no/such/folder", "--tests", "files-copy"]);
    let (_, stderr) = exits(&mut run, 1);
    assert!(
        stderr.contains("/no/such/folder: (--source) does not exist"),
        "{stderr}"
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(entries(dest.path()).is_empty());
}

/// Ten times the files must not take ten times the memory: the walk streams.
#[test]
fn memory_does_not_grow_with_the_file_count() {
    let dest = tempfile::tempdir_in("/var/tmp").unwrap();
    let mut peaks = Vec::new();
    for files in [2_000, 20_000] {
        let source = tempfile::tempdir_in("/var/tmp").unwrap();
        tiny_tree(source.path(), files);
        let doc = run_on(
            dest.path(),
            &format!(
                "--runs 1 --threads 4 --source {} --tests files-copy:source-4t-cache-on",
                source.path().display()
            ),
        );
        let rep = &result(&doc, "files-copy", "source-4t-cache-on")["repetitions"][0];
        assert_eq!(f(&rep["ops"]), files as f64 * f(&rep["passes"]), "{rep}");
        peaks.push(f(&doc["peak_rss_bytes"]));
    }
    let growth = peaks[1] - peaks[0];
    assert!(
        growth < 4.0 * 1048576.0,
        "peak RSS grew by {growth} bytes for 18,000 more files: {peaks:?}"
    );
    assert!(peaks[1] < 64.0 * 1048576.0, "peak RSS {peaks:?}");
}

/// The update's `details`: rsync's start-up on an empty tree, three times, their median, each
/// a real run of the program (no pass is quicker than its start-up by much).
fn start_up_timed_apart(doc: &serde_json::Value) {
    let results = doc["results"].as_array().unwrap();
    let update = results
        .iter()
        .find(|r| r["variant"] == "small-rsync-update")
        .unwrap();
    let start = &update["details"];
    assert_eq!(start["kind"], "program-start", "{update}");
    let mut samples: Vec<f64> = start["samples_s"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_f64().unwrap())
        .collect();
    samples.sort_by(f64::total_cmp);
    assert_eq!(samples.len(), 3, "{start}");
    assert_eq!(start["start_s"].as_f64().unwrap(), samples[1], "{start}");
    let pass = update["repetitions"][0]["elapsed_s"].as_f64().unwrap();
    assert!(
        samples[0] > 0.0 && samples[0] < pass * 2.0,
        "{start}: a pass {pass} s"
    );
}

/// rsync's copies run confined to the scratch by Landlock (no word about it); without
/// confinement (simulated) they run only where nobody else can write along the scratch's path,
/// saying so, and are left out elsewhere, with the reason and the flag that runs them anyway.
#[test]
fn rsync_runs_confined_or_only_where_nobody_else_can_write() {
    if !crate::support::have_program("rsync") {
        crate::support::skip("rsync is not installed");
        return;
    }
    let top = tempfile::tempdir().unwrap();
    let open = top.path().join("open");
    fs::create_dir(&open).unwrap();
    fs::set_permissions(&open, fs::Permissions::from_mode(0o777)).unwrap();
    let flags = "--tests files-copy --sets small --set-size 1MB --threads 1 --runs 1 \
                 --min-time 0 --no-verify --no-history --json";
    let run = |dest: &Path, simulate: bool, extra: &str| -> serde_json::Value {
        let mut cmd = destbench();
        cmd.arg("run").arg(dest).args(flags.split_whitespace());
        cmd.args(extra.split_whitespace());
        if simulate {
            cmd.env("DESTBENCH_NO_CONFINEMENT", "1");
        }
        let (output, _) = exits(&mut cmd, 0);
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let said = |doc: &serde_json::Value, kind: &str| -> Vec<String> {
        let warnings = doc["warnings"].as_array().unwrap();
        warnings
            .iter()
            .filter(|w| w["kind"] == kind && w["message"].as_str().unwrap().contains("rsync"))
            .map(|w| w["message"].as_str().unwrap().to_string())
            .collect()
    };
    let with_rsync = |doc: &serde_json::Value| {
        doc["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["variant"].as_str().unwrap().contains("rsync"))
            .count()
    };
    let confined = run(&open, false, "");
    if crate::support::confinement_or_skip() {
        assert_eq!(with_rsync(&confined), 2, "copy and update");
        assert!(said(&confined, "unconfined").is_empty() && said(&confined, "left-out").is_empty());
        start_up_timed_apart(&confined);
    }
    let refused = run(&open, true, "");
    assert_eq!(with_rsync(&refused), 0);
    let left_out = said(&refused, "left-out").join(" ");
    assert!(
        left_out.contains("rsync's copies were left out: DESTBENCH_NO_CONFINEMENT is set")
            && left_out.contains("open can be written by anyone")
            && left_out.contains("--unconfined-programs runs them anyway"),
        "{left_out}"
    );
    let anyway = run(&open, true, "--unconfined-programs");
    assert_eq!(with_rsync(&anyway), 2);
    assert!(said(&anyway, "unconfined")[0].contains("run anyway as asked"));
    let private = run(top.path(), true, "");
    assert_eq!(with_rsync(&private), 2);
    let note = said(&private, "unconfined").join(" ");
    assert!(
        note.contains("nobody else can write along the scratch's path"),
        "{note}"
    );
    assert!(entries(&open).is_empty() && entries(top.path()) == ["open"]);
}
