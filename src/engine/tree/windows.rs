//! The `system` tree engine on Windows: one system call per operation from the calling thread,
//! every name opened relative to a directory handle and a junction or symlink never followed
//! (see `platform/windows/nt.rs`). Copies go through a buffer: Windows has no `splice`.

use std::ffi::{OsStr, OsString};
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{CopyError, Dir, Entry, Kind, Stat, TreeEngine};
use crate::engine::{EngineKind, FileId, FileTable};
use crate::platform::{self, AsHandleRef, FileKind, HandleRef};

/// Data is copied through a buffer of this size.
const BUFFER: usize = 1 << 20;

pub struct SystemTree {
    origin: Instant,
    files: FileTable,
    buffer: Vec<u8>,
}

impl Default for SystemTree {
    fn default() -> Self {
        Self::new()
    }
}

impl SystemTree {
    pub fn new() -> Self {
        SystemTree {
            origin: Instant::now(),
            files: FileTable::default(),
            buffer: Vec::new(),
        }
    }

    /// The handle of an open file (a copy's source is handed to another engine this way).
    pub fn fd(&self, file: FileId) -> io::Result<HandleRef<'_>> {
        Ok(self.files.get(file)?.handle_ref())
    }

    /// What the open `file` is.
    pub fn fstat(&self, file: FileId) -> io::Result<Stat> {
        stat_of(self.fd(file)?)
    }
}

fn kind_of(kind: FileKind) -> Kind {
    match kind {
        FileKind::Dir => Kind::Dir,
        FileKind::File => Kind::File,
        FileKind::Symlink => Kind::Symlink,
        FileKind::Fifo => Kind::Fifo,
        FileKind::Socket => Kind::Socket,
        FileKind::Device | FileKind::Unknown => Kind::Device,
    }
}

fn stat_of(handle: HandleRef<'_>) -> io::Result<Stat> {
    let st = platform::stat(handle)?;
    let (accessed, modified) = platform::times(handle)?;
    let readonly = {
        let info = std::fs::File::from(handle.try_clone_to_owned()?).metadata()?;
        platform::mode_of(&info)
    };
    Ok(Stat {
        kind: kind_of(st.kind),
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
    fn kind(&self) -> EngineKind {
        EngineKind::Sync
    }

    fn now(&self) -> Duration {
        self.origin.elapsed()
    }

    fn open_dir(&mut self, parent: &Dir, name: &OsStr) -> io::Result<Dir> {
        Ok(Dir::Real(Arc::new(platform::open_dir_in(
            parent.fd()?,
            name,
        )?)))
    }

    fn open_path(&mut self, root: &Dir, rel: &Path) -> io::Result<Dir> {
        if rel.as_os_str().is_empty() {
            return Ok(root.clone());
        }
        Ok(Dir::Real(Arc::new(platform::open_beneath(
            root.fd()?,
            rel,
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
                    kind: kind_of(e.kind),
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
        Ok(self.files.insert(file.into()))
    }

    fn open(&mut self, dir: &Dir, name: &OsStr) -> io::Result<FileId> {
        let handle = platform::open_read_in(dir.fd()?, name)?;
        Ok(self.files.insert(handle))
    }

    fn device(&mut self, dir: &Dir) -> io::Result<Option<u64>> {
        Ok(Some(platform::stat(dir.fd()?)?.device))
    }

    fn stat(&mut self, dir: &Dir, name: &OsStr) -> io::Result<Stat> {
        let st = platform::stat_in(dir.fd()?, name)?;
        if st.kind != FileKind::File && st.kind != FileKind::Dir {
            return Ok(Stat {
                kind: kind_of(st.kind),
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
        if self.buffer.is_empty() {
            self.buffer = vec![0u8; BUFFER];
        }
        let target = self.files.get(file).map_err(CopyError::Destination)?;
        let mut copied = 0u64;
        while copied < len {
            let want = (len - copied).min(self.buffer.len() as u64) as usize;
            let n = match platform::read(source, &mut self.buffer[..want]) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) => return Err(CopyError::Source(e)),
            };
            platform::write_all(target.handle_ref(), &self.buffer[..n])
                .map_err(CopyError::Destination)?;
            copied += n as u64;
        }
        Ok(copied)
    }

    fn read(&mut self, file: FileId, buf: &mut [u8]) -> io::Result<usize> {
        platform::read(self.fd(file)?, buf)
    }

    fn set_meta(&mut self, file: FileId, meta: &Stat, _mode: bool) -> io::Result<()> {
        platform::set_times(self.fd(file)?, meta.accessed, meta.modified)
    }

    /// Directories keep their times only: Windows directories have no mode.
    fn set_dir_meta(&mut self, dir: &Dir, meta: &Stat, durable: bool) -> io::Result<()> {
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

    fn close(&mut self, file: FileId) -> io::Result<()> {
        self.files.close(file)
    }

    fn unlink(&mut self, dir: &Dir, name: &OsStr) -> io::Result<()> {
        platform::unlink_in(dir.fd()?, &name.to_string_lossy())
    }

    fn rename(&mut self, dir: &Dir, from: &OsStr, to: &OsStr) -> io::Result<()> {
        platform::rename_in(dir.fd()?, from, to)
    }

    fn syncfs(&mut self, dir: &Dir) -> io::Result<()> {
        platform::syncfs(dir.fd()?)
    }

    fn evict(&mut self, file: FileId) -> io::Result<Option<f64>> {
        let len = platform::file_len(self.fd(file)?)?;
        if len == 0 {
            return Ok(None);
        }
        self.files.evict(file, len)
    }
}
