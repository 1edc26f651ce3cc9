//! A run killed with SIGKILL leaves its scratch directory and its generated sets; the next run
//! says so, and `destbench clean` removes them and nothing else.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use super::{null_run, record};
use crate::support::{destbench, entries};

/// Writes a scratch-like directory with the marker `text` (None: no marker).
fn decoy(place: &Path, name: &str, text: Option<String>) {
    let dir = place.join(name);
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("data"), b"not yours").unwrap();
    if let Some(text) = text {
        std::fs::write(dir.join(".destbench-marker"), text).unwrap();
    }
}

fn marker(pid: u32, host: &str) -> Option<String> {
    Some(format!(
        "destbench scratch\npid={pid}\nhost={host}\nstarted=1\nversion=0.1.0\n"
    ))
}

pub fn case() {
    let destination = tempfile::tempdir().unwrap();
    let sets = tempfile::tempdir().unwrap();
    let host = rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned();
    // What clean must leave: no marker, a live process's (this test's), another host's.
    decoy(destination.path(), ".destbench-unmarked", None);
    decoy(
        destination.path(),
        ".destbench-live",
        marker(std::process::id(), &host),
    );
    decoy(
        sets.path(),
        ".destbench-elsewhere",
        marker(1 << 30, &format!("{host}-other")),
    );
    std::fs::write(destination.path().join("keep.txt"), b"the user's").unwrap();
    let decoys = |dir: &Path| entries(dir).len();
    let before = (decoys(destination.path()), decoys(sets.path()));

    let mut killed = destbench()
        .arg("run")
        .arg(destination.path())
        .args("--tests files-copy --sets small --set-size 8MB --runs 5".split(' '))
        .args(["--no-history", "--source-dir"])
        .arg(sets.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Killed once both its scratch directory and its set directory exist and hold data.
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(30)
        && (decoys(destination.path()) == before.0 || decoys(sets.path()) == before.1)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(500));
    killed.kill().unwrap();
    killed.wait().unwrap();
    let after_kill = (decoys(destination.path()), decoys(sets.path()));

    let next = null_run(destination.path())
        .args(["--no-history", "--json", "--source-dir"])
        .arg(sets.path())
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&next.stdout).unwrap_or_default();
    let reported = doc["warnings"]
        .as_array()
        .and_then(|w| w.iter().find(|w| w["kind"] == "leftovers"))
        .map(|w| w["message"].as_str().unwrap_or_default().to_string())
        .unwrap_or_default();

    let clean = |dry: bool| {
        let mut cmd = destbench();
        cmd.arg("clean").arg(destination.path()).arg(sets.path());
        if dry {
            cmd.arg("--dry-run");
        }
        cmd.output().unwrap()
    };
    let dry = clean(true);
    let after_dry = (decoys(destination.path()), decoys(sets.path()));
    let cleaned = clean(false);
    let left = (entries(destination.path()), entries(sets.path()));
    let expected_left = (
        vec![".destbench-live", ".destbench-unmarked", "keep.txt"],
        vec![".destbench-elsewhere"],
    );
    let ok = after_kill == (before.0 + 1, before.1 + 1)
        && reported.starts_with("2 leftover scratch directories")
        && dry.status.success()
        && after_dry == after_kill
        && cleaned.status.success()
        && String::from_utf8_lossy(&cleaned.stdout).contains("removed 2 leftovers")
        && left.0 == expected_left.0
        && left.1 == expected_left.1;
    record(
        "SIGKILL, then the next run and clean",
        "next run reports 2 leftovers; clean removes those 2, keeps the 3 decoys and the user's file",
        format!(
            "{} left by the kill; reported: \"{reported}\"; clean: {}; kept {:?} {:?}",
            after_kill.0 + after_kill.1 - before.0 - before.1,
            String::from_utf8_lossy(&cleaned.stdout)
                .lines()
                .last()
                .unwrap_or(""),
            left.0,
            left.1
        ),
        ok,
    );
}
