//! A destination shared in time: two runs on it at once, and a destination that goes away under
//! a run (unmounted lazily, as a share that drops is detached).

use std::process::Command;
use std::time::Duration;

use super::sources::mount_tmpfs;
use super::{ended, lasting_run, record, run_within, small_run};
use crate::support::entries;

/// Each run keeps to its own scratch directory: both finish, and nothing is left.
pub fn two_runs_at_once() {
    let destination = tempfile::tempdir().unwrap();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut first = small_run(destination.path(), a.path(), "files-copy,files-delete");
    let mut second = small_run(destination.path(), b.path(), "files-copy,files-delete");
    let other = std::thread::spawn(move || run_within(&mut second, Duration::from_secs(120), None));
    let mine = run_within(&mut first, Duration::from_secs(120), None);
    let theirs = other.join().unwrap();
    let left = entries(destination.path());
    let show = |s: Option<std::process::ExitStatus>| s.map_or("hung".into(), ended);
    record(
        "two runs at once on one destination",
        "both exit 0, nothing left",
        format!("{} and {}; {} left", show(mine), show(theirs), left.len()),
        mine.is_some_and(|s| s.success()) && theirs.is_some_and(|s| s.success()) && left.is_empty(),
    );
}

/// The destination's filesystem is detached mid-run (`umount -l`): the run may finish on the
/// detached filesystem or fail in one line, but it must end, without a signal, and never write
/// into the directory the mount covered (what a path-based reopen would do).
pub fn unmounted_mid_run() {
    let place = tempfile::tempdir().unwrap();
    let destination = place.path().join("share");
    let sources = tempfile::tempdir().unwrap();
    if !mount_tmpfs(&destination) {
        record(
            "destination unmounted mid-run",
            "a tmpfs to unmount",
            "mount failed".into(),
            false,
        );
        return;
    }
    let mut run = lasting_run(&destination, sources.path(), "files-copy,files-delete", "2");
    let dest = destination.clone();
    let unmounter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(700));
        Command::new("umount").arg("-l").arg(&dest).status()
    });
    let status = run_within(&mut run, Duration::from_secs(120), None);
    let unmounted = unmounter.join().unwrap().is_ok_and(|s| s.success());
    let beneath = entries(&destination);
    record(
        "destination unmounted mid-run",
        "ends, no signal; nothing beneath the mount",
        format!(
            "{} (unmounted: {unmounted}); {} entries beneath",
            status.map_or("hung".into(), ended),
            beneath.len()
        ),
        unmounted
            && status.is_some_and(|s| s.code().is_some_and(|c| c == 0 || c == 1))
            && beneath.is_empty(),
    );
}
