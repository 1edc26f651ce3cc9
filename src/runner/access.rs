//! How each figure stays clear of the page cache: direct I/O where the filesystem accepts it
//! (found out by trying), otherwise fdatasync inside write timings and verified eviction before
//! reads.

use crate::engine::{Engine, EngineFactory, FileId, IoRequest, Op};
use crate::error::{Error, Result};
use crate::platform::{self, DIRECT_ALIGN, OpenHow};
use crate::results::{AccessInfo, Method};
use crate::results::{Warning, WarningKind};
use crate::scratch::Scratch;

/// Residency above this after eviction means the eviction did not work.
const RESIDENT_LIMIT: f64 = 0.01;

/// The access method chosen for a run.
#[derive(Debug, Clone)]
pub struct Access {
    pub direct: bool,
    pub memory_backed: bool,
    /// The engine touches real files (its [`Capabilities`](crate::engine::Capabilities)); without
    /// that there is no page cache to keep out of the figures.
    pub real_io: bool,
    pub allow_drop_caches: bool,
    pub note: String,
}

/// Chooses the method for this destination.
pub fn detect(
    scratch: &Scratch,
    engines: &EngineFactory,
    force_buffered: bool,
    allow_drop_caches: bool,
) -> Access {
    let real_io = engines.capabilities().real_io;
    let memory_backed = real_io && platform::is_memory_backed(scratch.fd()).unwrap_or(false);
    let (direct, note) = if !real_io {
        (false, "null engine: no I/O".to_string())
    } else if memory_backed {
        (
            false,
            "the filesystem keeps files in memory (tmpfs): figures are memory speed, not a storage device's; buffered I/O with fdatasync".to_string(),
        )
    } else if force_buffered {
        (
            false,
            format!(
                "{}: buffered I/O, writes timed through fdatasync, reads after verified eviction",
                crate::settings::defs::BUFFERED
            ),
        )
    } else {
        match probe_direct(scratch, engines) {
            Ok(()) => (true, platform::DIRECT_NOTE.to_string()),
            Err(e) => (
                false,
                format!(
                    "the filesystem refused {} ({e}): writes are timed through fdatasync, reads follow a verified eviction",
                    platform::DIRECT_IO
                ),
            ),
        }
    };
    Access {
        direct,
        memory_backed,
        real_io,
        allow_drop_caches: real_io && allow_drop_caches && platform::is_root(),
        note,
    }
}

/// Writes and reads back one aligned block with O_DIRECT in the scratch directory, through the
/// run's engine.
fn probe_direct(scratch: &Scratch, engines: &EngineFactory) -> std::io::Result<()> {
    const NAME: &str = "direct-probe";
    let how = OpenHow {
        write: true,
        create: true,
        direct: true,
    };
    let mut engine = engines.build(1)?;
    engine.prepare(1, DIRECT_ALIGN)?;
    engine.buffer_mut(0).fill(0x5a);
    let file = engine.open(scratch.fd(), NAME, how)?;
    let request = |op| IoRequest {
        slot: 0,
        file,
        op,
        offset: 0,
        len: DIRECT_ALIGN,
    };
    let result = engine
        .run_one(request(Op::Write))
        .and_then(|done| done.result)
        .and_then(|_| engine.run_one(request(Op::Read)))
        .and_then(|done| done.result)
        .map(drop);
    let _ = engine.close(file);
    let _ = engine.unlink(scratch.fd(), NAME);
    result
}

impl Access {
    pub fn open_how(&self, write: bool, create: bool) -> OpenHow {
        OpenHow {
            write,
            create,
            direct: self.direct,
        }
    }

    /// `real`, the method of a figure where the engine does real I/O; `null` where it does none.
    pub fn method(&self, real: Method) -> Method {
        if self.real_io { real } else { Method::Null }
    }

    pub fn write_method(&self) -> Method {
        if !self.real_io {
            Method::Null
        } else if self.direct {
            Method::Direct
        } else {
            Method::Fsync
        }
    }

    /// Gets `file` out of the page cache before a timed read, and says how (with a warning when
    /// it could not be done).
    pub fn prepare_read(
        &self,
        engine: &mut dyn Engine,
        file: FileId,
        len: u64,
    ) -> Result<(Method, Option<Warning>)> {
        if !self.real_io {
            return Ok((Method::Null, None));
        }
        if self.direct && platform::DIRECT_READS_SKIP_CACHED_PAGES {
            return Ok((Method::Direct, None));
        }
        // The method of a read whose file is not in the cache.
        let uncached = if self.direct {
            Method::Direct
        } else {
            Method::Evict
        };
        let evict = |engine: &mut dyn Engine| {
            engine
                .evict(file, len)
                .map_err(|e| Error::io("evicting a test file from the page cache", e))
        };
        match evict(engine)? {
            Some(r) if r <= RESIDENT_LIMIT => Ok((uncached, None)),
            None => Ok((
                uncached,
                Some(Warning::new(
                    WarningKind::PageCache,
                    "eviction could not be checked (mincore failed): the read figure may include the page cache",
                )),
            )),
            Some(resident) => {
                if self.allow_drop_caches && platform::drop_caches().is_ok() {
                    match evict(engine)? {
                        Some(r) if r <= RESIDENT_LIMIT => return Ok((Method::DropCaches, None)),
                        _ => {}
                    }
                }
                Ok((
                    Method::PageCache,
                    Some(Warning::new(
                        WarningKind::PageCache,
                        format!(
                            "{:.0}% of the file stayed in the page cache after eviction: this read figure is memory speed, not the device",
                            resident * 100.0
                        ),
                    )),
                ))
            }
        }
    }

    pub fn info(&self) -> AccessInfo {
        AccessInfo {
            direct_io: self.direct,
            memory_backed: self.memory_backed,
            note: self.note.clone(),
        }
    }
}
