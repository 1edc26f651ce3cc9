//! Bad input: one clear line on stderr naming the problem, exit 2 for usage and 1 for runtime
//! errors, no panic, nothing left behind.

use std::path::Path;

use crate::support::{destbench, entries, exits};

/// Runs destbench and checks the one-line error and the exit code; returns stderr.
fn fails(args: &[&str], code: i32, needle: &str) -> String {
    let (output, stderr) = exits(destbench().args(args), code);
    assert!(
        stderr.contains(needle),
        "{args:?}: expected '{needle}' in: {stderr}"
    );
    assert!(stderr.starts_with("destbench: "), "{stderr}");
    let first = stderr.lines().next().unwrap_or_default();
    assert!(
        first.contains(needle),
        "{args:?}: '{needle}' on the first line: {stderr}"
    );
    // destbench's own errors are one line; clap's usage errors come whole, ending with the
    // pointer to --help.
    let whole = stderr
        .trim_end()
        .ends_with("For more information, try '--help'.");
    assert!(
        stderr.trim_end().lines().count() == 1 || (code == 2 && whole),
        "one line, or clap's whole usage error: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        output.stdout.is_empty(),
        "nothing on stdout: {:?}",
        output.stdout
    );
    stderr
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn missing_path() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-dir");
    fails(&["run", path(&missing)], 1, "does not exist");
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn file_instead_of_directory() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, b"user data").unwrap();
    fails(&["run", path(&file)], 1, "is not a directory");
    assert_eq!(std::fs::read(&file).unwrap(), b"user data");
}

#[test]
fn usage_errors_exit_2_and_touch_nothing() {
    let dir = tempfile::tempdir().unwrap();
    for (flags, needle) in [
        ("--size lots", "'lots' is not a size"),
        ("--size 10XB", "unknown unit"),
        ("--size 5PB", "larger than 1 PiB"),
        ("--size 4k", "at least 1 MiB"),
        ("--tests seq-sideways", "unknown test 'seq-sideways'"),
        ("--tests seq-read:SEQ9M", "no variant 'SEQ9M'"),
        ("--runs 0", "--runs <RUNS>': must be positive"),
        ("--runs -1", "--runs <RUNS>': must be positive"),
        ("--threads 2,-3", "--threads <THREADS>': must be positive"),
        ("--runs many", "--runs"),
        ("--duration -1", "--duration"),
        ("--min-time -0.5", "--min-time -0.5: must be between 0 and"),
        ("--min-time 7200", "--min-time 7200"),
        ("--profile slow", "unknown profile 'slow'"),
        ("--engine aio", "--engine"),
        ("--frobnicate", "--frobnicate"),
    ] {
        let mut args = vec!["run", path(dir.path())];
        args.extend(flags.split_whitespace());
        fails(&args, 2, needle);
    }
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn absurd_size_is_refused_for_space_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let d = path(dir.path());
    let args = [
        "run",
        d,
        "--size",
        "900TiB",
        "--tests",
        "seq-read:SEQ1M-Q1T1",
    ];
    fails(&args, 1, "not enough free space");
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn symlinked_scratch_name_cannot_redirect_writes() {
    // A pre-existing symlink with the scratch prefix is never followed or removed: the scratch
    // directory is created exclusively under a fresh random name.
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let link = dir.path().join(".destbench-0000000000000000");
    destbench::symlink(outside.path(), &link).unwrap();
    exits(
        destbench().args([
            "run",
            path(dir.path()),
            "--engine",
            "null",
            "--profile",
            "quick",
            "--tests",
            "tm-check",
        ]),
        0,
    );
    assert!(link.is_symlink(), "the user's symlink is untouched");
    assert!(
        entries(outside.path()).is_empty(),
        "nothing written through the symlink"
    );
    assert_eq!(entries(dir.path()), [".destbench-0000000000000000"]);
}

/// Started by mpirun but built without the `mpi` feature: one line says so, and the run is one
/// client's (no `clients` in the document).
#[cfg(not(feature = "mpi"))]
#[test]
fn under_mpirun_without_the_feature_it_says_so_and_runs_alone() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = destbench();
    cmd.env("OMPI_COMM_WORLD_SIZE", "3").args([
        "run",
        dir.path().to_str().unwrap(),
        "--engine",
        "null",
        "--tests",
        "seq-write:SEQ1M-Q1T1",
        "--runs",
        "1",
        "--duration",
        "0.1",
        "--json",
        "--no-history",
        "--stonewall",
    ]);
    let (out, stderr) = exits(&mut cmd, 0);
    assert!(
        stderr.contains("built without the `mpi` feature: running as one client"),
        "{stderr}"
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(doc.get("clients").is_none() && doc.get("cluster").is_none());
    assert!(entries(dir.path()).is_empty());
}

/// `--time-machine` asks Time Machine for the destination: elsewhere than macOS that is a
/// usage error in one line, before anything is written; with a path it is a clash.
#[cfg(not(target_os = "macos"))]
#[test]
fn time_machine_outside_macos_is_one_usage_line() {
    let stderr = fails(
        &["run", "--time-machine", "--no-history"],
        2,
        "--time-machine: Time Machine exists only on macOS",
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    fails(&["run", "--time-machine", "/tmp"], 2, "--time-machine");
}
