//! The `system` tree engine: one ordinary system call per operation, from the calling thread,
//! relative to an open directory and never following a symlink. It is also how destbench reads a
//! backup's source, whatever engine the destination gets.

use std::ffi::{OsStr, OsString};
use std::io;
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::ffi::OsStrExt;
use std::sync::Arc;

use rustix::fs::{AtFlags, FileType, Mode, OFlags, Timespec, Timestamps};

use super::system_common::{self, Common};
use super::{CopyError, Dir, Entry, EntryKind, EntryStat, TreeEngine};
use crate::engine::FileId;
use crate::platform::{self, SpliceError, SplicePipe};

#[derive(Default)]
pub struct SystemTree {
    common: Common,
    /// Made on the first copy: a pipe for `splice` (the buffer is where splice cannot go).
    pipe: Option<SplicePipe>,
}

impl SystemTree {
    pub fn new() -> Self {
        Self::default()
    }

    /// The descriptor of an open file (a copy's source is handed to another engine this way).
    pub fn fd(&self, file: FileId) -> io::Result<BorrowedFd<'_>> {
        Ok(self.common.files.get(file)?.as_fd())
    }

    /// What the open `file` is.
    pub fn fstat(&self, file: FileId) -> io::Result<EntryStat> {
        Ok(stat_of(&rustix::fs::fstat(self.fd(file)?)?))
    }

    fn open_at(&mut self, dir: &Dir, name: &OsStr, flags: OFlags, mode: u32) -> io::Result<FileId> {
        let fd = rustix::fs::openat(
            dir.fd()?,
            name,
            flags | OFlags::CLOEXEC | OFlags::NOFOLLOW,
            platform::raw_mode(mode),
        )?;
        Ok(self.common.files.insert(fd))
    }
}

/// Copies `len` bytes from `source` to `target` through `buffer` (made on first use), for
/// filesystems that cannot splice.
fn copy_through(
    source: BorrowedFd<'_>,
    target: BorrowedFd<'_>,
    len: u64,
    buffer: &mut Vec<u8>,
) -> Result<u64, CopyError> {
    system_common::copy_through(
        buffer,
        len,
        |buf| Ok(rustix::io::read(source, buf)?),
        |data| {
            platform::move_all(data.len(), |written| {
                rustix::io::write(target, &data[written..])
            })
        },
    )
}

/// An open directory, never through a symlink.
fn open_directory(parent: BorrowedFd<'_>, name: &OsStr) -> io::Result<Dir> {
    let fd = rustix::fs::openat(
        parent,
        name,
        OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::RDONLY,
        Mode::empty(),
    )?;
    Ok(Dir::Real(Arc::new(fd)))
}

fn kind_of(t: FileType) -> EntryKind {
    match t {
        FileType::Directory => EntryKind::Dir,
        FileType::RegularFile => EntryKind::File,
        FileType::Symlink => EntryKind::Symlink,
        FileType::Fifo => EntryKind::Fifo,
        FileType::Socket => EntryKind::Socket,
        _ => EntryKind::Device,
    }
}

#[allow(clippy::unnecessary_cast)] // mode_t is 16 bits on macOS
fn stat_of(st: &rustix::fs::Stat) -> EntryStat {
    EntryStat {
        kind: kind_of(FileType::from_raw_mode(st.st_mode)),
        size: st.st_size as u64,
        mode: st.st_mode as u32 & 0o7777,
        accessed: (st.st_atime, st.st_atime_nsec as u32),
        modified: (st.st_mtime, st.st_mtime_nsec as u32),
    }
}

fn timestamps(meta: &EntryStat) -> Timestamps {
    let spec = |(tv_sec, tv_nsec): (i64, u32)| Timespec {
        tv_sec,
        tv_nsec: tv_nsec.into(),
    };
    Timestamps {
        last_access: spec(meta.accessed),
        last_modification: spec(meta.modified),
    }
}

impl TreeEngine for SystemTree {
    system_common::same_on_every_os!();

    fn open_dir(&mut self, parent: &Dir, name: &OsStr) -> io::Result<Dir> {
        open_directory(parent.fd()?, name)
    }

    fn mkdir(&mut self, parent: &Dir, name: &OsStr) -> io::Result<Dir> {
        rustix::fs::mkdirat(parent.fd()?, name, Mode::from_raw_mode(0o700))?;
        open_directory(parent.fd()?, name)
    }

    fn rmdir(&mut self, parent: &Dir, name: &OsStr) -> io::Result<()> {
        Ok(rustix::fs::unlinkat(
            parent.fd()?,
            name,
            AtFlags::REMOVEDIR,
        )?)
    }

    fn list(&mut self, dir: &Dir) -> io::Result<Vec<Entry>> {
        let fd = dir.fd()?;
        let mut entries = Vec::new();
        for entry in rustix::fs::Dir::read_from(fd)? {
            let entry = entry?;
            let name = entry.file_name().to_bytes();
            if name == b"." || name == b".." {
                continue;
            }
            let name = OsStr::from_bytes(name).to_os_string();
            // Some filesystems leave the type out of the listing: ask, without following.
            let kind = match entry.file_type() {
                FileType::Unknown => match rustix::fs::statat(fd, &name, AtFlags::SYMLINK_NOFOLLOW)
                {
                    Ok(st) => kind_of(FileType::from_raw_mode(st.st_mode)),
                    Err(rustix::io::Errno::NOENT) => continue,
                    Err(e) => return Err(e.into()),
                },
                t => kind_of(t),
            };
            entries.push(Entry { name, kind });
        }
        Ok(entries)
    }

    fn read_link(&mut self, dir: &Dir, name: &OsStr) -> io::Result<OsString> {
        let target = rustix::fs::readlinkat(dir.fd()?, name, Vec::new())?;
        Ok(OsStr::from_bytes(target.as_bytes()).to_os_string())
    }

    fn symlink(&mut self, dir: &Dir, name: &OsStr, target: &OsStr) -> io::Result<()> {
        Ok(rustix::fs::symlinkat(target, dir.fd()?, name)?)
    }

    fn create(&mut self, dir: &Dir, name: &OsStr, mode: u32) -> io::Result<FileId> {
        self.open_at(
            dir,
            name,
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL,
            mode,
        )
    }

    /// Non-blocking, so that a FIFO or device swapped in after the listing cannot hang the
    /// open; anything but a regular file is then refused.
    fn open(&mut self, dir: &Dir, name: &OsStr) -> io::Result<FileId> {
        let file = self.open_at(dir, name, OFlags::RDONLY | OFlags::NONBLOCK, 0)?;
        match self.fstat(file) {
            Ok(stat) if stat.kind == EntryKind::File => Ok(file),
            other => {
                let _ = self.close(file);
                Err(other.err().unwrap_or_else(|| {
                    io::Error::new(io::ErrorKind::InvalidInput, "not a regular file")
                }))
            }
        }
    }

    fn stat(&mut self, dir: &Dir, name: &OsStr) -> io::Result<EntryStat> {
        let st = rustix::fs::statat(dir.fd()?, name, AtFlags::SYMLINK_NOFOLLOW)?;
        Ok(stat_of(&st))
    }

    fn copy_in(
        &mut self,
        file: FileId,
        source: BorrowedFd<'_>,
        len: u64,
    ) -> Result<u64, CopyError> {
        if self.pipe.is_none() {
            self.pipe = SplicePipe::new().ok();
        }
        let spliced = match &self.pipe {
            Some(pipe) => {
                let target = self
                    .common
                    .files
                    .get(file)
                    .map_err(CopyError::Destination)?;
                pipe.copy(source, target.as_fd(), len)
            }
            None => Err(SpliceError::Unsupported),
        };
        match spliced {
            Ok(n) => Ok(n),
            Err(SpliceError::Unsupported) => {
                let target = self
                    .common
                    .files
                    .get(file)
                    .map_err(CopyError::Destination)?;
                copy_through(source, target.as_fd(), len, &mut self.common.buffer)
            }
            #[cfg(target_os = "linux")]
            Err(SpliceError::Source(e)) => Err(CopyError::Source(e)),
            #[cfg(target_os = "linux")]
            Err(SpliceError::Destination(e)) => Err(CopyError::Destination(e)),
        }
    }

    fn read(&mut self, file: FileId, buf: &mut [u8]) -> io::Result<usize> {
        let fd = self.common.files.get(file)?;
        loop {
            match rustix::io::read(fd.as_fd(), &mut *buf) {
                Err(rustix::io::Errno::INTR) => continue,
                other => return Ok(other?),
            }
        }
    }

    fn set_meta(&mut self, file: FileId, meta: &EntryStat, mode: bool) -> io::Result<()> {
        let fd = self.fd(file)?;
        if mode {
            rustix::fs::fchmod(fd, platform::raw_mode(meta.mode))?;
        }
        Ok(rustix::fs::futimens(fd, &timestamps(meta))?)
    }

    fn set_dir_meta(&mut self, dir: &Dir, meta: &EntryStat, durable: bool) -> io::Result<()> {
        let fd = dir.fd()?;
        rustix::fs::fchmod(fd, platform::raw_mode(meta.mode))?;
        rustix::fs::futimens(fd, &timestamps(meta))?;
        if durable {
            platform::fsync(fd)?;
        }
        Ok(())
    }

    fn fsync(&mut self, file: FileId) -> io::Result<()> {
        platform::fsync(self.fd(file)?)
    }

    fn unlink(&mut self, dir: &Dir, name: &OsStr) -> io::Result<()> {
        Ok(rustix::fs::unlinkat(dir.fd()?, name, AtFlags::empty())?)
    }

    fn rename(&mut self, dir: &Dir, from: &OsStr, to: &OsStr) -> io::Result<()> {
        let fd = dir.fd()?;
        Ok(rustix::fs::renameat(fd, from, fd, to)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both ways a copy moves data (splice, and the buffer where splice cannot go) give the bytes.
    #[test]
    fn splice_and_buffer_copies_move_every_byte() {
        let dir = tempfile::tempdir().unwrap();
        let data: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(dir.path().join("src"), &data).unwrap();
        let mut engine = SystemTree::new();
        let root = engine
            .open_root(&crate::engine::tree::Root::open(dir.path()).unwrap())
            .unwrap();
        for (name, spliced) in [("a", true), ("b", false)] {
            let source = std::fs::File::open(dir.path().join("src")).unwrap();
            let file = engine.create(&root, OsStr::new(name), 0o600).unwrap();
            let len = data.len() as u64;
            let copied = if spliced {
                engine.copy_in(file, source.as_fd(), len)
            } else {
                let target = engine.common.files.get(file).unwrap().clone();
                copy_through(
                    source.as_fd(),
                    target.as_fd(),
                    len,
                    &mut engine.common.buffer,
                )
            };
            assert_eq!(copied.unwrap(), len);
            engine.close(file).unwrap();
            assert_eq!(
                std::fs::read(dir.path().join(name)).unwrap(),
                data,
                "{name}"
            );
        }
    }
}
