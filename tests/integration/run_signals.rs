//! Ctrl-C and SIGTERM: the run stops, its scratch directory is removed, exit code 130.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::{destbench, entries};

fn wait_for_scratch(dir: &Path, timeout: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < timeout {
        if entries(dir).iter().any(|e| e.starts_with(".destbench-")) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

fn interrupt_removes_scratch(signal: rustix::process::Signal) {
    let dir = tempfile::tempdir().unwrap();
    let db_dir = tempfile::tempdir().unwrap();
    let db = db_dir.path().join("history.sqlite");
    // Long enough that the signal lands mid-run: many repetitions of a 2 s block test.
    let mut child = destbench()
        .args([
            "run",
            dir.path().to_str().unwrap(),
            "--tests",
            "4k-write:RND4K-Q1T1",
            "--size",
            "8MiB",
        ])
        .args(["--runs", "50", "--duration", "2"])
        .env("DESTBENCH_DB", &db)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    assert!(
        wait_for_scratch(dir.path(), Duration::from_secs(20)),
        "scratch never appeared"
    );
    std::thread::sleep(Duration::from_millis(300));
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, signal).unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "did not stop after the signal"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert!(
        entries(dir.path()).is_empty(),
        "scratch left: {:?}",
        entries(dir.path())
    );
    let history = destbench()
        .args(["history", "--json", "--db", db.to_str().unwrap()])
        .output()
        .unwrap();
    let history: serde_json::Value = serde_json::from_slice(&history.stdout).unwrap();
    assert_eq!(
        history["runs"],
        serde_json::json!([]),
        "an interrupted run stored something"
    );
}

#[test]
fn sigint_removes_scratch() {
    interrupt_removes_scratch(rustix::process::Signal::INT);
}

#[test]
fn sigterm_removes_scratch() {
    interrupt_removes_scratch(rustix::process::Signal::TERM);
}
