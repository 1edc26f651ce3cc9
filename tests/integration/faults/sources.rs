//! Sources that must not hang, crash or lead a run astray: `/proc`, FIFOs, sockets, device
//! nodes, unreadable files, symlink loops, a mount point inside, and `estimate /`.

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use super::{ended, null_run, record};
use crate::support::{assert_success, destbench, destbench_setpriv};

/// What a command did within a time limit: how it ended (None: killed at the limit), its stdout
/// and stderr, and how long it took.
struct Ran {
    status: Option<ExitStatus>,
    stdout: String,
    stderr: String,
    took: Duration,
}

impl Ran {
    fn ended(&self) -> String {
        self.status.map_or("killed at the limit".into(), ended)
    }

    fn code(&self) -> Option<i32> {
        self.status.and_then(|s| s.code())
    }

    /// The warnings of the run's files-copy result.
    fn copy_warnings(&self) -> String {
        let doc: serde_json::Value = serde_json::from_str(&self.stdout).unwrap_or_default();
        doc["results"]
            .as_array()
            .and_then(|r| r.iter().find(|r| r["test"] == "files-copy"))
            .map(|r| r["warnings"].to_string())
            .unwrap_or_default()
    }

    /// The files copied per pass by the files-copy result.
    fn copied_per_pass(&self) -> Option<f64> {
        let doc: serde_json::Value = serde_json::from_str(&self.stdout).ok()?;
        let rep = &doc["results"]
            .as_array()?
            .iter()
            .find(|r| r["test"] == "files-copy")?["repetitions"][0];
        Some(rep["ops"].as_f64()? / rep["passes"].as_f64()?)
    }
}

fn output_within(cmd: &mut Command, limit: Duration) -> Ran {
    let start = Instant::now();
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run destbench");
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Ran {
        status,
        took: start.elapsed(),
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

/// `destbench run` copying `source` once (as nobody when `nobody`), results as JSON.
fn copy_source(source: &Path, destination: &Path, nobody: bool) -> Command {
    let mut cmd = if nobody {
        destbench_setpriv(&["--reuid", "65534", "--regid", "65534", "--clear-groups"])
    } else {
        destbench()
    };
    cmd.arg("run").arg(destination).arg("--source").arg(source);
    cmd.args([
        "--tests",
        "files-copy",
        "--threads",
        "1",
        "--runs",
        "1",
        "--min-time",
        "0",
    ]);
    cmd.args(["--no-history", "--json"]);
    cmd
}

/// A source holding one regular file and whatever `add` puts beside it: the run must end by
/// itself in time, copy the one file, and name what it skipped (`expected` in its warnings).
/// `add` returns a mount point it made, unmounted at the end.
fn skip_case(
    case: &str,
    expected: &str,
    nobody: bool,
    add: impl FnOnce(&Path) -> Option<std::path::PathBuf>,
) {
    let source = tempfile::tempdir().unwrap();
    let destination = tempfile::tempdir().unwrap();
    std::fs::write(source.path().join("data"), vec![5u8; 10_000]).unwrap();
    let mounted = add(source.path());
    for dir in [source.path(), destination.path()] {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    }
    let ran = output_within(
        &mut copy_source(source.path(), destination.path(), nobody),
        Duration::from_secs(30),
    );
    let warnings = ran.copy_warnings();
    let copied = ran.copied_per_pass();
    let first_error = ran.stderr.lines().next().unwrap_or("").to_string();
    if let Some(at) = mounted {
        umount(&at);
    }
    record(
        case,
        &format!("exit 0, 1 file copied, \"{expected}\" in the warnings"),
        format!(
            "{} in {:.1} s, {} file(s) copied, {}",
            ran.ended(),
            ran.took.as_secs_f64(),
            copied.map_or("no".into(), |c| c.to_string()),
            if warnings.contains(expected) {
                format!("\"{expected}\" in the warnings")
            } else {
                format!("warnings {warnings} {first_error}")
            }
        ),
        ran.code() == Some(0) && copied == Some(1.0) && warnings.contains(expected),
    );
}

pub fn mount_tmpfs(at: &Path) -> bool {
    std::fs::create_dir_all(at).unwrap();
    Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=16m", "tmpfs"])
        .arg(at)
        .status()
        .is_ok_and(|s| s.success())
}

fn umount(at: &Path) {
    let _ = Command::new("umount").arg(at).status();
}

/// `/proc`: refused at once with one line (its files block, never end, or are memory).
pub fn proc() {
    let destination = tempfile::tempdir().unwrap();
    let ran = output_within(
        &mut copy_source(Path::new("/proc"), destination.path(), false),
        Duration::from_secs(5),
    );
    let lines = ran.stderr.lines().count();
    record(
        "--source /proc",
        "refused or done within 5 s, one-line error, no signal",
        format!(
            "{} in {:.1} s: {}",
            ran.ended(),
            ran.took.as_secs_f64(),
            ran.stderr.trim()
        ),
        ran.code().is_some() && ran.took < Duration::from_secs(5) && lines <= 1,
    );
}

/// A special file at `path`, readable and writable by all.
fn mknod(path: &std::path::Path, kind: rustix::fs::FileType, dev: rustix::fs::Dev) {
    let mode = rustix::fs::Mode::from_raw_mode(0o666);
    rustix::fs::mknodat(rustix::fs::CWD, path, kind, mode, dev).unwrap();
}

pub fn fifo() {
    skip_case("--source with a FIFO", "1 FIFO", false, |dir| {
        mknod(&dir.join("pipe"), rustix::fs::FileType::Fifo, 0);
        None
    });
}

pub fn socket() {
    let mut listener = None;
    skip_case("--source with a socket", "1 socket", false, |dir| {
        listener = Some(std::os::unix::net::UnixListener::bind(dir.join("sock")).unwrap());
        None
    });
    drop(listener);
}

pub fn device_node() {
    skip_case("--source with a device node", "1 device", false, |dir| {
        // /dev/kmsg's numbers: a read of it waits for the next kernel message.
        mknod(
            &dir.join("kmsg"),
            rustix::fs::FileType::CharacterDevice,
            rustix::fs::makedev(1, 11),
        );
        None
    });
}

pub fn unreadable_files() {
    skip_case(
        "--source with unreadable files",
        "3 unreadable",
        true,
        |dir| {
            for name in ["secret1", "secret2", "secret3"] {
                std::fs::write(dir.join(name), b"no").unwrap();
                std::fs::set_permissions(dir.join(name), std::fs::Permissions::from_mode(0o000))
                    .unwrap();
            }
            None
        },
    );
}

pub fn symlink_loops() {
    skip_case("--source with symlink loops", "5 symlinks", false, |dir| {
        for (name, target) in [
            ("loop", "loop"),
            ("a", "b"),
            ("b", "a"),
            ("self", "."),
            ("up", ".."),
        ] {
            std::os::unix::fs::symlink(target, dir.join(name)).unwrap();
        }
        None
    });
}

pub fn mount_point_inside() {
    skip_case(
        "--source with a mount point inside",
        "1 other filesystem",
        false,
        |dir| {
            let at = dir.join("mnt");
            assert!(mount_tmpfs(&at), "mount tmpfs");
            std::fs::write(at.join("elsewhere"), b"on another filesystem").unwrap();
            Some(at)
        },
    );
}

/// `estimate /` with a tmpfs mounted below / holding a 1 TiB sparse file: counted as another
/// filesystem, its file's size never added.
pub fn estimate_root() {
    let root_dev = std::fs::metadata("/")
        .map(|m| std::os::unix::fs::MetadataExt::dev(&m))
        .unwrap();
    let Some(base) = ["/var/tmp", "/root", "/tmp"].into_iter().find(|p| {
        std::fs::metadata(p).is_ok_and(|m| std::os::unix::fs::MetadataExt::dev(&m) == root_dev)
    }) else {
        crate::support::skip("no directory on /'s filesystem to mount a tmpfs in");
        return;
    };
    let place = tempfile::tempdir_in(base).unwrap();
    let at = place.path().join("mnt");
    assert!(mount_tmpfs(&at), "mount tmpfs");
    std::fs::File::create(at.join("huge"))
        .unwrap()
        .set_len(1 << 40)
        .unwrap();
    // A stored run to estimate from (the survey is what is tested).
    let db = place.path().join("history.sqlite");
    let dest = tempfile::tempdir().unwrap();
    let stored = null_run(dest.path()).arg("--db").arg(&db).output().unwrap();
    assert_success(&stored);
    let mut cmd = destbench();
    cmd.args(["estimate", "/", "--run", "1", "--json", "--db"])
        .arg(&db);
    let ran = output_within(&mut cmd, Duration::from_secs(300));
    umount(&at);
    let doc: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap_or_default();
    let source = &doc["source"];
    let bytes = source["bytes"].as_f64().unwrap_or(f64::MAX);
    let others = source["skipped"]["other_filesystems"].as_u64().unwrap_or(0);
    record(
        "estimate /",
        "stays on /'s filesystem: the mounted 1 TiB not counted",
        format!(
            "{} in {:.1} s: {} files, {:.1} GB, {others} other filesystems skipped",
            ran.ended(),
            ran.took.as_secs_f64(),
            source["files"],
            bytes / 1e9
        ),
        ran.status.is_some_and(|s| s.code().is_some())
            && bytes < (1u64 << 40) as f64
            && others >= 1,
    );
}
