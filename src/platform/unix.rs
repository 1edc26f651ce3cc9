//! What Linux and macOS do alike (POSIX through rustix): opening relative to directory handles,
//! positioned I/O, `mincore`, `statvfs`, the process's own facts. What differs is in `linux.rs`
//! and `macos.rs`.

use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::path::Path;

use rustix::fs::{Mode, OFlags};

use super::{Handle, HandleRef, OpenHow};

/// Opens (or creates, exclusively) `name` inside the directory `dir`, never following a symlink.
pub fn open_in(dir: HandleRef<'_>, name: &str, how: OpenHow) -> io::Result<Handle> {
    let mut flags = OFlags::CLOEXEC | OFlags::NOFOLLOW;
    // A read-only open never blocks: a FIFO put where a file was expected opens and reads
    // nothing instead of hanging (regular files ignore the flag).
    flags |= if how.write {
        OFlags::RDWR
    } else {
        OFlags::RDONLY | OFlags::NONBLOCK
    };
    if how.create {
        flags |= OFlags::CREATE | OFlags::EXCL;
    }
    #[cfg(target_os = "linux")]
    if how.direct {
        flags |= OFlags::DIRECT;
    }
    let fd = rustix::fs::openat(dir, name, flags, Mode::from_raw_mode(0o600))?;
    // macOS has no O_DIRECT: F_NOCACHE on the open file asks the same of the unified buffer
    // cache (XNU honours it for writes of 16 KiB and more; reads are checked with mincore).
    #[cfg(target_os = "macos")]
    if how.direct {
        rustix::fs::fcntl_nocache(&fd, true)?;
    }
    Ok(fd)
}

/// Opens the directory at `path` (a path the user gave: symlinks in it are theirs).
pub fn open_dir(path: &Path) -> io::Result<Handle> {
    Ok(rustix::fs::open(
        path,
        OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::RDONLY,
        Mode::empty(),
    )?)
}

/// Creates the directory `name` inside the open directory `parent` (failing if anything by that
/// name exists) and opens it without following symlinks.
pub fn create_dir_exclusive(parent: HandleRef<'_>, name: &str) -> io::Result<Handle> {
    rustix::fs::mkdirat(parent, name, Mode::from_raw_mode(0o700))?;
    super::dir::open_dir_at(parent, OsStr::new(name))
}

/// Removes the regular file `name` inside `dir`.
pub fn unlink_in(dir: HandleRef<'_>, name: &str) -> io::Result<()> {
    super::dir::unlink_at(dir, OsStr::new(name))
}

/// Reads at `offset`; returns the number of bytes read (short at end of file).
pub fn pread(fd: HandleRef<'_>, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    Ok(rustix::io::pread(fd, buf, offset)?)
}

/// Writes at `offset`; returns the number of bytes written.
pub fn pwrite(fd: HandleRef<'_>, buf: &[u8], offset: u64) -> io::Result<usize> {
    Ok(rustix::io::pwrite(fd, buf, offset)?)
}

/// Sets the file's length.
pub fn set_len(fd: HandleRef<'_>, len: u64) -> io::Result<()> {
    Ok(rustix::fs::ftruncate(fd, len)?)
}

/// The fraction (0..=1) of the file's first `len` bytes that sit in the page cache, from `mincore`.
/// Lets a read test prove its eviction worked instead of assuming it.
pub fn resident_fraction(fd: HandleRef<'_>, len: u64) -> io::Result<f64> {
    if len == 0 {
        return Ok(0.0);
    }
    let page = rustix::param::page_size();
    let length = usize::try_from(len).map_err(|_| io::Error::other("file too large to map"))?;
    // SAFETY: a fresh shared read-only mapping of `length` bytes of `fd` at a kernel-chosen
    // address; it is only inspected with mincore (never dereferenced) and unmapped below.
    let addr = unsafe {
        rustix::mm::mmap(
            std::ptr::null_mut(),
            length,
            rustix::mm::ProtFlags::READ,
            rustix::mm::MapFlags::SHARED,
            fd,
            0,
        )?
    };
    let pages = length.div_ceil(page);
    let mut vec = vec![0u8; pages];
    // SAFETY: `addr` is the start of a live mapping of `length` bytes, and `vec` has one byte for
    // each of its pages, as mincore(2) requires.
    let rc = unsafe { libc::mincore(addr, length, vec.as_mut_ptr().cast()) };
    let mincore_error = (rc != 0).then(io::Error::last_os_error);
    // SAFETY: unmapping exactly the mapping created above, which nothing else refers to.
    unsafe { rustix::mm::munmap(addr, length)? };
    if let Some(err) = mincore_error {
        return Err(err);
    }
    let resident = vec.iter().filter(|&&b| b & 1 == 1).count();
    Ok(resident as f64 / pages as f64)
}

/// The size of the filesystem holding `path`, in bytes (what Time Machine sizes its bands by).
pub fn filesystem_size(path: &Path) -> io::Result<u64> {
    let st = rustix::fs::statvfs(path)?;
    Ok(st.f_blocks.saturating_mul(st.f_frsize))
}

/// Bytes available to an unprivileged writer on the filesystem holding `path`.
pub fn available_space(path: &Path) -> io::Result<u64> {
    let st = rustix::fs::statvfs(path)?;
    Ok(st.f_bavail.saturating_mul(st.f_frsize))
}

/// The used bytes and files of the filesystem holding `path` (statvfs: no walk, no root).
pub fn volume_usage(path: &Path) -> io::Result<super::VolumeUsage> {
    let st = rustix::fs::statvfs(path)?;
    let used_blocks = st.f_blocks.saturating_sub(st.f_bfree);
    Ok(super::VolumeUsage {
        used_bytes: used_blocks.saturating_mul(st.f_frsize),
        used_files: (st.f_files > 0).then(|| st.f_files.saturating_sub(st.f_ffree)),
    })
}

/// True when running with root privileges.
pub fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// Length of an open file.
pub fn file_len(fd: HandleRef<'_>) -> io::Result<u64> {
    Ok(rustix::fs::fstat(fd)?.st_size as u64)
}

/// Converts an owned descriptor into a `File` (for code that wants std's API).
pub fn into_file(fd: Handle) -> File {
    File::from(fd)
}

/// CPU time (user + system) used so far by the whole process, all threads included (also
/// io_uring's workers, which run as threads of the process).
pub fn process_cpu_time() -> std::time::Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    std::time::Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// The process's file-creation mask. Reading it means setting it, so this is called once, before
/// any copy thread starts (see `tree::run`), and the answer is kept.
#[allow(clippy::unnecessary_cast)] // mode_t is 16 bits on macOS
pub fn umask() -> u32 {
    static MASK: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *MASK.get_or_init(|| {
        let old = rustix::process::umask(Mode::empty());
        rustix::process::umask(old);
        old.bits() as u32
    })
}

/// Repeats `step(done)` until `total` bytes have moved, `step` returning how many it moved
/// this time: an interrupted call is retried, a call that moves nothing is `WriteZero` (a
/// destination that takes no more), any other error ends it.
pub fn move_all(
    total: usize,
    mut step: impl FnMut(usize) -> rustix::io::Result<usize>,
) -> io::Result<()> {
    let mut done = 0;
    while done < total {
        match step(done) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(m) => done += m,
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// This machine's host name (what a leftover's marker is compared with).
pub fn hostname() -> String {
    rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned()
}

/// The running kernel's release (`uname -r`), as a stored run remembers it.
pub fn kernel_release() -> String {
    rustix::system::uname()
        .release()
        .to_string_lossy()
        .into_owned()
}

/// Ok when this process may write `path` (a file, or a directory to create files in), else the
/// reason: a read-only mount, no permission, or no such file.
pub fn check_writable(path: &Path) -> io::Result<()> {
    Ok(rustix::fs::access(path, rustix::fs::Access::WRITE_OK)?)
}

/// Whether the process `pid` still exists (a zombie or another user's process counts).
pub fn process_exists(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    !matches!(
        rustix::process::test_kill_process(pid),
        Err(rustix::io::Errno::SRCH)
    )
}

/// Creates the directory `name` in the open directory `dir`.
pub fn mkdir_in(dir: HandleRef<'_>, name: &std::ffi::OsStr, mode: u32) -> io::Result<()> {
    Ok(rustix::fs::mkdirat(dir, name, raw_mode(mode))?)
}

/// Creates the file `name` in the open directory `dir` for writing: it must not exist, and a
/// symlink by that name is refused.
pub fn create_in(dir: HandleRef<'_>, name: &std::ffi::OsStr, mode: u32) -> io::Result<File> {
    let fd = rustix::fs::openat(
        dir,
        name,
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        raw_mode(mode),
    )?;
    Ok(File::from(fd))
}

/// Makes a FIFO at `path`: a test's special file, which a copy or survey must list, not read.
#[cfg(test)]
pub fn make_fifo(path: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(path.as_os_str().as_bytes())?;
    // SAFETY: mkfifo reads the NUL-terminated path, which outlives the call.
    if unsafe { libc::mkfifo(path.as_ptr(), 0o644) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}
/// Permission bits as the kernel's `mode_t` (32 bits on Linux, 16 on macOS; the bits fit both).
#[allow(clippy::unnecessary_cast)] // the width of mode_t differs between targets
pub fn raw_mode(mode: u32) -> Mode {
    Mode::from_bits_truncate(mode as rustix::fs::RawMode)
}

/// How a directory below a root is opened: never through a symlink.
pub(super) const BENEATH_FLAGS: OFlags = OFlags::DIRECTORY
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC)
    .union(OFlags::RDONLY);

/// Opens the directory `rel` below `root` one `openat(O_NOFOLLOW)` per component: `..`, an
/// absolute path or a symlink anywhere fails.
pub(super) fn open_beneath_by_components(root: HandleRef<'_>, rel: &Path) -> io::Result<Handle> {
    let mut dir = rustix::fs::openat(root, ".", BENEATH_FLAGS, Mode::empty())?;
    for part in rel.components() {
        match part {
            std::path::Component::Normal(name) => {
                dir = rustix::fs::openat(&dir, name, BENEATH_FLAGS, Mode::empty())?;
            }
            std::path::Component::CurDir => {}
            _ => return Err(io::ErrorKind::InvalidInput.into()),
        }
    }
    Ok(dir)
}
