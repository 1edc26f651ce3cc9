//! The `system` tree engine on Windows: one system call per operation from the calling thread,
//! every name opened relative to a directory handle and a junction or symlink never followed
//! (see `src/platform/windows/nt.rs`). Copies go through a buffer: Windows has no `splice`.

use std::ffi::{OsStr, OsString};
use std::io;
use std::sync::Arc;

use super::system_common::{self, Common};
use super::{CopyError, Dir, Entry, EntryStat, TreeEngine};
use crate::engine::FileId;
use crate::platform::{self, AsHandleRef, FileKind, HandleRef};

#[derive(Default)]
pub struct SystemTree {
    common: Common,
}

impl SystemTree {
    pub fn new() -> Self {
        Self::default()
    }

    /// The handle of an open file (a copy's source is handed to another engine this way).
    pub fn fd(&self, file: FileId) -> io::Result<HandleRef<'_>> {
        Ok(self.common.files.get(file)?.handle_ref())
    }

    /// What the open `file` is.
    pub fn fstat(&self, file: FileId) -> io::Result<EntryStat> {
        stat_of(self.fd(file)?)
    }
}

fn stat_of(handle: HandleRef<'_>) -> io::Result<EntryStat> {
    let st = platform::stat(handle)?;
    let (accessed, modified) = platform::times(handle)?;
    let readonly = {
        let info = std::fs::File::from(handle.try_clone_to_owned()?).metadata()?;
        platform::mode_of(&info)
    };
    Ok(EntryStat {
        kind: st.kind.into(),
        size: st.size,
        mode: readonly,
        accessed,
        modified,
    })
}

/// Windows links are not copied: creating one needs a privilege, and reading its target is
/// not done yet. Said as an error, so the copy counts it instead of pretending.
fn links_unsupported() -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        "destbench does not copy junctions or symlinks on Windows",
    )
}

impl TreeEngine for SystemTree {
    system_common::same_on_every_os!();

    fn open_dir(&mut self, parent: &Dir, name: &OsStr) -> io::Result<Dir> {
        Ok(Dir::Real(Arc::new(platform::open_dir_in(
            parent.fd()?,
            name,
        )?)))
    }

    fn mkdir(&mut self, parent: &Dir, name: &OsStr) -> io::Result<Dir> {
        platform::mkdir_in(parent.fd()?, name, 0o700)?;
        self.open_dir(parent, name)
    }

    fn rmdir(&mut self, parent: &Dir, name: &OsStr) -> io::Result<()> {
        platform::remove_dir_in(parent.fd()?, name)
    }

    fn list(&mut self, dir: &Dir) -> io::Result<Vec<Entry>> {
        platform::read_dir(dir.fd()?)?
            .map(|entry| {
                entry.map(|e| Entry {
                    name: e.name,
                    kind: e.kind.into(),
                })
            })
            .collect()
    }

    fn read_link(&mut self, _dir: &Dir, _name: &OsStr) -> io::Result<OsString> {
        Err(links_unsupported())
    }

    fn symlink(&mut self, _dir: &Dir, _name: &OsStr, _target: &OsStr) -> io::Result<()> {
        Err(links_unsupported())
    }

    fn create(&mut self, dir: &Dir, name: &OsStr, _mode: u32) -> io::Result<FileId> {
        let file = platform::create_in(dir.fd()?, name, 0o600)?;
        Ok(self.common.files.insert(file.into()))
    }

    fn open(&mut self, dir: &Dir, name: &OsStr) -> io::Result<FileId> {
        let handle = platform::open_read_in(dir.fd()?, name)?;
        Ok(self.common.files.insert(handle))
    }

    fn stat(&mut self, dir: &Dir, name: &OsStr) -> io::Result<EntryStat> {
        let st = platform::stat_in(dir.fd()?, name)?;
        if st.kind != FileKind::File && st.kind != FileKind::Dir {
            return Ok(EntryStat {
                kind: st.kind.into(),
                size: st.size,
                mode: 0o777,
                accessed: (0, 0),
                modified: (0, 0),
            });
        }
        let handle = if st.kind == FileKind::Dir {
            platform::open_dir_in(dir.fd()?, name)?
        } else {
            platform::open_read_in(dir.fd()?, name)?
        };
        stat_of(handle.handle_ref())
    }

    fn copy_in(&mut self, file: FileId, source: HandleRef<'_>, len: u64) -> Result<u64, CopyError> {
        let target = self
            .common
            .files
            .get(file)
            .map_err(CopyError::Destination)?;
        system_common::copy_through(
            &mut self.common.buffer,
            len,
            |buf| platform::read(source, buf),
            |data| platform::write_all(target.handle_ref(), data),
        )
    }

    fn read(&mut self, file: FileId, buf: &mut [u8]) -> io::Result<usize> {
        platform::read(self.fd(file)?, buf)
    }

    fn set_meta(&mut self, file: FileId, meta: &EntryStat, _mode: bool) -> io::Result<()> {
        platform::set_times(self.fd(file)?, meta.accessed, meta.modified)
    }

    /// Directories keep their times only: Windows directories have no mode.
    fn set_dir_meta(&mut self, dir: &Dir, meta: &EntryStat, durable: bool) -> io::Result<()> {
        let handle = platform::dir_for_writing(dir.fd()?)?;
        platform::set_times(handle.handle_ref(), meta.accessed, meta.modified)?;
        if durable {
            platform::datasync(handle.handle_ref())?;
        }
        Ok(())
    }

    fn fsync(&mut self, file: FileId) -> io::Result<()> {
        platform::datasync(self.fd(file)?)
    }

    fn unlink(&mut self, dir: &Dir, name: &OsStr) -> io::Result<()> {
        platform::unlink_in(dir.fd()?, &name.to_string_lossy())
    }

    fn rename(&mut self, dir: &Dir, from: &OsStr, to: &OsStr) -> io::Result<()> {
        platform::rename_in(dir.fd()?, from, to)
    }
}
