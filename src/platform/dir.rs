//! Linux: directories listed, stat'ed, opened and removed relative to an open directory's
//! handle, never through a symlink (`O_NOFOLLOW`, `AT_SYMLINK_NOFOLLOW`), so a tree changed
//! under a walk cannot lead it elsewhere.

use std::ffi::OsStr;
use std::io;
use std::os::unix::ffi::OsStrExt;

use rustix::fs::{AtFlags, FileType, Mode, OFlags};

use super::{DirEntry, FileKind, Handle, HandleRef, Stat};

/// Opens the directory `name` in `parent`; a symlink by that name fails (`ELOOP`), as does
/// anything not a directory (`ENOTDIR`).
pub(super) fn open_dir_at(parent: HandleRef<'_>, name: &OsStr) -> io::Result<Handle> {
    Ok(rustix::fs::openat(
        parent,
        name,
        OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::RDONLY,
        Mode::empty(),
    )?)
}

/// Whether an error of [`open_dir_at`] means the name is there but is no directory to enter
/// (a symlink or a file), which a removal removes as it is.
pub(super) fn is_link_or_file(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR))
}

/// Opens the directory `name` in the open directory `parent`, never following a symlink.
pub fn open_dir_in(parent: HandleRef<'_>, name: &OsStr) -> io::Result<Handle> {
    open_dir_at(parent, name)
}

/// The entries of the open directory `dir`, `.` and `..` left out.
pub fn read_dir(dir: HandleRef<'_>) -> io::Result<Entries> {
    Ok(Entries(rustix::fs::Dir::read_from(dir)?))
}

/// A directory listing in progress (from [`read_dir`]).
pub struct Entries(rustix::fs::Dir);

impl Iterator for Entries {
    type Item = io::Result<DirEntry>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let entry = match self.0.next()? {
                Ok(entry) => entry,
                Err(e) => return Some(Err(e.into())),
            };
            let name = entry.file_name().to_bytes();
            if name != b"." && name != b".." {
                return Some(Ok(DirEntry {
                    name: OsStr::from_bytes(name).to_os_string(),
                    kind: kind_of(entry.file_type()),
                }));
            }
        }
    }
}

/// `name` in the open directory `dir` as it is (a symlink is not followed).
pub fn stat_in(dir: HandleRef<'_>, name: &OsStr) -> io::Result<Stat> {
    Ok(from_raw(&rustix::fs::statat(
        dir,
        name,
        AtFlags::SYMLINK_NOFOLLOW,
    )?))
}

/// The open file or directory `fd`.
pub fn stat(fd: HandleRef<'_>) -> io::Result<Stat> {
    Ok(from_raw(&rustix::fs::fstat(fd)?))
}

/// Removes the empty directory `name` in the open directory `parent`.
pub fn remove_dir_in(parent: HandleRef<'_>, name: &OsStr) -> io::Result<()> {
    Ok(rustix::fs::unlinkat(parent, name, AtFlags::REMOVEDIR)?)
}

/// Removes the non-directory `name` in the open directory `parent`.
pub(super) fn unlink_at(parent: HandleRef<'_>, name: &OsStr) -> io::Result<()> {
    Ok(rustix::fs::unlinkat(parent, name, AtFlags::empty())?)
}

fn kind_of(kind: FileType) -> FileKind {
    match kind {
        FileType::RegularFile => FileKind::File,
        FileType::Directory => FileKind::Dir,
        FileType::Symlink => FileKind::Symlink,
        FileType::Fifo => FileKind::Fifo,
        FileType::Socket => FileKind::Socket,
        FileType::CharacterDevice | FileType::BlockDevice => FileKind::Device,
        FileType::Unknown => FileKind::Unknown,
    }
}

#[allow(clippy::unnecessary_cast)] // the fields' widths differ between targets
fn from_raw(st: &rustix::fs::Stat) -> Stat {
    Stat {
        kind: kind_of(FileType::from_raw_mode(st.st_mode)),
        size: st.st_size as u64,
        device: st.st_dev as u64,
        inode: st.st_ino as u64,
        links: st.st_nlink as u64,
    }
}
