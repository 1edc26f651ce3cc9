//! `destbench estimate --tool` with a backup program: a user's own command whose time is
//! known, a failing and a hanging one, the presets (restic, borg, rclone) on a temp
//! destination, a tool held back by its own work (borg compressing hard) and one held back by
//! the destination (rclone over the testbed's 100 Mbit/s share).

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::{destbench, entries, exits, have_program, num, run_json, skip, test_tmpdir};
use crate::testbed::Testbed;

/// `files` files of 1-20 kB of text (compressible, as most real files are) in a few
/// directories.
fn text_tree(root: &Path, files: usize) {
    let mut rng = fastrand::Rng::with_seed(39);
    let words = [
        "backup",
        "destination",
        "share",
        "disk",
        "file",
        "miniature",
        "restic",
    ];
    for i in 0..files {
        let dir = root.join(format!("d{}", i % 7));
        std::fs::create_dir_all(&dir).unwrap();
        let size = rng.usize(1000..20_000);
        let mut text = String::new();
        while text.len() < size {
            text.push_str(words[rng.usize(..words.len())]);
            text.push(' ');
        }
        std::fs::write(dir.join(format!("f{i}.txt")), text).unwrap();
    }
}

/// A tool of the user's own: a bash script that copies the source once, then waits `per_file`
/// for each file it holds (bash's own `read -t`, no process per file), so its time is known.
fn sleeping_tool(dir: &Path, per_file: f64) -> std::path::PathBuf {
    let script = dir.join("slow-backup.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/bash\nset -e\ncp -r \"$1\" \"$2\"\nexec 9<> <(:)\nfor f in $(find \"$1\" -type f); do read -t {per_file} -u 9 || true; done\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

/// `destbench estimate TREE --to DEST --tool TOOL`.
fn estimate_command(tree: &Path, dest: &Path, tool: &str) -> std::process::Command {
    let mut command = destbench();
    command
        .arg("estimate")
        .arg(tree)
        .arg("--to")
        .arg(dest)
        .args(["--tool", tool]);
    command
}

/// The estimate's document for `tool` on `tree` to `dest`, with `extra` flags.
fn estimate(tree: &Path, dest: &Path, tool: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "estimate",
        tree.to_str().unwrap(),
        "--to",
        dest.to_str().unwrap(),
        "--tool",
        tool,
        "--json",
    ];
    args.extend(extra);
    run_json(&args)
}

/// Nothing of the tool's repositories, homes or miniatures is left on either side.
fn assert_no_leftovers(dest: &Path) {
    assert!(entries(dest).is_empty(), "{:?}", entries(dest));
    let tmp: Vec<String> = entries(&test_tmpdir())
        .into_iter()
        .filter(|n| n.starts_with(".destbench-"))
        .collect();
    assert!(tmp.is_empty(), "{tmp:?}");
}

/// A script that waits 50 ms per file: the estimate for 60 files is never under the 3 s of
/// waits, and within 15% of the script's real run on the whole tree (its start, cp, find and
/// each wait's wake-up add to the waits, more on a busy machine); the tool used next to no CPU.
#[test]
fn a_users_own_tool_of_known_time_is_estimated() {
    let (tree, dest, tools) = (tempdir(), tempdir(), tempdir());
    text_tree(tree.path(), 60);
    let script = sleeping_tool(tools.path(), 0.05);
    let tool = format!("cmd:{} {{src}} {{repo}}", script.display());
    let doc = estimate(tree.path(), dest.path(), &tool, &[]);
    let start = Instant::now();
    let real = std::process::Command::new(&script)
        .arg(tree.path())
        .arg(tools.path().join("copy"))
        .status()
        .unwrap();
    let real_s = start.elapsed().as_secs_f64();
    assert!(real.success());
    let c = &doc["commands"][0];
    let p = &c["predicted_seconds"];
    let expected = num(&p["expected"]);
    eprintln!(
        "sleeping tool: {p}, real {real_s:.2} s (waits 3.0 s); fit {}",
        c["fit"]
    );
    assert!(
        expected >= 3.0 * 0.95 && (expected / real_s - 1.0).abs() < 0.15,
        "{p}"
    );
    assert!(
        num(&p["low"]) <= expected && expected <= num(&p["high"]),
        "{p}"
    );
    // It waited, on neither side in truth; without the source measured, no side is named.
    assert!(num(&c["limit"]["cores_used"]) < 0.5, "{}", c["limit"]);
    assert_eq!(c["limit"]["side"], "source-or-destination");
    assert!(
        c["second_backup"].is_null(),
        "a cmd: tool makes no incremental"
    );
    assert_no_leftovers(dest.path());
}

/// A tool that fails: its stderr's last lines and the command line, exit 1, nothing left.
#[test]
fn a_failing_tool_says_why_and_leaves_nothing() {
    let (tree, dest) = (tempdir(), tempdir());
    text_tree(tree.path(), 5);
    let tool =
        "cmd:sh -c 'mkdir \"$1\"; echo \"the repository is on fire\" >&2; exit 3' sh {src} {repo}";
    let (_, stderr) = exits(&mut estimate_command(tree.path(), dest.path(), tool), 1);
    assert!(stderr.contains("the repository is on fire"), "{stderr}");
    assert!(
        stderr.contains("exit status: 3") && stderr.contains("sh -c"),
        "{stderr}"
    );
    assert_no_leftovers(dest.path());
}

/// A tool that hangs is killed after --tool-timeout, with what it started.
#[test]
fn a_hanging_tool_is_killed_after_the_limit() {
    let (tree, dest) = (tempdir(), tempdir());
    text_tree(tree.path(), 5);
    // The shell's child, not the shell, holds the marker: the whole group must go.
    let marker = format!("sleep 600.{}", std::process::id());
    let tool = format!("cmd:sh -c 'mkdir \"$1\"; {marker}; true' sh {{src}} {{repo}}");
    let start = Instant::now();
    let (_, stderr) = exits(
        estimate_command(tree.path(), dest.path(), &tool).args(["--tool-timeout", "1"]),
        1,
    );
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
    assert!(stderr.contains("killed after 1 s"), "{stderr}");
    let left = std::process::Command::new("pgrep")
        .args(["-f", &marker])
        .output()
        .unwrap();
    assert!(
        left.stdout.is_empty(),
        "still running: {}",
        String::from_utf8_lossy(&left.stdout)
    );
    assert_no_leftovers(dest.path());
}

/// A preset whose program is missing is one line naming it; --run with a backup program is
/// refused; --setup needs a backup program.
#[test]
fn a_backup_program_needs_its_program_and_a_destination_now() {
    let tree = tempdir();
    let src = tree.path().to_str().unwrap();
    let (_, stderr) = exits(
        destbench().args([
            "estimate",
            src,
            "--to",
            src,
            "--tool",
            "cmd:no-such-backup-tool {src} {repo}",
        ]),
        2,
    );
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("no-such-backup-tool is not installed"),
        "{stderr}"
    );
    let (_, stderr) = exits(
        destbench().args(["estimate", src, "--run", "1", "--tool", "rclone"]),
        2,
    );
    assert!(stderr.contains("must run on the destination"), "{stderr}");
    let (_, stderr) = exits(
        destbench().args(["estimate", src, "--to", src, "--setup", "true"]),
        2,
    );
    assert!(stderr.contains("--setup"), "{stderr}");
}

/// A preset on a temp directory: six timed runs, its second backup, and nothing left; an
/// estimate, or where the runs on a tree this small are all start and noise, the fit's
/// refusal (exit 1). Skips (fails under DESTBENCH_REQUIRE_ALL) without the program.
fn preset_on_a_temp_dir(preset: &str, program: &str) {
    if !have_program(program) {
        skip(&format!(
            "needs {program} installed (Debian: restic, borgbackup, rclone)"
        ));
        return;
    }
    let (tree, dest) = (tempdir(), tempdir());
    text_tree(tree.path(), 300);
    let out = estimate_command(tree.path(), dest.path(), preset)
        .arg("--json")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{preset}: no JSON ({e}): {stderr}"));
    let c = &doc["commands"][0];
    eprintln!(
        "{preset}: {} fit {} limit {} error {}",
        c["predicted_seconds"], c["fit"], c["limit"], c["error"]
    );
    assert_eq!(c["tool"]["name"], preset);
    let runs = c["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 6);
    assert!(
        runs.iter().all(|r| num(&r["seconds"]) >= num(&r["tool_s"])),
        "{runs:?}"
    );
    assert!(
        num(&c["second_backup"]["run"]["seconds"]) > 0.0,
        "{}",
        c["second_backup"]
    );
    if out.status.success() {
        assert!(num(&c["predicted_seconds"]["expected"]) > 0.0);
    } else {
        assert!(
            c["error"].as_str().unwrap().contains("contradict"),
            "{stderr}"
        );
    }
    assert_no_leftovers(dest.path());
}

#[test]
fn restic_is_estimated_on_a_temp_dir() {
    preset_on_a_temp_dir("restic", "restic");
}

#[test]
fn borg_is_estimated_on_a_temp_dir() {
    preset_on_a_temp_dir("borg", "borg");
}

#[test]
fn rclone_is_estimated_on_a_temp_dir() {
    preset_on_a_temp_dir("rclone", "rclone");
}

/// borg compressing with lzma at level 9 works on one thread: its own work, not the temp
/// directory, is the limit; on a machine whose cores other programs keep busy (a test beside
/// others), the shared CPU is.
#[test]
fn borg_compressing_hard_names_itself_the_limit() {
    if !have_program("borg") {
        skip("needs borg installed (Debian: borgbackup)");
        return;
    }
    let (tree, dest) = (tempdir(), tempdir());
    text_tree(tree.path(), 200);
    let doc = estimate(
        tree.path(),
        dest.path(),
        "cmd:borg create --compression lzma,9 {repo}::b {src}",
        &["--setup", "borg init --encryption repokey {repo}"],
    );
    let limit = &doc["commands"][0]["limit"];
    eprintln!("borg lzma,9: {limit}");
    assert!(limit["side"] == "tool" || limit["side"] == "cpu", "{limit}");
    assert_no_leftovers(dest.path());
}

/// rclone copying a few MB of random bytes over the testbed's 100 Mbit/s share: the link, not
/// rclone's work, sets the pace, and with the source measured faster the destination is
/// named. The largest miniature's runs are never faster than its bytes at the link's 12.5 MB/s
/// (the destination really bounds them), and rclone kept less than one core busy.
#[test]
fn rclone_over_a_slow_share_names_the_destination() {
    if !have_program("rclone") {
        skip("needs rclone installed (Debian: rclone)");
        return;
    }
    let Some(tb) = Testbed::up("nas", &["--link", "100mbit"]) else {
        return;
    };
    let tree = tempdir();
    let mut rng = fastrand::Rng::with_seed(39);
    for i in 0..8 {
        let data: Vec<u8> = (0..1_500_000).map(|_| rng.u8(..)).collect();
        std::fs::write(tree.path().join(format!("f{i}.bin")), data).unwrap();
    }
    // Written to the disk: --measure-source leaves out files whose pages cannot be dropped.
    let synced = std::process::Command::new("sync")
        .arg("-f")
        .arg(tree.path())
        .status();
    assert!(synced.unwrap().success());
    let doc = estimate(tree.path(), tb.mount(), "rclone", &["--measure-source"]);
    let c = &doc["commands"][0];
    let limit = &c["limit"];
    assert_eq!(c["source"]["limits"], "destination", "{}", c["source"]);
    eprintln!(
        "rclone over 100 Mbit/s: {} limit {limit}",
        c["predicted_seconds"]
    );
    assert_eq!(limit["side"], "destination", "{limit}");
    assert!(num(&limit["cores_used"]) < 1.0, "{limit}");
    let runs = c["runs"].as_array().unwrap();
    let largest = runs.iter().map(|r| num(&r["share"])).fold(0.0, f64::max);
    for r in runs.iter().filter(|r| num(&r["share"]) == largest) {
        let at_link = num(&r["bytes"]) / 12.5e6;
        assert!(
            num(&r["seconds"]) >= at_link,
            "{r} faster than the link ({at_link:.2} s)"
        );
    }
    assert!(entries(tb.mount()).is_empty(), "{:?}", entries(tb.mount()));
}

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// A tool that tries to write outside the scratch is refused by the confinement, and says so:
/// nothing is written there and no estimate is made of it.
#[test]
fn a_tool_writing_outside_the_scratch_is_refused() {
    if !crate::support::confinement_or_skip() {
        return;
    }
    let (tree, dest, outside) = (tempdir(), tempdir(), tempdir());
    text_tree(tree.path(), 5);
    let escaped = outside.path().join("escaped");
    let tool = format!(
        "cmd:sh -c 'mkdir \"$2\" && echo x > {}' sh {{src}} {{repo}}",
        escaped.display()
    );
    let (_, stderr) = exits(&mut estimate_command(tree.path(), dest.path(), &tool), 1);
    assert!(
        stderr.contains("sh tried to write outside the scratch: refused")
            && stderr.contains(crate::support::CONFINED_BY),
        "{stderr}"
    );
    assert!(
        entries(outside.path()).is_empty(),
        "{:?}",
        entries(outside.path())
    );
    assert_no_leftovers(dest.path());
}

/// Without confinement (simulated), a tool runs only where nobody else can write along the
/// scratch's path, or with --unconfined-programs; each case says which.
#[test]
fn without_confinement_a_tool_runs_only_where_nobody_else_can_write() {
    let (tree, top) = (tempdir(), tempdir());
    text_tree(tree.path(), 5);
    let open = top.path().join("open");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    let tool = "cmd:cp -r {src} {repo}";
    let unconfined = |dest: &Path, extra: &[&str]| {
        let mut cmd = estimate_command(tree.path(), dest, tool);
        cmd.env("DESTBENCH_NO_CONFINEMENT", "1").args(extra);
        cmd
    };
    let (_, stderr) = exits(&mut unconfined(&open, &[]), 1);
    assert!(
        stderr.contains("not run on")
            && stderr.contains("DESTBENCH_NO_CONFINEMENT is set")
            && stderr.contains("open can be written by anyone")
            && stderr.contains("--unconfined-programs runs it anyway"),
        "{stderr}"
    );
    assert_no_leftovers(&open);
    // It runs (whether 5 files make an estimate is not this test's matter).
    for mut cmd in [
        unconfined(&open, &["--unconfined-programs"]),
        unconfined(top.path(), &[]),
    ] {
        let output = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("estimate: running cmd:cp") && !stderr.contains("not run on"),
            "{stderr}"
        );
    }
    assert_no_leftovers(&open);
}
