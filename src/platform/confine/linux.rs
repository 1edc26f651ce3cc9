//! Linux: Landlock, and a mount namespace where the system allows one. The ruleset is made
//! in destbench, before any program starts: it handles every right that writes (the best the
//! kernel's ABI offers, as the `landlock` crate degrades it) and grants them beneath each
//! scratch directory's open handle, and grants writing to `/dev/null`. Landlock does not
//! cover a file's attributes (chmod, chown, utimes: rsync sets its directories' times and
//! modes), so where the system lets a process have a mount namespace of its own (root, or a
//! user namespace), the child also sees every filesystem read-only but the scratch
//! directories, which it sees through clones of their own mounts: a link out of the scratch
//! then leads to a read-only file. The child does it all between fork and exec, with system
//! calls only (nothing that allocates), then restricts itself with the ruleset. Reads and
//! execution stay free: a program reads its libraries, its configuration and its source.

use std::ffi::{CString, OsStr};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::process::Command;

use landlock::{
    ABI, AccessFs, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr,
};

use super::Writable;

/// The ruleset, open (close-on-exec: the program never holds it), and the mount namespace
/// the child enters first where the system allows one.
pub struct Rules {
    ruleset: OwnedFd,
    namespace: Option<Namespace>,
}

/// The most scratch directories one program writes in (the destination's, the source side's).
const MOST_WRITABLE: usize = 4;

/// A mount namespace's setup, prepared in the parent so that the child only makes system calls.
#[derive(Clone)]
struct Namespace {
    /// The writable directories: each one's path and identity (device, inode). A handle
    /// opened before the child's unshare names a mount of the parent's namespace, which the
    /// child cannot clone or mount on: it opens the path again in its own, and goes on only
    /// if that is the same directory.
    dirs: Vec<(CString, u64, u64)>,
    /// Not root: a user namespace too, its maps as written to `/proc/self/{uid,gid}_map`.
    user: Option<(Vec<u8>, Vec<u8>)>,
}

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
    let ruleset = fd.ok_or_else(|| "Landlock is not available to this process".to_string())?;
    let (namespace, view) = match Namespace::for_dirs(writable).and_then(Namespace::tried) {
        Ok(ns) => (
            Some(ns),
            "every other filesystem read-only in a mount namespace".into(),
        ),
        Err(e) => (
            None,
            format!("no mount namespace here ({e}): attributes unguarded"),
        ),
    };
    let how = format!("Landlock (ABI {abi}), {view}");
    Ok((Rules { ruleset, namespace }, how))
}

/// `program`, to be restricted by `rules` between fork and exec.
pub fn command(rules: &Rules, program: &OsStr) -> io::Result<Command> {
    let fd = rules.ruleset.as_raw_fd();
    let namespace = rules.namespace.clone();
    let mut command = Command::new(program);
    let restrict = move || -> io::Result<()> {
        if let Some(ns) = &namespace {
            ns.enter()?;
        }
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
    // SAFETY: the closure runs in the child between fork and exec; it makes system calls
    // only and allocates nothing, so it is async-signal-safe.
    unsafe { command.pre_exec(restrict) };
    Ok(command)
}

/// `mount_setattr`'s argument (linux/mount.h).
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

const MOUNT_ATTR_RDONLY: u64 = 0x1;
const OPEN_TREE_CLONE: u32 = 0x1;
const MOVE_MOUNT_F_EMPTY_PATH: u32 = 0x4;
const MOVE_MOUNT_T_EMPTY_PATH: u32 = 0x40;

/// A system call's result as `io::Result`: -1 and errno, or the value.
fn check(ret: libc::c_long) -> io::Result<libc::c_long> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

impl Namespace {
    /// The setup for `writable`: copies of their handles, and the user maps where not root.
    fn for_dirs(writable: &[Writable<'_>]) -> io::Result<Namespace> {
        if writable.len() > MOST_WRITABLE {
            return Err(io::Error::other("too many scratch directories"));
        }
        let dirs = writable
            .iter()
            .map(|w| {
                let stat = rustix::fs::fstat(w.dir)?;
                let path = CString::new(w.path.as_os_str().as_bytes())?;
                Ok((path, stat.st_dev, stat.st_ino))
            })
            .collect::<io::Result<Vec<_>>>()?;
        let (uid, gid) = (rustix::process::geteuid(), rustix::process::getegid());
        let user = (!uid.is_root()).then(|| {
            let map = |id: u32| format!("{id} {id} 1").into_bytes();
            (map(uid.as_raw()), map(gid.as_raw()))
        });
        Ok(Namespace { dirs, user })
    }

    /// This namespace, once a forked child entered it: whether the system allows it here
    /// (a container without the right, a user namespace forbidden) is known before any
    /// program depends on it.
    fn tried(self) -> io::Result<Namespace> {
        // SAFETY: the child makes system calls only (`enter`, `_exit`), which is what a fork of
        // a threaded process allows; the parent waits for it.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            let code = match self.enter() {
                Ok(()) => 0,
                Err(e) => e.raw_os_error().unwrap_or(libc::EINVAL),
            };
            // SAFETY: ends the forked child without running the parent's destructors.
            unsafe { libc::_exit(code) };
        }
        check(pid as libc::c_long)?;
        let mut status = 0;
        // SAFETY: waits for the child just forked, writing its status into a local.
        check(unsafe { libc::waitpid(pid, &mut status, 0) } as libc::c_long)?;
        match libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)) {
            Some(0) => Ok(self),
            Some(errno) => Err(io::Error::from_raw_os_error(errno)),
            None => Err(io::Error::other("the trial child did not exit")),
        }
    }

    /// Enters a mount namespace (and a user namespace where not root) in which every
    /// filesystem is read-only but clones of the scratch directories' mounts, put on them.
    /// System calls only: this runs between fork and exec.
    fn enter(&self) -> io::Result<()> {
        let mut flags = libc::CLONE_NEWNS;
        if self.user.is_some() {
            flags |= libc::CLONE_NEWUSER;
        }
        // SAFETY: unshare takes flags only.
        check(unsafe { libc::unshare(flags) } as libc::c_long)?;
        if let Some((uid_map, gid_map)) = &self.user {
            write_proc(c"/proc/self/setgroups", b"deny")?;
            write_proc(c"/proc/self/uid_map", uid_map)?;
            write_proc(c"/proc/self/gid_map", gid_map)?;
        }
        // SAFETY: mount with a static path and null source, type and data: nothing of ours is
        // written; MS_REC | MS_PRIVATE keeps what follows out of the parent's namespace.
        check(unsafe {
            libc::mount(
                std::ptr::null(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            )
        } as libc::c_long)?;
        let mut here: [RawFd; MOST_WRITABLE] = [-1; MOST_WRITABLE];
        let mut clones: [RawFd; MOST_WRITABLE] = [-1; MOST_WRITABLE];
        for ((fd, clone), dir) in here.iter_mut().zip(clones.iter_mut()).zip(&self.dirs) {
            *fd = open_same_dir(dir)?;
            // SAFETY: open_tree on a descriptor just opened, with an empty, static path: it
            // clones that directory's mount, detached, and returns a new descriptor.
            *clone = check(unsafe {
                libc::syscall(
                    libc::SYS_open_tree,
                    *fd,
                    c"".as_ptr(),
                    OPEN_TREE_CLONE | libc::AT_EMPTY_PATH as u32 | libc::O_CLOEXEC as u32,
                )
            })? as RawFd;
        }
        let attr = MountAttr {
            attr_set: MOUNT_ATTR_RDONLY,
            attr_clr: 0,
            propagation: 0,
            userns_fd: 0,
        };
        // SAFETY: mount_setattr reads `attr` (a live local of the size given) and a static path.
        check(unsafe {
            libc::syscall(
                libc::SYS_mount_setattr,
                libc::AT_FDCWD,
                c"/".as_ptr(),
                libc::AT_RECURSIVE as u32,
                &attr as *const MountAttr,
                std::mem::size_of::<MountAttr>(),
            )
        })?;
        for (clone, fd) in clones.iter().zip(&here).take(self.dirs.len()) {
            // SAFETY: move_mount between two descriptors we hold, with empty static paths: the
            // writable clone is put on the scratch directory itself.
            check(unsafe {
                libc::syscall(
                    libc::SYS_move_mount,
                    *clone,
                    c"".as_ptr(),
                    *fd,
                    c"".as_ptr(),
                    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH,
                )
            })?;
        }
        Ok(())
    }
}

/// Opens `dir`'s path in this namespace (the last step not followed) and checks that it is the
/// same directory as the one the parent holds: a path swapped meanwhile is an error.
fn open_same_dir((path, dev, ino): &(CString, u64, u64)) -> io::Result<RawFd> {
    let flags = libc::O_PATH | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    // SAFETY: open of a C string the parent made; fstat into a zeroed local `stat`.
    unsafe {
        let fd = check(libc::open(path.as_ptr(), flags) as libc::c_long)? as RawFd;
        let mut stat: libc::stat = std::mem::zeroed();
        check(libc::fstat(fd, &mut stat) as libc::c_long)?;
        if stat.st_dev != *dev || stat.st_ino != *ino {
            return Err(io::Error::from_raw_os_error(libc::ESTALE));
        }
        Ok(fd)
    }
}

/// Writes `data` to a file of `/proc/self` (the user namespace's maps), with system calls only.
fn write_proc(path: &std::ffi::CStr, data: &[u8]) -> io::Result<()> {
    // SAFETY: open of a static path; write of a live slice of the length given; close of the
    // descriptor just opened.
    unsafe {
        let fd =
            check(libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) as libc::c_long)?;
        let wrote = libc::write(fd as RawFd, data.as_ptr().cast(), data.len());
        libc::close(fd as RawFd);
        check(wrote as libc::c_long)?;
    }
    Ok(())
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
        // Attributes are guarded by the namespace, where the system allows one (root here).
        let attributes = match rules.namespace {
            Some(_) => "! chmod 777 {o} && ! touch -d 2001-01-01 {i}/link",
            None if platform::is_root() => panic!("root has a mount namespace: {how}"),
            None => "true",
        };
        let script = format!(
            "mkdir {i}/d && echo a > {i}/d/a && echo b > /dev/null && chmod 700 {i}/d && \
             ! echo c > {i}/link/c && ! mkdir {o}/e && ! echo f > {o}/f && {attributes}",
            i = inside.display(),
            o = outside.display()
        );
        let script = script
            .replace("{o}", &outside.display().to_string())
            .replace("{i}", &inside.display().to_string());
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
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(&outside).unwrap().permissions(),
        );
        assert_ne!(mode & 0o777, 0o777, "its mode untouched");
        // destbench itself is not confined by its children's rules.
        std::fs::write(outside.join("ours"), b"x").unwrap();
    }
}
