//! The fault matrix: what an attacker on a shared share or an unlucky user does to a run, and
//! what destbench must do about it. Each case records (case, expected, got); one test runs them
//! in order, prints the table and fails naming every case that did not hold.
//!
//! Safety, not speed: tiny sets, one repetition, no minimum time, no history.

use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::support::{destbench, entries, require_root_and};
mod failing;
mod leftovers;
mod shared;
mod sources;
mod victim;

use victim::{Swapper, Victim};

/// Every destbench process the matrix started: the victim's opens are counted against these.
static SPAWNED: std::sync::Mutex<Vec<u32>> = std::sync::Mutex::new(Vec::new());

/// Swaps each symlink case must survive.
const SWAPS: u64 = 200;

struct Row {
    case: String,
    expected: String,
    got: String,
    ok: bool,
}

#[derive(Default)]
pub struct Matrix {
    rows: Vec<Row>,
}

impl Matrix {
    pub fn record(&mut self, case: &str, expected: &str, got: String, ok: bool) {
        eprintln!("{case}: {got}");
        self.rows.push(Row {
            case: case.into(),
            expected: expected.into(),
            got,
            ok,
        });
    }

    /// Prints the table (and writes it to `target/tmp/fault-matrix.txt`, which `.ci/run`
    /// shows), then fails naming the cases that did not hold.
    pub fn finish(self) {
        let width = |f: fn(&Row) -> &str| self.rows.iter().map(|r| f(r).len()).max().unwrap_or(0);
        let (c, e) = (width(|r| &r.case), width(|r| &r.expected));
        let mut table = format!("{:c$}  {:e$}  got\n", "case", "expected");
        for r in &self.rows {
            let mark = if r.ok { "" } else { "  <-- FAILED" };
            table += &format!("{:c$}  {:e$}  {}{mark}\n", r.case, r.expected, r.got);
        }
        println!("\n{table}");
        let file = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fault-matrix.txt");
        std::fs::write(&file, &table).unwrap();
        let failed: Vec<&str> = self
            .rows
            .iter()
            .filter(|r| !r.ok)
            .map(|r| r.case.as_str())
            .collect();
        assert!(
            failed.is_empty(),
            "fault cases failed: {}",
            failed.join(", ")
        );
    }
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
/// the victim must show no event and no change, and no run may end in a signal.
fn swap_case(matrix: &mut Matrix, case: &str, tests: &str, terminate: bool) {
    let destination = tempfile::tempdir().unwrap();
    let sources = tempfile::tempdir().unwrap();
    let victim = Victim::new();
    let swapper = Swapper::start(&[destination.path(), sources.path()], victim.path());
    let (mut runs, mut endings) = (0, Vec::new());
    while (swapper.attempts() < SWAPS || runs == 0) && runs < 200 {
        let mut cmd = small_run(destination.path(), sources.path(), tests);
        // A SIGTERM lands while the run works, so the scratch's removal races the swaps.
        let signal = terminate.then(|| Duration::from_millis(50 + 10 * (runs % 10)));
        let status = run_within(&mut cmd, Duration::from_secs(60), signal);
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
    let left: Vec<String> = [destination.path(), sources.path()]
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
    matrix.record(
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

#[test]
fn fault_matrix() {
    if !require_root_and(&["mount", "umount", "setpriv"]) {
        return;
    }
    let mut matrix = Matrix::default();
    for (case, tests, terminate) in [
        ("symlink swaps during files-copy", "files-copy", false),
        ("symlink swaps during files-restore", "files-restore", false),
        ("symlink swaps during files-delete", "files-delete", false),
        ("symlink swaps during cleanup (SIGTERM)", "files-copy", true),
    ] {
        swap_case(&mut matrix, case, tests, terminate);
    }
    sources::cases(&mut matrix);
    leftovers::case(&mut matrix);
    shared::cases(&mut matrix);
    failing::case(&mut matrix);
    matrix.finish();
}
