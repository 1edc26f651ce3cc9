//! Linux: `O_DIRECT` (in `unix.rs`'s `open_in`), `fdatasync`, `posix_fadvise`, `fallocate`,
//! `syncfs`, `splice`, `ioprio_set`, `openat2`, `/proc/sys/vm/drop_caches`.

use std::io;
use std::path::Path;

use rustix::fs::{Advice, Mode};

use super::{Handle, HandleRef, SpliceError, move_all};

/// Linux leaves I/O priorities to the block scheduler (the chain says which): no throttle of its own.
pub const THREAD_IO_THROTTLE: Option<&str> = None;

/// How direct I/O is asked for here.
pub const DIRECT_IO: &str = "O_DIRECT";

/// What direct I/O means here, for the run's access note.
pub const DIRECT_NOTE: &str = "O_DIRECT accepted: reads and writes bypass the page cache";

/// Makes the file's data (and the metadata needed to read it back) durable.
pub fn datasync(fd: HandleRef<'_>) -> io::Result<()> {
    Ok(rustix::fs::fdatasync(fd)?)
}

/// Makes the file (data and metadata) durable, as a backup tool's `fsync` does; also Time
/// Machine's barrier (F_FULLFSYNC on macOS), which on a network share goes to the server.
pub fn fsync(fd: HandleRef<'_>) -> io::Result<()> {
    Ok(rustix::fs::fsync(fd)?)
}

/// What [`fsync`] is here, as results record it.
pub const FULL_FLUSH: &str = "fsync";

/// How [`evict`] makes a file's next read reach the disk, for a report; Err: why it cannot here.
pub const EVICTION: Result<&str, &str> = Ok("posix_fadvise(DONTNEED)");

/// Asks the kernel to drop the file's clean pages from the page cache.
pub fn evict(fd: HandleRef<'_>) -> io::Result<()> {
    Ok(rustix::fs::fadvise(fd, 0, None, Advice::DontNeed)?)
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

/// Flushes the whole filesystem holding `fd` to stable storage.
pub fn syncfs(fd: HandleRef<'_>) -> io::Result<()> {
    Ok(rustix::fs::syncfs(fd)?)
}

/// The process's peak resident memory (VmHWM), in bytes.
pub fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
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

/// Opens the directory `rel` below the open directory `root`, never through a symlink and never
/// out of `root`: one `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS` (Linux 5.6+), or one
/// `openat(O_NOFOLLOW)` per component where the kernel or a sandbox refuses it.
pub fn open_beneath(root: HandleRef<'_>, rel: &Path) -> io::Result<Handle> {
    let flags = super::BENEATH_FLAGS;
    let rel = if rel.as_os_str().is_empty() {
        Path::new(".")
    } else {
        rel
    };
    let resolve = rustix::fs::ResolveFlags::NO_SYMLINKS | rustix::fs::ResolveFlags::BENEATH;
    match rustix::fs::openat2(root, rel, flags, Mode::empty(), resolve) {
        Ok(fd) => Ok(fd),
        Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM) => {
            super::open_beneath_by_components(root, rel)
        }
        Err(e) => Err(e.into()),
    }
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
