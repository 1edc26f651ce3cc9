//! Windows: the low integrity level, as Internet Explorer's protected mode and Chrome's sandbox
//! use it. Each scratch directory is labelled Low, the label inherited by everything made in it
//! afterwards, and the program runs with a Low token. Windows' mandatory policy (no write up)
//! then refuses that program every write to an object of a higher level: the user's files,
//! which are Medium when unlabelled, a junction's target among them, since the check is on the
//! object reached, not on the path.
//!
//! std's `Command` cannot start a process with a token of our choosing, so the program is
//! started through destbench itself: `destbench.exe __destbench_low_integrity_child PROGRAM
//! ARGS…` ([`low_integrity_child`], called first thing in `destbench::main`) lowers its own
//! token to Low and starts PROGRAM, which inherits that token, with the stdio, environment and
//! directory it was given, then exits with PROGRAM's exit code.

mod label;
mod launcher;

use std::ffi::OsStr;
use std::io;
use std::process::Command;

use super::Writable;
use label::{LocalBox, label_low, on_network};
pub use launcher::low_integrity_child;

/// The first argument that makes destbench the launcher of a Low program, not itself.
pub const CHILD_MARKER: &str = "__destbench_low_integrity_child";

/// The label each scratch directory gets: Low (`LW`), no write up (`NW`), inherited by the
/// files (`OI`) and directories (`CI`) made in it.
const LOW_LABEL_SDDL: &str = "S:(ML;OICI;NW;;;LW)";

/// The label's ACE, as Windows writes it back when asked for the directory's label.
const LOW_LABEL_ACE: &str = "(ML;OICI;NW;;;LW)";

/// The relative identifier of the Low integrity SID, S-1-16-4096.
const LOW_RID: u32 = 0x1000;

/// `SE_GROUP_INTEGRITY`: the SID in a token's integrity label is its level.
const SE_GROUP_INTEGRITY: u32 = 0x20;

/// The launcher's exit code when it could not start the program (as shells report it).
const LAUNCH_FAILED: i32 = 126;

/// The label set on the scratch directories; the program is started Low.
pub struct Rules {
    _labelled: (),
}

/// Labels each of `writable` Low (its contents made from now on inherit the label), and says
/// what confines in words. Contents already there keep their level: the caller confines the
/// scratch before anything is made in it.
pub fn confine(writable: &[Writable<'_>]) -> Result<(Rules, String), String> {
    let label = LocalBox::security_descriptor(LOW_LABEL_SDDL)
        .map_err(|e| format!("building the low integrity label: {e}"))?;
    for w in writable {
        if on_network(w.dir).map_err(|e| format!("{}: {e}", w.path.display()))? {
            return Err(format!(
                "{} is on a network share, whose server checks its writes, not this system's integrity levels",
                w.path.display()
            ));
        }
        label_low(w, &label)
            .map_err(|e| format!("labelling {} low integrity: {e}", w.path.display()))?;
    }
    Ok((
        Rules { _labelled: () },
        "Windows' low integrity level (the scratch labelled low, the program started low)"
            .to_string(),
    ))
}

/// `program` started Low, through destbench itself (see the module's comment); the caller
/// adds the arguments, environment and stdio, all passed on to `program`. The caller's
/// `Child` is the launcher, which only waits: the CPU time it reports is the launcher's, not
/// the program's. Ending the launcher ends the program and what it left running (its job
/// closes).
pub fn command(_rules: &Rules, program: &OsStr) -> io::Result<Command> {
    let mut command = Command::new(std::env::current_exe()?);
    command.args(launcher_args(program));
    Ok(command)
}

/// The launcher's arguments before the caller's: the marker, then the program.
fn launcher_args(program: &OsStr) -> [&OsStr; 2] {
    [OsStr::new(CHILD_MARKER), program]
}

#[cfg(test)]
mod tests {
    use super::label::{LocalBox, is_low_label, on_network};
    use super::launcher::{launched, own_integrity_rid};
    use super::*;
    use std::ffi::OsString;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_launcher_comes_first_then_the_program_then_its_arguments() {
        let rules = Rules { _labelled: () };
        let mut command = command(&rules, OsStr::new(r"C:\Program Files\rsync\rsync.exe")).unwrap();
        command.args(["-a", r"E:\src\", r"E:\destbench-1\dst"]);
        assert_eq!(command.get_program(), std::env::current_exe().unwrap());
        let args: Vec<&OsStr> = command.get_args().collect();
        assert_eq!(
            args,
            [
                CHILD_MARKER,
                r"C:\Program Files\rsync\rsync.exe",
                "-a",
                r"E:\src\",
                r"E:\destbench-1\dst"
            ]
        );
    }

    #[test]
    fn the_marker_is_recognised_only_first() {
        let args = os(&["destbench.exe", CHILD_MARKER, "restic", "backup", "E:\\src"]);
        let (program, rest) = launched(&args).unwrap().unwrap();
        assert_eq!(program, "restic");
        assert_eq!(rest, os(&["backup", "E:\\src"]));
        let bare = os(&["destbench.exe", CHILD_MARKER, "borg"]);
        assert_eq!(launched(&bare).unwrap().unwrap().1, [] as [OsString; 0]);
        // A user's own arguments are destbench's, the marker anywhere else included.
        assert!(launched(&os(&["destbench.exe", "run", "E:\\"])).is_none());
        assert!(launched(&os(&["destbench.exe", "run", CHILD_MARKER, "x"])).is_none());
        assert!(launched(&os(&["destbench.exe"])).is_none());
        assert!(low_integrity_child(&os(&["destbench.exe", "list"])).is_none());
    }

    /// With no program the launcher fails, and runs nothing.
    #[test]
    fn the_marker_alone_fails() {
        let args = os(&["destbench.exe", CHILD_MARKER]);
        assert!(launched(&args).unwrap().is_err());
        assert_eq!(low_integrity_child(&args), Some(LAUNCH_FAILED));
    }

    #[test]
    fn the_label_read_back_is_recognised() {
        assert!(is_low_label("S:(ML;OICI;NW;;;LW)"));
        // Auto-inherited flags on the SACL, and another ACE beside it.
        assert!(is_low_label("S:AI(ML;OICI;NW;;;LW)(AU;SA;FA;;;WD)"));
        assert!(!is_low_label(""));
        assert!(!is_low_label("S:(ML;OICI;NW;;;ME)"));
        // Not inherited by the directory's contents: files made in it would be Medium.
        assert!(!is_low_label("S:(ML;;NW;;;LW)"));
        assert!(!is_low_label("D:(ML;OICI;NW;;;LW)"));
    }

    /// The descriptor the label is set from says what it should.
    #[test]
    fn the_label_is_low_no_write_up_and_inherited() {
        assert!(is_low_label(LOW_LABEL_SDDL));
        LocalBox::security_descriptor(LOW_LABEL_SDDL).unwrap();
    }

    #[test]
    fn a_local_directory_is_not_on_a_network() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = crate::platform::open_dir(tmp.path()).unwrap();
        let dir = crate::platform::AsHandleRef::handle_ref(&dir);
        assert!(!on_network(dir).unwrap());
    }

    /// Tests run at the user's level, above Low: what the launcher checks it left.
    #[test]
    fn the_test_process_is_not_low() {
        assert!(own_integrity_rid().unwrap() > LOW_RID);
    }

    /// Run on Windows only: wine keeps no integrity labels (`scripts/windows-check` skips
    /// these by name). Each fails, never skips, where the label or the Low token is refused.
    mod windows_only {
        use super::super::launcher::own_integrity_rid;
        use super::super::*;
        use super::os;
        use crate::platform::{self, AsHandleRef};

        /// Set in the test's own re-runs: the file the Low program writes.
        const TARGET_ENV: &str = "DESTBENCH_TEST_LOW_TARGET";
        const THIS_TEST: &str = "platform::confine::windows::tests::windows_only::a_low_program_writes_in_the_scratch_only";

        /// The test process run again (it names this test only): at Medium it is the launcher
        /// (`low_integrity_child`) of itself; at Low it writes the target, exiting 0 when it
        /// could, 5 when access was denied.
        fn rerun(target: &std::path::Path) -> i32 {
            std::process::Command::new(std::env::current_exe().unwrap())
                .args(["--exact", THIS_TEST, "--nocapture", "--test-threads=1"])
                .env(TARGET_ENV, target)
                .status()
                .unwrap()
                .code()
                .unwrap()
        }

        /// The re-run's part, when it is one.
        fn as_rerun() {
            let Some(target) = std::env::var_os(TARGET_ENV) else {
                return;
            };
            let code = if own_integrity_rid().unwrap() == LOW_RID {
                match std::fs::write(&target, b"low") {
                    Ok(()) => 0,
                    Err(e) if e.kind() == io::ErrorKind::PermissionDenied => 5,
                    Err(_) => 1,
                }
            } else {
                let exe = std::env::current_exe().unwrap();
                let mut args = os(&["destbench.exe", CHILD_MARKER]);
                args.push(exe.into_os_string());
                args.extend(os(&[
                    "--exact",
                    THIS_TEST,
                    "--nocapture",
                    "--test-threads=1",
                ]));
                low_integrity_child(&args).unwrap()
            };
            std::process::exit(code);
        }

        #[test]
        fn a_low_program_writes_in_the_scratch_only() {
            as_rerun();
            let tmp = tempfile::tempdir().unwrap();
            let scratch = tmp.path().join("scratch");
            let outside = tmp.path().join("outside");
            std::fs::create_dir(&scratch).unwrap();
            std::fs::create_dir(&outside).unwrap();
            let dir = platform::open_dir(&scratch).unwrap();
            let writable = [Writable {
                dir: dir.handle_ref(),
                path: &scratch,
            }];
            let (_rules, how) = confine(&writable).unwrap();
            assert!(how.contains("low integrity"), "{how}");
            assert_eq!(rerun(&scratch.join("in")), 0, "writing in the scratch");
            assert_eq!(std::fs::read(scratch.join("in")).unwrap(), b"low");
            assert_eq!(rerun(&outside.join("out")), 5, "writing outside it");
            assert!(!outside.join("out").exists());
        }
    }
}
