//! The fault matrix: what an attacker on a shared share or an unlucky user does to a run, and
//! what destbench must do about it. Each case is a test of its own (the table at the end), and
//! says what it expected and what it got; the cases run one at a time, as they share the
//! machine's mounts and its cores.
//!
//! Safety, not speed: tiny sets, one repetition, no minimum time, no history.

use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::support::{destbench, entries, fault_cases, require_root_and};
mod failing;
mod leftovers;
mod shared;
mod sources;
mod victim;

use victim::{Swapper, Victim};

/// Every destbench process the matrix started: the victim's opens are counted against these.
static SPAWNED: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// Held by each case while it runs.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Swaps each symlink case must survive.
const SWAPS: u64 = 200;

/// A case's outcome: printed as "case: got", and the test fails unless `ok`, saying what was
/// expected.
pub fn record(case: &str, expected: &str, got: String, ok: bool) {
    println!("{case}: {got}");
    assert!(ok, "{case}: expected {expected}; got {got}");
}

/// How a process ended, as the table shows it.
pub fn ended(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit {code}"),
        (_, Some(signal)) => format!("signal {signal}"),
        _ => "?".into(),
    }
}

/// A quick `destbench run` on the null engine (no I/O on `destination`; the set is still made).
pub fn null_run(destination: &Path) -> Command {
    let mut cmd = destbench();
    cmd.arg("run").arg(destination).args(
        "--engine null --tests files-copy --sets small --set-size 1MB --runs 1 --min-time 0"
            .split(' '),
    );
    cmd
}

/// `destbench run` of a small generated set on `destination`, its sets made in `sources`.
fn small_run(destination: &Path, sources: &Path, tests: &str) -> Command {
    lasting_run(destination, sources, tests, "0")
}

/// [`small_run`] whose repetitions go over the set again until they have lasted `min_time` s.
fn lasting_run(destination: &Path, sources: &Path, tests: &str, min_time: &str) -> Command {
    let mut cmd = destbench();
    cmd.arg("run")
        .arg(destination)
        .args([
            "--tests",
            tests,
            "--sets",
            "small",
            "--set-size",
            "1MB",
            "--threads",
            "2",
        ])
        .args([
            "--runs",
            "1",
            "--min-time",
            min_time,
            "--no-verify",
            "--no-history",
            "--json",
        ])
        .arg("--source-dir")
        .arg(sources)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

/// Runs `cmd`, killing it after `limit` (after a SIGTERM at `signal_after`); its status, None if
/// it had to be killed.
pub fn run_within(
    cmd: &mut Command,
    limit: Duration,
    signal_after: Option<Duration>,
) -> Option<ExitStatus> {
    let mut child = cmd.spawn().expect("run destbench");
    SPAWNED.lock().unwrap().push(child.id());
    let start = Instant::now();
    let mut signalled = false;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        if let Some(after) = signal_after
            && !signalled
            && start.elapsed() >= after
        {
            let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
            signalled = true;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Runs destbench again and again with the swapper at work until it has made [`SWAPS`] swaps;
/// the victim must show no event and no change, and no run may end in a signal. The run's
/// rsync copies and update are among files-copy's variants (rsync is installed in CI).
fn swap_case(case: &str, tests: &str, terminate: bool) {
    let destination = tempfile::tempdir().unwrap();
    let sources = tempfile::tempdir().unwrap();
    let places = [destination.path(), sources.path()];
    let make = |runs: u64| {
        // A SIGTERM lands while the run works, so the scratch's removal races the swaps.
        let signal = terminate.then(|| Duration::from_millis(50 + 10 * (runs % 10)));
        (small_run(destination.path(), sources.path(), tests), signal)
    };
    swapping(case, &places, 200, make);
}

/// The run's rsync copies and update alone, each repeated for a second, with the swapper at
/// work: rsync resolves the scratch's paths itself, where destbench's own writes go through
/// handles.
fn rsync_swap_case() {
    let destination = tempfile::tempdir().unwrap();
    let sources = tempfile::tempdir().unwrap();
    let places = [destination.path(), sources.path()];
    let tests = "files-copy:small-rsync,files-copy:small-rsync-update";
    let make = |_| {
        (
            lasting_run(destination.path(), sources.path(), tests, "1"),
            None,
        )
    };
    swapping("symlink swaps during rsync's copies", &places, 20, make);
}

/// `estimate --tool TOOL` again and again with the swapper at work in the destination, where
/// the tool writes its repositories, and in `--source-dir`, where destbench writes the
/// miniatures, the tool's home, its temporary files and its stderr: whoever writes, nothing
/// outside the scratch changes.
fn tool_swap_case(case: &str, tool: &str) {
    let destination = tempfile::tempdir().unwrap();
    let sources = tempfile::tempdir().unwrap();
    let tree = tempfile::tempdir().unwrap();
    for i in 0..40 {
        let dir = tree.path().join(format!("d{}", i % 4));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(format!("f{i}")),
            vec![b'a' + (i % 26) as u8; 3000 + i],
        )
        .unwrap();
    }
    let make = |_| {
        let mut cmd = destbench();
        cmd.arg("estimate")
            .arg(tree.path())
            .arg("--to")
            .arg(destination.path())
            .args(["--tool", tool, "--json"])
            .arg("--source-dir")
            .arg(sources.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        (cmd, None)
    };
    swapping(case, &[destination.path(), sources.path()], 40, make);
}

/// Runs what `make` makes (a command, and when to SIGTERM it) with the swapper at work in
/// `places` until it has made [`SWAPS`] swaps or `most` runs were made.
fn swapping(
    case: &str,
    places: &[&Path],
    most: u64,
    make: impl Fn(u64) -> (Command, Option<Duration>),
) {
    let victim = Victim::new();
    let swapper = Swapper::start(places, victim.path());
    let (mut runs, mut endings) = (0, Vec::new());
    while (swapper.attempts() < SWAPS || runs == 0) && runs < most {
        let (mut cmd, signal) = make(runs);
        let status = run_within(&mut cmd, Duration::from_secs(120), signal);
        endings.push(status.map_or("hung".to_string(), ended));
        runs += 1;
    }
    let swaps = swapper.stop();
    let touched = victim.touched(&SPAWNED.lock().unwrap());
    let (events, same) = (touched.changes + touched.ours, touched.same);
    let mut kinds = endings.clone();
    kinds.sort();
    kinds.dedup();
    let clean = !endings
        .iter()
        .any(|e| e.starts_with("signal") || e == "hung");
    let left: Vec<String> = places
        .iter()
        .flat_map(|d| entries(d))
        .filter(|e| e.starts_with(".destbench-"))
        .collect();
    if !same || !left.is_empty() {
        eprintln!(
            "{case}: victim now {:?}; left {left:?}",
            entries(victim.path())
        );
    }
    record(
        case,
        "victim unchanged, not opened by destbench; no signal; scratch gone",
        format!(
            "{swaps} swaps over {runs} runs ({}); victim {}, {events} opens/changes by destbench \
             ({} opens by other processes); {} left",
            kinds.join(", "),
            if same { "unchanged" } else { "CHANGED" },
            touched.others,
            left.len()
        ),
        swaps >= SWAPS && events == 0 && same && clean && left.is_empty(),
    );
}

/// Root: fanotify (the victim), mounts, and runs as another user.
fn root() -> bool {
    require_root_and(&["mount", "umount", "setpriv"])
}

fault_cases! {
    ONE_AT_A_TIME;
    symlink_swaps_during_files_copy: root() =>
        swap_case("symlink swaps during files-copy", "files-copy", false);
    symlink_swaps_during_files_restore: root() =>
        swap_case("symlink swaps during files-restore", "files-restore", false);
    symlink_swaps_during_files_delete: root() =>
        swap_case("symlink swaps during files-delete", "files-delete", false);
    symlink_swaps_during_cleanup_sigterm: root() =>
        swap_case("symlink swaps during cleanup (SIGTERM)", "files-copy", true);
    symlink_swaps_during_rsync_copies: require_root_and(&["setpriv", "rsync"]) =>
        rsync_swap_case();
    symlink_swaps_during_estimate_with_restic: require_root_and(&["setpriv", "restic"]) =>
        tool_swap_case("symlink swaps during estimate --tool restic", "restic");
    symlink_swaps_during_estimate_with_borg: require_root_and(&["setpriv", "borg"]) =>
        tool_swap_case("symlink swaps during estimate --tool borg", "borg");
    symlink_swaps_during_estimate_with_rclone: require_root_and(&["setpriv", "rclone"]) =>
        tool_swap_case("symlink swaps during estimate --tool rclone", "rclone");
    symlink_swaps_during_estimate_with_a_command: root() =>
        tool_swap_case("symlink swaps during estimate --tool cmd:", "cmd:cp -r {src} {repo}");
    source_proc: true => sources::proc();
    source_with_a_fifo: true => sources::fifo();
    source_with_a_socket: true => sources::socket();
    source_with_a_device_node: root() => sources::device_node();
    source_with_unreadable_files: root() => sources::unreadable_files();
    source_with_symlink_loops: true => sources::symlink_loops();
    source_with_a_mount_point_inside: root() => sources::mount_point_inside();
    estimate_root_stays_on_its_filesystem: root() => sources::estimate_root();
    sigkill_then_the_next_run_and_clean: true => leftovers::case();
    two_runs_at_once_on_one_destination: true => shared::two_runs_at_once();
    destination_unmounted_mid_run: root() => shared::unmounted_mid_run();
    // Its testbed checks root and the packages itself.
    failing_disk_mid_files_copy: true => failing::case();
}
