//! What the `system` tree engine does alike on Unix and Windows: its clock, its table of open
//! files, the buffer a copy goes through where the kernel cannot move the data itself, and the
//! operations that only hand a handle to `platform`.

use std::io;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{CopyError, Dir};
use crate::engine::{FileId, FileTable};
use crate::platform::{self, AsHandleRef};

/// Data that the kernel cannot copy itself goes through a buffer of this size.
const BUFFER: usize = 1 << 20;

/// The state of one `SystemTree`, whatever the OS.
pub(super) struct Common {
    origin: Instant,
    pub files: FileTable,
    /// Made on the first copy that needs it: most engines never copy.
    pub buffer: Vec<u8>,
}

impl Default for Common {
    fn default() -> Self {
        Common {
            origin: Instant::now(),
            files: FileTable::default(),
            buffer: Vec::new(),
        }
    }
}

impl Common {
    pub fn now(&self) -> Duration {
        self.origin.elapsed()
    }

    /// Drops the open `file`'s cached pages; an empty file has none.
    pub fn evict(&mut self, file: FileId) -> io::Result<Option<f64>> {
        let len = platform::file_len(self.files.get(file)?.handle_ref())?;
        if len == 0 {
            return Ok(None);
        }
        self.files.evict(file, len)
    }
}

/// Copies `len` bytes through `buffer` (made on first use): `read` fills a slice from the source
/// (0 at its end, `Interrupted` to be retried), `write` writes a slice whole to the destination.
pub(super) fn copy_through(
    buffer: &mut Vec<u8>,
    len: u64,
    mut read: impl FnMut(&mut [u8]) -> io::Result<usize>,
    mut write: impl FnMut(&[u8]) -> io::Result<()>,
) -> Result<u64, CopyError> {
    if buffer.is_empty() {
        *buffer = vec![0u8; BUFFER];
    }
    let mut copied = 0u64;
    while copied < len {
        let want = (len - copied).min(buffer.len() as u64) as usize;
        let n = match read(&mut buffer[..want]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(CopyError::Source(e)),
        };
        write(&buffer[..n]).map_err(CopyError::Destination)?;
        copied += n as u64;
    }
    Ok(copied)
}

/// Opens the directory `rel` below `root` in one call, never through a link and never out of
/// `root` (`platform::open_beneath` says how each OS does it).
pub(super) fn open_path(root: &Dir, rel: &Path) -> io::Result<Dir> {
    if rel.as_os_str().is_empty() {
        return Ok(root.clone());
    }
    Ok(Dir::Real(Arc::new(platform::open_beneath(
        root.fd()?,
        rel,
    )?)))
}

/// The `TreeEngine` methods the same on every OS, for a `SystemTree` whose state is its field
/// `common`: written once here, put into each OS's `impl TreeEngine` block.
macro_rules! same_on_every_os {
    () => {
        fn kind(&self) -> $crate::engine::EngineKind {
            $crate::engine::EngineKind::Sync
        }

        fn now(&self) -> ::std::time::Duration {
            self.common.now()
        }

        fn open_path(&mut self, root: &Dir, rel: &::std::path::Path) -> ::std::io::Result<Dir> {
            $crate::engine::tree::system_common::open_path(root, rel)
        }

        fn device(&mut self, dir: &Dir) -> ::std::io::Result<Option<u64>> {
            Ok(Some($crate::platform::stat(dir.fd()?)?.device))
        }

        fn close(&mut self, file: $crate::engine::FileId) -> ::std::io::Result<()> {
            self.common.files.close(file)
        }

        fn syncfs(&mut self, dir: &Dir) -> ::std::io::Result<()> {
            $crate::platform::syncfs(dir.fd()?)
        }

        fn evict(&mut self, file: $crate::engine::FileId) -> ::std::io::Result<Option<f64>> {
            self.common.evict(file)
        }
    };
}
pub(super) use same_on_every_os;
