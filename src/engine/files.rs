//! The open files of a real engine, shared by `sync` and `uring`.

use std::io;
use std::sync::Arc;

use super::FileId;
use crate::platform::{self, OpenHow};
use crate::platform::{AsHandleRef, Handle, HandleRef};

/// Open descriptors by [`FileId`]. Descriptors are reference-counted so a worker thread can hold
/// one while its request is in flight.
#[derive(Default)]
pub struct FileTable {
    files: Vec<Option<Arc<Handle>>>,
}

impl FileTable {
    pub fn open(&mut self, dir: HandleRef<'_>, name: &str, how: OpenHow) -> io::Result<FileId> {
        Ok(self.insert(platform::open_in(dir, name, how)?))
    }

    /// Keeps an opened descriptor; returns its id.
    pub fn insert(&mut self, fd: Handle) -> FileId {
        let fd = Arc::new(fd);
        let id = match self.files.iter().position(Option::is_none) {
            Some(free) => {
                self.files[free] = Some(fd);
                free
            }
            None => {
                self.files.push(Some(fd));
                self.files.len() - 1
            }
        };
        FileId(id)
    }

    pub fn get(&self, file: FileId) -> io::Result<&Arc<Handle>> {
        self.files
            .get(file.0)
            .and_then(Option::as_ref)
            .ok_or_else(|| io::Error::other(format!("file {} is not open", file.0)))
    }

    pub fn close(&mut self, file: FileId) -> io::Result<()> {
        match self.files.get_mut(file.0).and_then(Option::take) {
            Some(_) => Ok(()),
            None => Err(io::Error::other(format!("file {} is not open", file.0))),
        }
    }

    pub fn set_len(&self, file: FileId, len: u64) -> io::Result<()> {
        platform::set_len(self.get(file)?.handle_ref(), len)
    }

    pub fn evict(&self, file: FileId, len: u64) -> io::Result<Option<f64>> {
        let fd = self.get(file)?.handle_ref();
        platform::evict(fd)?;
        Ok(platform::resident_fraction(fd, len).ok())
    }
}

/// The file operations of an [`Engine`](super::Engine) whose open files live in a `files:
/// FileTable` field: the same for every real engine, written once.
macro_rules! file_ops_through_table {
    () => {
        fn open(
            &mut self,
            dir: crate::platform::HandleRef<'_>,
            name: &str,
            how: crate::platform::OpenHow,
        ) -> std::io::Result<crate::engine::FileId> {
            self.files.open(dir, name, how)
        }

        fn close(&mut self, file: crate::engine::FileId) -> std::io::Result<()> {
            self.files.close(file)
        }

        fn set_len(&mut self, file: crate::engine::FileId, len: u64) -> std::io::Result<()> {
            self.files.set_len(file, len)
        }

        fn evict(&mut self, file: crate::engine::FileId, len: u64) -> std::io::Result<Option<f64>> {
            self.files.evict(file, len)
        }

        fn unlink(
            &mut self,
            dir: crate::platform::HandleRef<'_>,
            name: &str,
        ) -> std::io::Result<()> {
            crate::platform::unlink_in(dir, name)
        }
    };
}
pub(crate) use file_ops_through_table;
