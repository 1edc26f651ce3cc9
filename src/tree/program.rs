//! A tree copied by another program, as a backup tool runs it (`cp -a`, `rsync -a`): a child in
//! a process group of its own, writing into a directory destbench made in its scratch, timed
//! from a syncfs of the destination before to the end of one after, and stopped with what it
//! started on Ctrl-C, SIGTERM or the page's Cancel. It is started by the run's launcher, which
//! confines it to the scratch: a write it was refused outside is an error, never a figure.

use std::io::Read;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::interrupt;
use crate::platform::confine::Launcher;
use crate::platform::{self, CpuClock, HandleRef};
use crate::workload::CopyProgram;

/// The most of the program's stderr an error quotes, in bytes (its end).
const TAIL_BYTES: usize = 2048;
/// rsync's exit codes for a copy that went through but left files out: some could not be read
/// (23), some vanished while it ran (24). A backup of such a folder ends the same way.
const RSYNC_PARTIAL: [i32; 2] = [23, 24];

/// One timed copy: wall time from syncfs to syncfs, and the program's CPU time where the system
/// says.
pub struct ProgramCopy {
    pub elapsed: Duration,
    pub cpu: Option<Duration>,
    /// What the program said where it left files out but copied the rest.
    pub incomplete: Option<String>,
}

/// Copies `src`'s contents into the existing, empty directory `dst` with `program`, started by
/// `launcher`, timed from a syncfs of `destination` (the filesystem holding `dst`) to the end
/// of another.
pub fn timed_copy(
    program: CopyProgram,
    (src, dst): (&Path, &Path),
    destination: HandleRef<'_>,
    launcher: &Launcher,
) -> Result<ProgramCopy> {
    let syncfs = || {
        platform::syncfs(destination).map_err(|e| Error::Destination {
            path: dst.to_path_buf(),
            problem: format!("syncfs: {e}"),
        })
    };
    syncfs()?;
    let start = Instant::now();
    let (cpu, incomplete) = copy_with(program, src, dst, launcher)?;
    syncfs()?;
    Ok(ProgramCopy {
        elapsed: start.elapsed(),
        cpu,
        incomplete,
    })
}

/// Runs `program` to copy `src`'s contents into `dst`, as a backup calls it; its CPU time, and
/// what it said where it left files out.
fn copy_with(
    program: CopyProgram,
    src: &Path,
    dst: &Path,
    launcher: &Launcher,
) -> Result<(Option<Duration>, Option<String>)> {
    let mut command = launcher
        .command(program.program())
        .map_err(|e| Error::io(format!("confining {program}"), e))?;
    match program {
        CopyProgram::Cp => command.arg("-a").arg(src.join(".")).arg(dst),
        // A trailing slash: the directory's contents, not the directory itself.
        CopyProgram::Rsync => command
            .arg("-a")
            .arg(format!("{}/", src.display()))
            .arg(format!("{}/", dst.display())),
    };
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    platform::own_process_group(&mut command);
    let clock = CpuClock::start();
    let mut child = command
        .spawn()
        .map_err(|e| Error::io(format!("running {program}"), e))?;
    let group = platform::Group::of(&child);
    // Read on a thread of its own: a program that says much must never block on a full pipe.
    let stderr = child.stderr.take().map(|mut pipe| {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = pipe.read_to_end(&mut text);
            text
        })
    });
    let waited = platform::wait_unless(&mut child, &group, || interrupt::check().is_err())
        .map_err(|e| Error::io(format!("waiting for {program}"), e))?;
    let cpu = clock.used(&child);
    let said = stderr
        .and_then(|reader| reader.join().ok())
        .unwrap_or_default();
    interrupt::check()?;
    let partial = |code| program == CopyProgram::Rsync && RSYNC_PARTIAL.contains(&code);
    let refused = launcher.refused(&String::from_utf8_lossy(&said));
    match waited {
        Some(status) if !status.success() && refused => Err(Error::Destination {
            path: dst.to_path_buf(),
            problem: format!(
                "{program} tried to write outside the scratch: refused ({}): {}",
                launcher.describe(),
                last_words(&said)
            ),
        }),
        Some(status) if status.success() => Ok((cpu, None)),
        Some(status) if status.code().is_some_and(partial) => Ok((
            cpu,
            Some(format!(
                "{program} -a left files out ({status}): {}",
                last_words(&said)
            )),
        )),
        ended => Err(Error::Destination {
            path: dst.to_path_buf(),
            problem: format!(
                "{program} -a {}: {}",
                ended.map_or("was stopped".to_string(), |s| format!("ended with {s}")),
                last_words(&said)
            ),
        }),
    }
}

/// The end of what a program wrote to stderr, on one line.
fn last_words(stderr: &[u8]) -> String {
    let tail = &stderr[stderr.len().saturating_sub(TAIL_BYTES)..];
    let text = String::from_utf8_lossy(tail);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    match lines.as_slice() {
        [] => "it said nothing on stderr".to_string(),
        lines => lines[lines.len().saturating_sub(3)..].join(" / "),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::platform::AsHandleRef;
    use crate::platform::confine::Writable;

    fn tree_with_files(dir: &Path) {
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("a"), b"alpha").unwrap();
        std::fs::write(dir.join("sub/b"), vec![7u8; 10_000]).unwrap();
    }

    /// Whether `program` is not installed: a skip said on stderr, a failure where
    /// `DESTBENCH_REQUIRE_ALL` is set (`.ci/run` sets it; CI installs cp and rsync).
    fn missing(program: &str) -> bool {
        if platform::program_exists(program) {
            return false;
        }
        assert!(
            std::env::var_os("DESTBENCH_REQUIRE_ALL").is_none(),
            "{program} must be installed where DESTBENCH_REQUIRE_ALL is set"
        );
        eprintln!("skipped: {program} is not installed");
        true
    }

    /// The run's launcher for programs writing beneath `dir` (open as `fd`).
    fn confined_to(fd: &platform::Handle, dir: &Path) -> Launcher {
        let writable = [Writable {
            dir: fd.handle_ref(),
            path: dir,
        }];
        platform::confine::launcher(&writable, false).unwrap()
    }

    #[test]
    fn a_copy_led_out_of_the_scratch_is_refused_not_timed() {
        let tmp = tempfile::tempdir().unwrap();
        let (src, scratch, outside) = (
            tmp.path().join("src"),
            tmp.path().join("scratch"),
            tmp.path().join("outside"),
        );
        if missing("rsync") {
            return;
        }
        tree_with_files(&src);
        std::fs::create_dir(&scratch).unwrap();
        std::fs::create_dir(&outside).unwrap();
        // The copy's directory swapped for a link out, as another user of a share could.
        let dst = scratch.join("rsync-0-0-1");
        crate::platform::symlink(&outside, &dst).unwrap();
        let fd = platform::open_dir(&scratch).unwrap();
        let launcher = confined_to(&fd, &scratch);
        if !matches!(launcher, Launcher::Confined(_)) {
            assert!(
                std::env::var_os("DESTBENCH_REQUIRE_ALL").is_none(),
                "no confinement here"
            );
            return;
        }
        let e = timed_copy(CopyProgram::Rsync, (&src, &dst), fd.handle_ref(), &launcher)
            .err()
            .expect("refused")
            .to_string();
        assert!(
            e.contains("rsync tried to write outside the scratch: refused"),
            "{e}"
        );
        assert!(e.contains("Landlock"), "{e}");
        assert_eq!(
            std::fs::read_dir(&outside).unwrap().count(),
            0,
            "nothing written there"
        );
    }

    #[test]
    fn each_program_copies_the_contents_not_the_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("src");
        tree_with_files(&src);
        for program in [CopyProgram::Cp, CopyProgram::Rsync] {
            if missing(program.program()) {
                continue;
            }
            let dst = tmp.path().join(format!("to-{program}"));
            std::fs::create_dir(&dst).unwrap();
            let fd = platform::open_dir(&dst).unwrap();
            let launcher = confined_to(&fd, &dst);
            let copy = timed_copy(program, (&src, &dst), fd.handle_ref(), &launcher).unwrap();
            assert_eq!(std::fs::read(dst.join("a")).unwrap(), b"alpha", "{program}");
            assert_eq!(std::fs::read(dst.join("sub/b")).unwrap().len(), 10_000);
            assert!(copy.elapsed > Duration::ZERO);
        }
    }

    #[test]
    fn a_failing_program_says_what_it_said() {
        let tmp = tempfile::tempdir().unwrap();
        let missing = tmp.path().join("not-there");
        let dst = tmp.path().join("dst");
        std::fs::create_dir(&dst).unwrap();
        let launcher = Launcher::Unconfined {
            why: "a test".into(),
        };
        let e = copy_with(CopyProgram::Cp, &missing, &dst, &launcher)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("cp -a ended with") && e.contains("not-there"),
            "{e}"
        );
    }

    #[test]
    fn last_words_keeps_the_last_lines() {
        assert_eq!(last_words(b""), "it said nothing on stderr");
        assert_eq!(last_words(b"a\n\nb\nc\nd\n"), "b / c / d");
    }
}
