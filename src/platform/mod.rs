//! Every operating-system-specific call destbench makes, behind one small interface.
//!
//! What Linux and macOS share (POSIX through rustix) is in `unix.rs`, `dir.rs` and `memory.rs`;
//! what differs in `linux.rs` and `macos.rs`; Windows is in `windows/` (names opened relative to
//! a directory handle with `NtCreateFile`, junctions refused); `remove.rs` serves all three.
//! A port fills the same functions:
//! - macOS (`macos.rs`): no `O_DIRECT`; `fcntl(F_NOCACHE)` on the open file, `F_FULLFSYNC` is
//!   the durable flush (plain `fsync` does not flush the drive cache there), no per-file
//!   eviction (the `mincore` check decides; `purge` as root); background I/O priority is
//!   `setiopolicy_np(IOPOL_TYPE_DISK, IOPOL_SCOPE_THREAD, IOPOL_THROTTLE)`, as backupd runs.
//! - Windows: `FILE_FLAG_NO_BUFFERING | FILE_FLAG_WRITE_THROUGH` instead of `O_DIRECT`,
//!   `FlushFileBuffers` for durability, sector-aligned buffers from `VirtualAlloc`,
//!   `GetDiskFreeSpaceExW` for free space.
//!
//! Callers see std types and the few below, never `rustix` or `libc`, and never read `/proc` or
//! `/sys` themselves (`scripts/check-architecture` keeps it so). A handle is [`Handle`] /
//! [`HandleRef`]; an OS error is an `io::Error`, told apart by its `kind()`.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::*;
#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
pub use linux::*;
#[cfg(target_os = "macos")]
mod macos;
#[cfg(target_os = "macos")]
pub use macos::*;
#[cfg(unix)]
mod dir;
#[cfg(unix)]
pub use dir::{open_dir_in, read_dir, remove_dir_in, stat, stat_in};
#[cfg(unix)]
mod memory;
#[cfg(all(test, target_os = "linux"))]
pub use memory::HUGE_PAGE;
#[cfg(all(test, unix))]
pub use memory::is_huge;
#[cfg(unix)]
pub use memory::{map_huge, unmap_huge};
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows::dir;
#[cfg(windows)]
pub use windows::dir::{open_dir_in, read_dir, remove_dir_in, stat, stat_in};
#[cfg(windows)]
pub use windows::*;
pub mod confine;
mod process;
pub use process::{CpuClock, Group, machine_busy, own_process_group, program_exists, wait_unless};
mod remove;
pub use remove::{Removed, measure_contents, remove_contents, remove_tree};
mod std_ext;
#[cfg(any(windows, test))]
pub use std_ext::mode_of;
pub use std_ext::{device_of, path_bytes, set_mode, symlink};
mod user_dirs;
pub use user_dirs::{UserDir, user_dir};

/// What a volume holds: the answer's size of "your data" when no folder is named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VolumeUsage {
    pub used_bytes: u64,
    /// Files (inodes) in use; None where the filesystem does not count them (btrfs reports
    /// no total) or the system has no cheap count (Windows).
    pub used_files: Option<u64>,
}

/// Which side of a kernel copy failed.
#[cfg(unix)]
pub enum SpliceError {
    /// The filesystems cannot splice (nothing was moved): copy through a buffer instead.
    Unsupported,
    // Only Linux splices; macOS's copy is always `Unsupported`.
    #[cfg(target_os = "linux")]
    Source(std::io::Error),
    #[cfg(target_os = "linux")]
    Destination(std::io::Error),
}

/// Whether a direct read (`OpenHow::direct`) bypasses pages already in the cache. Linux's
/// `O_DIRECT` does, as Windows' `FILE_FLAG_NO_BUFFERING`; macOS's `F_NOCACHE` serves them from the cache (XNU never purges them), so
/// there a direct read is checked with `mincore` like an evicted one.
pub const DIRECT_READS_SKIP_CACHED_PAGES: bool = cfg!(any(target_os = "linux", windows));

/// How a file is opened inside the scratch directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenHow {
    /// Open for writing (and reading); otherwise read-only.
    pub write: bool,
    /// Create the file; it must not exist yet.
    pub create: bool,
    /// Bypass the page cache (`O_DIRECT`): needs aligned buffers, offsets and lengths.
    pub direct: bool,
}

/// The alignment used for direct I/O buffers, offsets and lengths. 4 KiB covers every logical
/// block size in use (512 and 4096).
pub const DIRECT_ALIGN: usize = 4096;

/// An open file or directory, closed when dropped: a descriptor on Unix, a `HANDLE` on Windows.
#[cfg(unix)]
pub type Handle = std::os::fd::OwnedFd;
#[cfg(windows)]
pub type Handle = std::os::windows::io::OwnedHandle;

/// A [`Handle`] lent for a call.
#[cfg(unix)]
pub type HandleRef<'a> = std::os::fd::BorrowedFd<'a>;
#[cfg(windows)]
pub type HandleRef<'a> = std::os::windows::io::BorrowedHandle<'a>;

/// Lends the handle of anything that holds one (a [`Handle`], a `File`, an `Arc` of either), so
/// callers need not know whether it is a descriptor or a Windows handle.
pub trait AsHandleRef {
    fn handle_ref(&self) -> HandleRef<'_>;
}

#[cfg(unix)]
impl<T: std::os::fd::AsFd + ?Sized> AsHandleRef for T {
    fn handle_ref(&self) -> HandleRef<'_> {
        self.as_fd()
    }
}

#[cfg(windows)]
impl<T: std::os::windows::io::AsHandle + ?Sized> AsHandleRef for T {
    fn handle_ref(&self) -> HandleRef<'_> {
        self.as_handle()
    }
}

/// What a directory entry is, as a backup sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(
    windows,
    expect(
        dead_code,
        reason = "Windows lists files, directories and links only; the rest are Unix's"
    )
)]
pub enum FileKind {
    File,
    Dir,
    Symlink,
    Fifo,
    Socket,
    /// A character or block device.
    Device,
    /// Not said (a directory listing of a filesystem that leaves the type out): stat it.
    Unknown,
}

/// One name in a directory listing (`.` and `..` left out).
#[derive(Debug, Clone)]
pub struct DirEntry {
    pub name: std::ffi::OsString,
    pub kind: FileKind,
}

/// What `stat` says of a file (of a symlink itself, never its target).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    pub kind: FileKind,
    pub size: u64,
    /// The filesystem it is on, and its number there: together, the file's identity.
    pub device: u64,
    pub inode: u64,
    /// How many names (hard links) the file has.
    pub links: u64,
}
