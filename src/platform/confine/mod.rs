//! The programs destbench starts on a destination (`rsync -a` for the answer's rsync times, the
//! backup tools and the user's command under `estimate --tool`) kept inside its scratch, as its
//! own writes are: they resolve paths the ordinary way, so a directory of the scratch swapped
//! for a symlink by someone else who can write there would lead their writes out of it.
//!
//! Each system's own confinement binds the program, before it runs, to writing beneath the
//! scratch directories it works in: Landlock on Linux (`linux.rs`, rules bound to the
//! directories' open handles), the sandbox on macOS (`macos.rs`, a profile naming their real
//! paths), a low integrity level on Windows (`windows/`, the directories labelled low, the
//! program started low). A write elsewhere, through a symlink or not, then fails with a
//! permission error.
//!
//! Where the system offers none, a program runs unconfined only where nobody else can write
//! along the scratch's path ([`shared_path`]), or where the user said to run it anyway; else it
//! is not run, and the caller says why.

use std::ffi::OsStr;
use std::io;
use std::path::Path;
use std::process::Command;

use super::HandleRef;

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
use linux as imp;
#[cfg(any(target_os = "macos", test))]
mod macos;
#[cfg(target_os = "macos")]
use macos as imp;
#[cfg(unix)]
mod shared_path;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as imp;
#[cfg(windows)]
pub use windows::low_integrity_child;

/// Set (to anything) to behave as a system without confinement does: what a test of that case
/// runs under. It weakens nothing: without confinement the stricter rule of [`launcher`] holds.
pub const NO_CONFINEMENT_ENV: &str = "DESTBENCH_NO_CONFINEMENT";

/// A directory a confined program may write beneath: open (Linux binds its rule to the handle,
/// Windows labels the directory through it) and the path it was opened at (macOS's profile
/// names the real path, which the handle gives there).
#[derive(Clone, Copy)]
pub struct Writable<'a> {
    pub dir: HandleRef<'a>,
    pub path: &'a Path,
}

/// The system's confinement, set up for some directories.
pub struct Confinement {
    rules: imp::Rules,
    /// What confines, in words: "Landlock (ABI 3)".
    how: String,
}

/// How the programs of a run are started.
pub enum Launcher {
    /// Bound by the system to write only beneath the scratch directories.
    Confined(Confinement),
    /// Started as they are: the system offers no confinement (`why`), and nobody else can
    /// write along the scratch's path, or the user said to run them anyway.
    Unconfined { why: String },
}

impl Launcher {
    /// A command for `program`, started confined where this launcher is; the caller adds the
    /// arguments.
    pub fn command(&self, program: impl AsRef<OsStr>) -> io::Result<Command> {
        match self {
            Launcher::Confined(c) => imp::command(&c.rules, program.as_ref()),
            Launcher::Unconfined { .. } => Ok(Command::new(program)),
        }
    }

    /// What keeps the programs in, or why nothing does: for the run's words.
    pub fn describe(&self) -> String {
        match self {
            Launcher::Confined(c) => format!("confined to the scratch by {}", c.how),
            Launcher::Unconfined { why } => format!("not confined ({why})"),
        }
    }

    /// Whether a program that failed, saying `stderr`, was refused a write outside the scratch:
    /// a confined program's only writes that can be denied are those outside it (inside, it has
    /// every right the system can check). A denied read (a source's unreadable file) is a
    /// program's own matter: rsync's sender and cp's reads say so.
    pub fn refused(&self, stderr: &str) -> bool {
        matches!(self, Launcher::Confined(_)) && stderr.lines().any(denied_write)
    }
}

/// Whether a line a program wrote to stderr says a write was denied, not on a read: EACCES
/// or EPERM (Landlock, the sandbox), EROFS (Linux's read-only view of the rest), "Access is
/// denied" (Windows' integrity levels).
fn denied_write(line: &str) -> bool {
    let denied = [
        "Permission denied",
        "permission denied",
        "Operation not permitted",
        "Read-only file system",
        "Access is denied",
    ]
    .iter()
    .any(|d| line.contains(d));
    let reading = [
        "[sender]",
        "for reading",
        "opendir",
        "cannot access",
        "read error",
    ]
    .iter()
    .any(|r| line.contains(r));
    denied && !reading
}

/// How programs may be started that work in `writable` (the scratch directories): confined
/// where the system can; where it cannot, unconfined only where nobody else can write along
/// their paths (nor is any on a network share), or where `run_anyway`. Err says why they may
/// not run, in words that end the run's sentence "… not run: ".
pub fn launcher(writable: &[Writable<'_>], run_anyway: bool) -> Result<Launcher, String> {
    let none = match std::env::var_os(NO_CONFINEMENT_ENV) {
        Some(_) => format!("{NO_CONFINEMENT_ENV} is set"),
        None => match imp::confine(writable) {
            Ok((rules, how)) => return Ok(Launcher::Confined(Confinement { rules, how })),
            Err(why) => why,
        },
    };
    if run_anyway {
        return Ok(Launcher::Unconfined {
            why: format!("{none}; run anyway as asked"),
        });
    }
    match others_can_write(writable) {
        None => Ok(Launcher::Unconfined {
            why: format!("{none}; nobody else can write along the scratch's path"),
        }),
        Some(who) => Err(format!(
            "{none}, and {who}: someone else could swap a directory of the scratch for a link out of it"
        )),
    }
}

/// Who else could change the scratch directories' paths, if anyone: the first directory along
/// them that others can write in, or a network share (whose server maps other users in).
#[cfg(unix)]
fn others_can_write(writable: &[Writable<'_>]) -> Option<String> {
    writable
        .iter()
        .find_map(|w| shared_path::others_can_write(w.dir, w.path))
}

/// Windows' low integrity level is always there (Vista on): this is never asked.
#[cfg(windows)]
fn others_can_write(_: &[Writable<'_>]) -> Option<String> {
    Some("this system's access lists are not checked".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_denied_are_told_from_reads_denied() {
        for line in [
            r#"rsync: [receiver] mkstemp "/x/.a.Qw3" failed: Permission denied (13)"#,
            r#"rsync: [generator] recv_generator: mkdir "/x/d" failed: Permission denied (13)"#,
            "sh: 1: cannot create /tmp/outside: Permission denied",
            "cp: cannot create regular file '/x/a': Permission denied",
            "Fatal: unable to open repository at /x/repo: mkdir /x/repo: permission denied",
            "touch: setting times of '/x/victim': Read-only file system",
            "Fatal: unable to create lock in backend: open C:\\x\\locks\\a: Access is denied.",
        ] {
            assert!(denied_write(line), "{line}");
        }
        for line in [
            r#"rsync: [sender] send_files failed to open "/src/a": Permission denied (13)"#,
            "cp: cannot open '/src/a' for reading: Permission denied",
            "rsync error: some files/attrs were not transferred (code 23)",
        ] {
            assert!(!denied_write(line), "{line}");
        }
    }
}
