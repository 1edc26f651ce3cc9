//! File-tree operations of the engine layer: what the file-set and metadata tests do to a
//! destination (mkdir, create, copy in, read, fsync, close, unlink, rename, stat, syncfs), so that
//! the tree tests reach the disk only through an engine, as the block tests do.
//!
//! Every operation is relative to a directory handle ([`Dir`]) and names one entry in it: no path
//! is resolved by the kernel past a directory we opened ourselves, and nothing follows a symlink.
//! One engine instance serves one thread (a copy worker, the walker, the metadata loop); the
//! engines of one run share what they must (the `null` engine its virtual tree) through
//! [`EngineFactory::build_tree`](super::EngineFactory::build_tree).
//!
//! Implementations: `system` (ordinary system calls) and `null` (a virtual tree on a virtual
//! clock, for exact figures in tests).

mod null;
#[cfg(unix)]
mod system;
mod system_common;
#[cfg(windows)]
mod windows;

use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

pub use null::{NullTree, VirtualTree};
#[cfg(unix)]
pub use system::SystemTree;
#[cfg(windows)]
pub use windows::SystemTree;

use super::{EngineKind, FileId};
use crate::platform::{FileKind, Handle, HandleRef};

/// An open directory: a descriptor for the real engines, a node of the virtual tree for `null`.
/// Cheap to clone and to hand to another thread (a batch of files carries its directories).
#[derive(Debug, Clone)]
pub enum Dir {
    Real(Arc<Handle>),
    Virtual(usize),
}

impl Dir {
    /// The descriptor of a real directory.
    pub fn fd(&self) -> io::Result<HandleRef<'_>> {
        match self {
            Dir::Real(fd) => Ok(crate::platform::AsHandleRef::handle_ref(fd.as_ref())),
            Dir::Virtual(_) => Err(io::Error::other(
                "a directory of the null engine used with a real engine",
            )),
        }
    }
}

/// Where a tree the run works on is: a directory opened once, by the path the user gave (the
/// scratch directory, a generated set's area, a `--source`), and a path below it. Everything
/// below the base is reached from the base's descriptor without following a symlink, so a
/// directory swapped for a symlink after the base was opened cannot lead a task out of it.
#[derive(Debug, Clone)]
pub struct Root {
    base: Arc<Base>,
    rel: PathBuf,
    /// Whether a walk of it may enter directories of other filesystems (`--cross-filesystems`).
    cross: bool,
}

#[derive(Debug)]
struct Base {
    path: PathBuf,
    /// None only for a virtual root of the `null` engine that no real directory backs.
    fd: Option<Arc<Handle>>,
}

impl Root {
    /// The directory at `path`, opened now. Symlinks in `path` itself are the user's choice and
    /// followed; nothing below it will be.
    pub fn open(path: &Path) -> io::Result<Root> {
        let fd = crate::platform::open_dir(path)?;
        Ok(Root::of_fd(path, Arc::new(fd)))
    }

    /// A directory already open at `path` (the scratch directory, opened as it was made).
    pub fn of_fd(path: &Path, fd: Arc<Handle>) -> Root {
        Root {
            base: Arc::new(Base {
                path: path.to_path_buf(),
                fd: Some(fd),
            }),
            rel: PathBuf::new(),
            cross: false,
        }
    }

    /// A root known only by its path, which only the `null` engine can open (tests of it).
    #[cfg(test)]
    pub fn virtual_at(path: &Path) -> Root {
        Root {
            base: Arc::new(Base {
                path: path.to_path_buf(),
                fd: None,
            }),
            rel: PathBuf::new(),
            cross: false,
        }
    }

    /// The directory `name` below this one (nothing is opened).
    pub fn join(&self, name: impl AsRef<Path>) -> Root {
        Root {
            base: self.base.clone(),
            rel: self.rel.join(name),
            cross: self.cross,
        }
    }

    /// The same root, its walks entering other filesystems or not (the default: as `find -xdev`).
    pub fn crossing(mut self, cross: bool) -> Root {
        self.cross = cross;
        self
    }

    pub fn crosses(&self) -> bool {
        self.cross
    }

    /// Its path, for messages and for the `null` engine's virtual tree.
    pub fn path(&self) -> PathBuf {
        self.base.path.join(&self.rel)
    }

    /// The path below the base.
    pub fn rel(&self) -> &Path {
        &self.rel
    }

    /// The base directory's handle.
    pub fn base(&self) -> io::Result<Dir> {
        match &self.base.fd {
            Some(fd) => Ok(Dir::Real(fd.clone())),
            None => Err(io::Error::other(format!(
                "{} is a virtual directory of the null engine",
                self.base.path.display()
            ))),
        }
    }
}

/// What an entry is, as its directory (or an lstat) says; symlinks are never followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    Dir,
    File,
    Symlink,
    /// Never opened: a FIFO or a device could block or never end, a socket holds no data.
    Fifo,
    Socket,
    Device,
}

/// The platform's kind of an entry; one that did not say (`Unknown`) is treated as a device: never
/// opened.
impl From<FileKind> for EntryKind {
    fn from(kind: FileKind) -> EntryKind {
        match kind {
            FileKind::Dir => EntryKind::Dir,
            FileKind::File => EntryKind::File,
            FileKind::Symlink => EntryKind::Symlink,
            FileKind::Fifo => EntryKind::Fifo,
            FileKind::Socket => EntryKind::Socket,
            FileKind::Device | FileKind::Unknown => EntryKind::Device,
        }
    }
}

/// One entry of a directory listing.
#[derive(Debug, Clone)]
pub struct Entry {
    pub name: OsString,
    pub kind: EntryKind,
}

/// What `stat` says of an entry (without following a symlink), and what a copy keeps of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryStat {
    pub kind: EntryKind,
    pub size: u64,
    /// Permission bits (`& 0o7777`).
    pub mode: u32,
    /// Access and modification times, seconds and nanoseconds since the epoch.
    pub accessed: (i64, u32),
    pub modified: (i64, u32),
}

/// Which side of a copy failed: an unreadable source is counted and skipped, a failing
/// destination stops the task.
#[derive(Debug)]
pub enum CopyError {
    Source(io::Error),
    Destination(io::Error),
}

/// Opens the directory `rel` below `root` one component at a time, each relative to the last.
pub fn open_components<E: TreeEngine + ?Sized>(
    engine: &mut E,
    root: &Dir,
    rel: &Path,
) -> io::Result<Dir> {
    let mut dir = root.clone();
    for part in rel.components() {
        match part {
            Component::Normal(name) => dir = engine.open_dir(&dir, name)?,
            Component::CurDir => {}
            _ => return Err(io::ErrorKind::InvalidInput.into()),
        }
    }
    Ok(dir)
}

/// The file-tree operations of one engine instance. Files are identified by [`FileId`]s of this
/// instance; directories by [`Dir`]s that instances of the same run share.
pub trait TreeEngine: Send {
    fn kind(&self) -> EngineKind;

    /// Monotonic time: the tree tests time themselves with it, so `null` gives exact figures.
    fn now(&self) -> Duration;

    /// Opens the directory `root`: from its base's handle, never through a symlink.
    fn open_root(&mut self, root: &Root) -> io::Result<Dir> {
        let base = root.base()?;
        self.open_path(&base, root.rel())
    }

    /// Opens the directory `name` in `parent`, refusing a symlink.
    fn open_dir(&mut self, parent: &Dir, name: &OsStr) -> io::Result<Dir>;

    /// Opens the directory `rel` below `root`, never through a symlink.
    fn open_path(&mut self, root: &Dir, rel: &Path) -> io::Result<Dir> {
        open_components(self, root, rel)
    }

    /// Creates the directory `name` in `parent` (owner-only until its metadata is set) and
    /// opens it.
    fn mkdir(&mut self, parent: &Dir, name: &OsStr) -> io::Result<Dir>;

    /// Removes the empty directory `name` from `parent`.
    fn rmdir(&mut self, parent: &Dir, name: &OsStr) -> io::Result<()>;

    /// The filesystem (device number) `dir` is on, where the engine knows one.
    fn device(&mut self, _dir: &Dir) -> io::Result<Option<u64>> {
        Ok(None)
    }

    /// The entries of `dir` (without `.` and `..`), in the directory's order.
    fn list(&mut self, dir: &Dir) -> io::Result<Vec<Entry>>;

    /// The target of the symlink `name` in `dir`.
    fn read_link(&mut self, dir: &Dir, name: &OsStr) -> io::Result<OsString>;

    /// Creates the symlink `name` in `dir` pointing at `target` (never followed).
    fn symlink(&mut self, dir: &Dir, name: &OsStr, target: &OsStr) -> io::Result<()>;

    /// Creates the file `name` in `dir` for writing; it must not exist yet.
    fn create(&mut self, dir: &Dir, name: &OsStr, mode: u32) -> io::Result<FileId>;

    /// Opens the file `name` in `dir` for reading, refusing a symlink.
    fn open(&mut self, dir: &Dir, name: &OsStr) -> io::Result<FileId>;

    /// What `name` in `dir` is, without following a symlink.
    fn stat(&mut self, dir: &Dir, name: &OsStr) -> io::Result<EntryStat>;

    /// Writes `len` bytes read from `source` (a file outside the engine: the source of a backup)
    /// into `file`; returns the bytes copied, fewer if the source shrank. Data moves through the
    /// kernel (`splice`) where it can, never by `copy_file_range` or a reflink: the destination
    /// receives every byte.
    fn copy_in(&mut self, file: FileId, source: HandleRef<'_>, len: u64) -> Result<u64, CopyError>;

    /// Reads the next bytes of `file` into `buf`; 0 at the end.
    fn read(&mut self, file: FileId, buf: &mut [u8]) -> io::Result<usize>;

    /// Sets a file's times, and its mode when `mode` is given.
    fn set_meta(&mut self, file: FileId, meta: &EntryStat, mode: bool) -> io::Result<()>;

    /// Sets a directory's mode and times, and makes it durable when `durable`.
    fn set_dir_meta(&mut self, dir: &Dir, meta: &EntryStat, durable: bool) -> io::Result<()>;

    /// Makes the file's data and metadata durable.
    fn fsync(&mut self, file: FileId) -> io::Result<()>;

    fn close(&mut self, file: FileId) -> io::Result<()>;

    /// Removes the file (or symlink) `name` from `dir`.
    fn unlink(&mut self, dir: &Dir, name: &OsStr) -> io::Result<()>;

    /// Renames `from` to `to` inside `dir`.
    fn rename(&mut self, dir: &Dir, from: &OsStr, to: &OsStr) -> io::Result<()>;

    /// Flushes the whole filesystem holding `dir`.
    fn syncfs(&mut self, dir: &Dir) -> io::Result<()>;

    /// Drops `file`'s pages from the page cache; returns the fraction still resident, as
    /// `mincore` sees it (None when it cannot be checked).
    fn evict(&mut self, file: FileId) -> io::Result<Option<f64>>;
}
