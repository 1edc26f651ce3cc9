//! macOS: `F_FULLFSYNC` for durability (plain `fsync` leaves the data in the drive's cache
//! there), `F_PREALLOCATE`, `setiopolicy_np` for background I/O, `purge` as root for eviction.
//! `F_NOCACHE` (the `O_DIRECT` of macOS) is set in `unix.rs`'s `open_in`.

use std::io;
use std::path::Path;

use super::{Handle, HandleRef, SpliceError};

/// XNU throttles a thread's I/O itself, whatever the disk's queue: its name, for the throttled test.
pub const THREAD_IO_THROTTLE: Option<&str> = Some("XNU I/O throttling (IOPOL_THROTTLE)");

/// How direct I/O is asked for here.
pub const DIRECT_IO: &str = "F_NOCACHE";

/// What direct I/O means here, for the run's access note.
pub const DIRECT_NOTE: &str = "F_NOCACHE accepted: writes of 16 KiB and more bypass the unified buffer cache, smaller ones may not; reads are checked with mincore (pages already cached are served from memory); writes are durable by F_FULLFSYNC (fsync does not flush the drive's cache on macOS)";

/// Makes the file's data durable on the medium: `F_FULLFSYNC` asks the drive to flush its
/// cache, which `fsync` does not do on macOS. Filesystems that refuse it (some network clients)
/// get `fsync`, which is what reaches their server.
pub fn datasync(fd: HandleRef<'_>) -> io::Result<()> {
    fsync(fd)
}

/// Makes the file durable on the medium (`F_FULLFSYNC`, as [`datasync`]: macOS has no lighter
/// flush that reaches the medium).
pub fn fsync(fd: HandleRef<'_>) -> io::Result<()> {
    match rustix::fs::fcntl_fullfsync(fd) {
        Ok(()) => Ok(()),
        Err(rustix::io::Errno::NOTSUP | rustix::io::Errno::INVAL) => Ok(rustix::fs::fsync(fd)?),
        Err(e) => Err(e.into()),
    }
}

/// What [`fsync`] is here, as results record it.
pub const FULL_FLUSH: &str = "F_FULLFSYNC";

/// How [`evict`] makes a file's next read reach the disk, for a report; Err: why it cannot here.
pub const EVICTION: Result<&str, &str> =
    Err("macOS cannot drop a file's cached pages (F_NOCACHE only stops new caching)");

/// macOS has no per-file eviction (no `posix_fadvise`): nothing is done here, and the residency
/// check that follows every eviction (`resident_fraction`) says whether the file is cached.
/// Fresh files written with `F_NOCACHE` in blocks of 16 KiB or more are not.
pub fn evict(_fd: HandleRef<'_>) -> io::Result<()> {
    Ok(())
}

/// Empties the unified buffer cache machine-wide with `purge` (root only).
pub fn drop_caches() -> io::Result<()> {
    let status = std::process::Command::new("/usr/sbin/purge").status()?;
    if status.success() {
        Ok(())
    } else {
        Err(io::Error::other(format!("purge failed: {status}")))
    }
}

/// macOS offers no way to drop its cached vnodes and names.
pub fn drop_inode_caches() -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "macOS cannot drop its cached inodes and names",
    ))
}

/// The filesystem type of the open file `fd` (`f_fstypename`: apfs, hfs, smbfs, nfs...).
pub fn filesystem_type(fd: HandleRef<'_>) -> io::Result<String> {
    let st = rustix::fs::fstatfs(fd)?;
    Ok(c_chars(&st.f_fstypename))
}

/// A fixed-size C string field of a struct, up to its first NUL.
pub fn c_chars(field: &[libc::c_char]) -> String {
    let bytes: Vec<u8> = field
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// True when the filesystem keeps its files in memory (`tmpfs`, which macOS mounts only on
/// request). A RAM disk formatted as APFS or HFS+ looks like any disk to `statfs`.
pub fn is_memory_backed(fd: HandleRef<'_>) -> io::Result<bool> {
    Ok(filesystem_type(fd)? == "tmpfs")
}

/// macOS has no `syncfs`: `sync` schedules every filesystem's dirty data (its man page does not
/// promise to wait), then `F_FULLFSYNC` on `fd` waits for it and flushes the drive.
pub fn syncfs(fd: HandleRef<'_>) -> io::Result<()> {
    rustix::fs::sync();
    datasync(fd)
}

/// The process's peak resident memory (`ru_maxrss`, in bytes on macOS).
pub fn peak_rss() -> Option<u64> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the rusage we pass; it is read only when the call succeeded.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) };
    // SAFETY: initialised by the successful call above (and zeroed before it).
    (rc == 0).then(|| unsafe { usage.assume_init() }.ru_maxrss as u64)
}

/// macOS has no `splice`: copies go through a buffer.
pub struct SplicePipe;

impl SplicePipe {
    pub fn new() -> io::Result<Self> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "macOS has no splice",
        ))
    }

    pub fn copy(
        &self,
        _src: HandleRef<'_>,
        _dst: HandleRef<'_>,
        _len: u64,
    ) -> Result<u64, SpliceError> {
        Err(SpliceError::Unsupported)
    }
}

/// `setiopolicy_np` and its values, from `<sys/resource.h>` (not in the libc crate).
const IOPOL_TYPE_DISK: libc::c_int = 0;
const IOPOL_SCOPE_THREAD: libc::c_int = 1;
const IOPOL_THROTTLE: libc::c_int = 3;

unsafe extern "C" {
    fn setiopolicy_np(iotype: libc::c_int, scope: libc::c_int, policy: libc::c_int) -> libc::c_int;
}

/// Puts the calling thread's disk I/O in the throttled tier, as Time Machine's backupd runs: it
/// is served when no one else wants the device (and, since macOS 10.15, on SMB and AFP volumes
/// too). The thread keeps it until it ends.
pub fn set_background_io_priority() -> io::Result<()> {
    // SAFETY: setiopolicy_np takes three integers and touches no memory of ours.
    let rc = unsafe { setiopolicy_np(IOPOL_TYPE_DISK, IOPOL_SCOPE_THREAD, IOPOL_THROTTLE) };
    if rc == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Opens the directory `rel` below the open directory `root`, one `openat(O_NOFOLLOW)` per
/// component: never through a symlink, never out of `root`.
pub fn open_beneath(root: HandleRef<'_>, rel: &Path) -> io::Result<Handle> {
    super::open_beneath_by_components(root, rel)
}

/// The name of the kernel pseudo-filesystem holding the open directory `dir`, if it is one:
/// its files are not data, so they are never a source to read.
pub fn pseudo_filesystem(dir: HandleRef<'_>) -> io::Result<Option<&'static str>> {
    Ok(match filesystem_type(dir)?.as_str() {
        "devfs" => Some("devfs"),
        "autofs" => Some("autofs"),
        _ => None,
    })
}
