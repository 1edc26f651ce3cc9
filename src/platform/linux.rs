//! Linux: `O_DIRECT`, `posix_fadvise`, `mincore`, `/proc/sys/vm/drop_caches`.

use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::num::NonZeroU64;
use std::os::fd::AsFd;
use std::path::Path;

use rustix::fs::{Advice, Mode, OFlags};

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
    if how.direct {
        flags |= OFlags::DIRECT;
    }
    Ok(rustix::fs::openat(
        dir,
        name,
        flags,
        Mode::from_raw_mode(0o600),
    )?)
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

/// Makes the file's data (and the metadata needed to read it back) durable.
pub fn datasync(fd: HandleRef<'_>) -> io::Result<()> {
    Ok(rustix::fs::fdatasync(fd)?)
}

/// Sets the file's length.
pub fn set_len(fd: HandleRef<'_>, len: u64) -> io::Result<()> {
    Ok(rustix::fs::ftruncate(fd, len)?)
}

/// Asks the kernel to drop the file's clean pages from the page cache.
pub fn evict(fd: HandleRef<'_>) -> io::Result<()> {
    Ok(rustix::fs::fadvise(fd, 0, None, Advice::DontNeed)?)
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
    let rc = unsafe { libc::mincore(addr, length, vec.as_mut_ptr()) };
    let mincore_error = (rc != 0).then(io::Error::last_os_error);
    // SAFETY: unmapping exactly the mapping created above, which nothing else refers to.
    unsafe { rustix::mm::munmap(addr, length)? };
    if let Some(err) = mincore_error {
        return Err(err);
    }
    let resident = vec.iter().filter(|&&b| b & 1 == 1).count();
    Ok(resident as f64 / pages as f64)
}

/// Drops clean page-cache pages machine-wide (root only): used when per-file eviction did not work.
pub fn drop_caches() -> io::Result<()> {
    std::fs::write("/proc/sys/vm/drop_caches", b"1")
}

/// Drops the kernel's cached inodes and directory entries machine-wide (root only), so a `stat`
/// goes to the filesystem.
pub fn drop_inode_caches() -> io::Result<()> {
    std::fs::write("/proc/sys/vm/drop_caches", b"2")
}

/// Bytes available to an unprivileged writer on the filesystem holding `path`.
pub fn available_space(path: &Path) -> io::Result<u64> {
    let st = rustix::fs::statvfs(path)?;
    Ok(st.f_bavail.saturating_mul(st.f_frsize))
}

/// True when running with root privileges.
pub fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// Length of an open file.
pub fn file_len(fd: HandleRef<'_>) -> io::Result<u64> {
    Ok(rustix::fs::fstat(fd)?.st_size as u64)
}

/// Preallocates `len` bytes so later overwrites do not allocate (`fallocate`); filesystems that
/// cannot do it return an error the caller may ignore.
pub fn preallocate(fd: HandleRef<'_>, len: u64) -> io::Result<()> {
    let len = NonZeroU64::new(len).map_or(0, NonZeroU64::get);
    Ok(rustix::fs::fallocate(
        fd,
        rustix::fs::FallocateFlags::empty(),
        0,
        len,
    )?)
}

/// Converts an owned descriptor into a `File` (for code that wants std's API).
pub fn into_file(fd: Handle) -> File {
    File::from(fd)
}

/// Borrows a file's descriptor.
pub fn fd_of(file: &File) -> HandleRef<'_> {
    file.as_fd()
}

/// True when the filesystem holding `fd` keeps its files in memory (tmpfs, ramfs): no figure
/// measured there is a storage device's, whatever the I/O method.
pub fn is_memory_backed(fd: HandleRef<'_>) -> io::Result<bool> {
    const TMPFS_MAGIC: i64 = 0x0102_1994;
    const RAMFS_MAGIC: i64 = 0x8584_58f6;
    let st = rustix::fs::fstatfs(fd)?;
    #[allow(clippy::unnecessary_cast)] // f_type's width differs between targets
    let magic = st.f_type as i64;
    Ok(magic == TMPFS_MAGIC || magic == RAMFS_MAGIC)
}

/// CPU time (user + system) used so far by the whole process, all threads included (also
/// io_uring's workers, which run as threads of the process).
pub fn process_cpu_time() -> std::time::Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    std::time::Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// Flushes the whole filesystem holding `fd` to stable storage.
pub fn syncfs(fd: HandleRef<'_>) -> io::Result<()> {
    Ok(rustix::fs::syncfs(fd)?)
}

/// The `open` flag that refuses to follow a symlink in the last path component.
pub const O_NOFOLLOW: i32 = libc::O_NOFOLLOW;

/// The process's peak resident memory (VmHWM), in bytes.
pub fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The process's file-creation mask. Reading it means setting it, so this is called once, before
/// any copy thread starts (see `tree::run`), and the answer is kept.
pub fn umask() -> u32 {
    static MASK: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *MASK.get_or_init(|| {
        let old = rustix::process::umask(Mode::empty());
        rustix::process::umask(old);
        old.bits()
    })
}

/// Which side of a kernel copy failed.
pub enum SpliceError {
    /// The filesystems cannot splice (nothing was moved): copy through a buffer instead.
    Unsupported,
    Source(io::Error),
    Destination(io::Error),
}

/// A pipe that moves file data from one file to another inside the kernel (`splice`), saving
/// the two copies through user space that `read` + `write` make. Unlike `copy_file_range`, it
/// can never turn into a reflink or a server-side copy, so the destination really receives the
/// bytes.
pub struct SplicePipe {
    read: Handle,
    write: Handle,
    capacity: usize,
}

impl SplicePipe {
    pub fn new() -> io::Result<Self> {
        let (read, write) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
        // A bigger pipe moves more per call; the default (64 KiB) still works.
        let capacity = rustix::pipe::fcntl_setpipe_size(&write, 1 << 20).unwrap_or(1 << 16);
        Ok(SplicePipe {
            read,
            write,
            capacity,
        })
    }

    /// Moves up to `len` bytes from `src`'s current position to `dst`'s; returns the bytes moved
    /// (fewer at end of file).
    pub fn copy(
        &self,
        src: HandleRef<'_>,
        dst: HandleRef<'_>,
        len: u64,
    ) -> Result<u64, SpliceError> {
        use rustix::pipe::{SpliceFlags, splice};
        let mut moved = 0u64;
        while moved < len {
            let want = (len - moved).min(self.capacity as u64) as usize;
            let n = match splice(src, None, &self.write, None, want, SpliceFlags::MOVE) {
                Ok(0) => break,
                Ok(n) => n,
                Err(rustix::io::Errno::INTR) => continue,
                Err(rustix::io::Errno::INVAL) if moved == 0 => {
                    return Err(SpliceError::Unsupported);
                }
                Err(e) => return Err(SpliceError::Source(e.into())),
            };
            move_all(n, |drained| {
                splice(&self.read, None, dst, None, n - drained, SpliceFlags::MOVE)
            })
            .map_err(SpliceError::Destination)?;
            moved += n as u64;
        }
        Ok(moved)
    }
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

/// Puts the calling thread in the idle I/O class (`ioprio_set(IOPRIO_WHO_PROCESS, 0,
/// IOPRIO_CLASS_IDLE)`): its requests are served when the device has nothing else to do, by
/// schedulers that honour priorities (bfq, mq-deadline). The thread keeps it until it ends.
pub fn set_background_io_priority() -> io::Result<()> {
    const IOPRIO_WHO_PROCESS: libc::c_int = 1;
    const IOPRIO_CLASS_IDLE: libc::c_int = 3;
    const IOPRIO_CLASS_SHIFT: libc::c_int = 13;
    // SAFETY: ioprio_set takes three integers and reads or writes no memory of ours; pid 0 is
    // the calling thread.
    let r = unsafe {
        libc::syscall(
            libc::SYS_ioprio_set,
            IOPRIO_WHO_PROCESS,
            0,
            IOPRIO_CLASS_IDLE << IOPRIO_CLASS_SHIFT,
        )
    };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
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

/// Opens the directory `rel` below the open directory `root`, never through a symlink and never
/// out of `root`: one `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS` (Linux 5.6+), or one
/// `openat(O_NOFOLLOW)` per component where the kernel or a sandbox refuses it.
pub fn open_beneath(root: HandleRef<'_>, rel: &Path) -> io::Result<Handle> {
    let flags = OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::RDONLY;
    let rel = if rel.as_os_str().is_empty() {
        Path::new(".")
    } else {
        rel
    };
    let resolve = rustix::fs::ResolveFlags::NO_SYMLINKS | rustix::fs::ResolveFlags::BENEATH;
    match rustix::fs::openat2(root, rel, flags, Mode::empty(), resolve) {
        Ok(fd) => Ok(fd),
        Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM) => {
            let mut dir = rustix::fs::openat(root, ".", flags, Mode::empty())?;
            for part in rel.components() {
                match part {
                    std::path::Component::Normal(name) => {
                        dir = rustix::fs::openat(&dir, name, flags, Mode::empty())?;
                    }
                    std::path::Component::CurDir => {}
                    _ => return Err(io::ErrorKind::InvalidInput.into()),
                }
            }
            Ok(dir)
        }
        Err(e) => Err(e.into()),
    }
}

/// Creates the directory `name` in the open directory `dir`.
pub fn mkdir_in(dir: HandleRef<'_>, name: &std::ffi::OsStr, mode: u32) -> io::Result<()> {
    Ok(rustix::fs::mkdirat(dir, name, Mode::from_raw_mode(mode))?)
}

/// Creates the file `name` in the open directory `dir` for writing: it must not exist, and a
/// symlink by that name is refused.
pub fn create_in(dir: HandleRef<'_>, name: &std::ffi::OsStr, mode: u32) -> io::Result<File> {
    let fd = rustix::fs::openat(
        dir,
        name,
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(mode),
    )?;
    Ok(File::from(fd))
}

/// Makes a FIFO at `path`: a test's special file, which a copy or survey must list, not read.
#[cfg(test)]
pub fn make_fifo(path: &Path) -> io::Result<()> {
    Ok(rustix::fs::mknodat(
        rustix::fs::CWD,
        path,
        rustix::fs::FileType::Fifo,
        Mode::from_raw_mode(0o644),
        0,
    )?)
}

/// The name of the kernel pseudo-filesystem (proc, sysfs, ...) holding the open directory
/// `dir`, if it is one: their files are not data (some block, some never end, some are the
/// machine's memory), so they are never a source to read.
pub fn pseudo_filesystem(dir: HandleRef<'_>) -> io::Result<Option<&'static str>> {
    let magic = rustix::fs::fstatfs(dir)?.f_type as i64;
    Ok(match magic {
        0x9fa0 => Some("proc"),
        0x6265_6572 => Some("sysfs"),
        0x1cd1 => Some("devpts"),
        0x6462_6720 => Some("debugfs"),
        0x7472_6163 => Some("tracefs"),
        0x0027_e0eb => Some("cgroup"),
        0x6367_7270 => Some("cgroup2"),
        0x7363_6673 => Some("securityfs"),
        0xcafe_4a11 => Some("bpf"),
        0x6165_676c => Some("pstore"),
        0x6265_6570 => Some("configfs"),
        0xde5e_81e4 => Some("efivarfs"),
        0x6573_5543 => Some("fusectl"),
        _ => None,
    })
}
