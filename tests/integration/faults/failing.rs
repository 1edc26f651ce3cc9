//! A disk that starts failing mid-run (every request EIO, write cache off or on): each test that
//! fails says what the disk said, never "File exists" because an earlier test's directory could
//! not be removed from the dying disk.

use std::process::Stdio;
use std::time::{Duration, Instant};

use super::{record, run_within};
use crate::support::{destbench, entries};
use crate::testbed::Testbed;

pub fn case() {
    let Some(tb) = Testbed::up("failing-disk", &[]) else {
        return;
    };
    let sets = tempfile::tempdir().unwrap();
    let out = tempfile::NamedTempFile::new().unwrap();
    let mut cmd = destbench();
    cmd.arg("run")
        .arg(tb.mount())
        .args([
            "--tests",
            "files-copy:small-1t-cache-on,files-copy:small-1t-cache-off",
        ])
        .args([
            "--sets",
            "small",
            "--set-size",
            "4MB",
            "--runs",
            "3",
            "--min-time",
            "0.5",
        ])
        .args(["--no-history", "--json", "--source-dir"])
        .arg(sets.path())
        .stdout(out.reopen().unwrap())
        .stderr(Stdio::null());
    let mount = tb.mount().to_path_buf();
    let failer = std::thread::scope(|scope| {
        let watcher = scope.spawn(|| {
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(60) {
                // As soon as the first copy's directory is made: the copy fails at once, and its
                // directory cannot be removed from the dying disk.
                let copying = entries(&mount)
                    .iter()
                    .filter(|e| e.starts_with(".destbench-"))
                    .any(|s| {
                        entries(&mount.join(s))
                            .iter()
                            .any(|e| e.starts_with("copy-"))
                    });
                if copying {
                    tb.fail();
                    return true;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            false
        });
        let status = run_within(&mut cmd, Duration::from_secs(180), None);
        (watcher.join().unwrap(), status)
    });
    let (failed, status) = failer;
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path()).unwrap()).unwrap_or_default();
    let errors: Vec<String> = doc["failures"]
        .as_array()
        .map(|f| {
            f.iter()
                .map(|f| f["error"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default();
    for e in &errors {
        eprintln!("failing disk: {e}");
    }
    let eexist = errors.iter().filter(|e| e.contains("File exists")).count();
    let eio = errors
        .iter()
        .filter(|e| e.contains("Input/output error") || e.contains("Read-only file system"))
        .count();
    record(
        "failing disk (EIO) mid files-copy, cache on then off",
        "every failed test names the I/O error, none \"File exists\"; no signal",
        format!(
            "{}; {} failures: {eio} name the I/O error, {eexist} \"File exists\"",
            status.map_or("killed at the limit".into(), super::ended),
            errors.len()
        ),
        failed
            && status.is_some_and(|s| s.code().is_some())
            && !errors.is_empty()
            && eexist == 0
            && eio == errors.len(),
    );
    tb.heal();
}
