//! Linux: Landlock. The ruleset is made in destbench, before any program starts: it handles
//! every right that writes (the best the kernel's ABI offers, as the `landlock` crate degrades
//! it) and grants them beneath each scratch directory's open handle, and grants writing to
//! `/dev/null`. The child, between fork and exec, sets `no_new_privs` and restricts itself
//! with it: two system calls, nothing that allocates. Reads and execution stay free: a
//! program reads its libraries, its configuration and the source it is given.

use std::ffi::OsStr;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::Command;

use landlock::{
    ABI, AccessFs, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr,
};

use super::Writable;

/// The ruleset, open (close-on-exec: the program never holds it).
pub struct Rules(OwnedFd);

/// The newest ABI this code asks for; an older kernel's is taken as the crate degrades.
const ABI_ASKED: ABI = ABI::V5;

/// The kernel's Landlock ABI version, or why there is none.
fn kernel_abi() -> Result<i32, String> {
    // SAFETY: landlock_create_ruleset with a null attribute, size 0 and the VERSION flag only
    // returns the ABI version (or -1 and errno); it reads and writes no memory.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32, // LANDLOCK_CREATE_RULESET_VERSION
        )
    };
    if v >= 1 {
        return Ok(v as i32);
    }
    Err(match io::Error::last_os_error().raw_os_error() {
        Some(libc::EOPNOTSUPP) => "Landlock is built into this kernel but not enabled at boot",
        _ => "this kernel has no Landlock (Linux 5.13 and later have it)",
    }
    .to_string())
}

/// The rights a program is granted beneath the scratch and refused elsewhere: every write;
/// ioctls on devices and connecting to Unix sockets are not writes to files, and are left
/// to the system's own permissions.
fn write_rights() -> BitFlags<AccessFs> {
    AccessFs::from_write(ABI_ASKED) & !AccessFs::IoctlDev
}

/// The ruleset for `writable`, and what it is in words.
pub fn confine(writable: &[Writable<'_>]) -> Result<(Rules, String), String> {
    let abi = kernel_abi()?;
    let rights = write_rights();
    let refused = |e: landlock::RulesetError| format!("Landlock refused the rules: {e}");
    let null = PathFd::new("/dev/null").map_err(|e| format!("opening /dev/null: {e}"))?;
    let mut created = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(rights)
        .map_err(refused)?
        .create()
        .map_err(refused)?
        .add_rule(PathBeneath::new(
            null,
            AccessFs::from_file(ABI_ASKED) & rights,
        ))
        .map_err(refused)?;
    for w in writable {
        created = created
            .add_rule(PathBeneath::new(w.dir, rights))
            .map_err(refused)?;
    }
    let fd: Option<OwnedFd> = created.into();
    let fd = fd.ok_or_else(|| "Landlock is not available to this process".to_string())?;
    Ok((Rules(fd), format!("Landlock (ABI {abi})")))
}

/// `program`, to be restricted by `rules` between fork and exec.
pub fn command(rules: &Rules, program: &OsStr) -> io::Result<Command> {
    let fd = rules.0.as_raw_fd();
    let mut command = Command::new(program);
    let restrict = move || -> io::Result<()> {
        // SAFETY: prctl(PR_SET_NO_NEW_PRIVS, 1) takes no pointers; Landlock requires it of a
        // process that is not privileged, and it keeps a set-uid program from shedding the rules.
        if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: landlock_restrict_self takes the ruleset's descriptor (open in the parent,
        // inherited by this child until exec) and flags; it touches no memory of ours.
        if unsafe { libc::syscall(libc::SYS_landlock_restrict_self, fd, 0u32) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    };
    // SAFETY: the closure runs in the child between fork and exec; it makes two system calls
    // and allocates nothing, so it is async-signal-safe.
    unsafe { command.pre_exec(restrict) };
    Ok(command)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::{self, AsHandleRef};

    /// Landlock must be there where CI runs (Debian's kernels and this machine's have it).
    fn landlock_or_skip() -> bool {
        match kernel_abi() {
            Ok(_) => true,
            Err(why) => {
                assert!(
                    std::env::var_os("DESTBENCH_REQUIRE_ALL").is_none(),
                    "Landlock is required here: {why}"
                );
                eprintln!("skipped: {why}");
                false
            }
        }
    }

    #[test]
    fn a_confined_program_writes_beneath_its_directory_and_nowhere_else() {
        if !landlock_or_skip() {
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let (inside, outside) = (tmp.path().join("inside"), tmp.path().join("outside"));
        std::fs::create_dir(&inside).unwrap();
        std::fs::create_dir(&outside).unwrap();
        // A link inside that leads out: the swap a confined program must not follow.
        std::os::unix::fs::symlink(&outside, inside.join("link")).unwrap();
        let dir = platform::open_dir(&inside).unwrap();
        let writable = [Writable {
            dir: dir.handle_ref(),
            path: &inside,
        }];
        let (rules, how) = confine(&writable).unwrap();
        assert!(how.starts_with("Landlock (ABI "), "{how}");
        let script = format!(
            "mkdir {i}/d && echo a > {i}/d/a && echo b > /dev/null && \
             ! echo c > {i}/link/c && ! mkdir {o}/e && ! echo f > {o}/f",
            i = inside.display(),
            o = outside.display()
        );
        let status = command(&rules, OsStr::new("sh"))
            .unwrap()
            .args(["-c", &script])
            .status()
            .unwrap();
        assert!(status.success(), "{status}");
        assert_eq!(std::fs::read(inside.join("d/a")).unwrap(), b"a\n");
        assert_eq!(
            std::fs::read_dir(&outside).unwrap().count(),
            0,
            "nothing written outside"
        );
        // destbench itself is not confined by its children's rules.
        std::fs::write(outside.join("ours"), b"x").unwrap();
    }
}
