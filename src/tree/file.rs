//! What a task does to one file, through the engines: copy it (source read by system calls,
//! destination written by the run's engine), read it back, hash it against its source, delete it.
//! The same code serves the copy threads and the virtual lanes of the `null` engine.

use std::io;

use crate::engine::tree::{CopyError, Dir, SystemTree, TreeEngine};
use crate::platform;

use super::Task;
use super::walk::Place;

/// Where a worker's I/O goes: the run's engine for the tree the task is about, and the system
/// engine for a copy's source (or the source a copy is verified against).
pub(super) struct Engines {
    pub tree: Box<dyn TreeEngine>,
    pub source: SystemTree,
    /// Reading and hashing buffers (two for a verify).
    pub buffer: Vec<u8>,
    pub other: Vec<u8>,
}

/// Read buffer of each worker: big enough to stream large files efficiently.
const BUFFER: usize = 1 << 20;

impl Engines {
    pub fn new(task: &Task, tree: Box<dyn TreeEngine>) -> Self {
        let needs = |yes: bool| if yes { BUFFER } else { 0 };
        Engines {
            tree,
            source: SystemTree::new(),
            buffer: vec![0u8; needs(!matches!(task, Task::Copy { .. } | Task::Delete))],
            other: vec![0u8; needs(matches!(task, Task::Verify { .. }))],
        }
    }
}

/// What became of one file.
pub(super) enum Done {
    /// Handled: these bytes.
    Bytes(u64),
    /// Read back different from its source (or not at all); the text says how.
    Mismatch(String, u64),
}

/// Does the task's work on one file, file by file.
pub(super) fn handle(task: &Task, engines: &mut Engines, place: &Place) -> Result<Done, CopyError> {
    match task {
        Task::Copy { durable_each, .. } => {
            let target = place
                .twin
                .as_ref()
                .ok_or_else(|| CopyError::Destination(no_twin()))?;
            copy(engines, &place.dir, target, place, *durable_each).map(Done::Bytes)
        }
        Task::Read => read(
            engines.tree.as_mut(),
            &place.dir,
            place,
            &mut engines.buffer,
            None,
        )
        .map(|(n, _)| Done::Bytes(n))
        .map_err(CopyError::Source),
        Task::Verify { .. } => {
            let copy = read(
                engines.tree.as_mut(),
                &place.dir,
                place,
                &mut engines.buffer,
                Some(blake3::Hasher::new()),
            );
            let source = match &place.twin {
                Some(dir) => read(
                    &mut engines.source,
                    dir,
                    place,
                    &mut engines.other,
                    Some(blake3::Hasher::new()),
                ),
                None => Err(no_twin()),
            };
            match (copy, source) {
                (Ok((n, a)), Ok((_, b))) if a == b => Ok(Done::Bytes(n)),
                (Ok((n, _)), Ok(_)) => Ok(Done::Mismatch(place.rel.display().to_string(), n)),
                (Err(e), _) => Ok(Done::Mismatch(format!("{}: {e}", place.rel.display()), 0)),
                (_, Err(e)) => Err(CopyError::Source(e)),
            }
        }
        Task::Delete => engines
            .tree
            .unlink(&place.dir, &place.name)
            .map(|()| Done::Bytes(0))
            .map_err(CopyError::Destination),
    }
}

/// The matching directory of the other tree could not be opened.
fn no_twin() -> io::Error {
    io::Error::other("its directory could not be opened")
}

/// Copies one file, keeping mode and times; returns the bytes copied. An unreadable source
/// leaves no partial copy behind.
fn copy(
    engines: &mut Engines,
    source_dir: &Dir,
    target_dir: &Dir,
    place: &Place,
    durable: bool,
) -> Result<u64, CopyError> {
    let (source, tree) = (&mut engines.source, engines.tree.as_mut());
    let from = source
        .open(source_dir, &place.name)
        .map_err(CopyError::Source)?;
    let copied = (|| {
        let meta = source.fstat(from).map_err(CopyError::Source)?;
        let to = tree
            .create(target_dir, &place.name, meta.mode)
            .map_err(CopyError::Destination)?;
        let fd = source.fd(from).map_err(CopyError::Source)?;
        let written = match tree.copy_in(to, fd, meta.size) {
            Ok(n) => n,
            Err(e) => {
                let _ = tree.close(to);
                if let CopyError::Source(_) = e {
                    let _ = tree.unlink(target_dir, &place.name);
                }
                return Err(e);
            }
        };
        // The create mode went through the umask; set it again only when that changed it.
        let mode_changed = meta.mode & !platform::umask() != meta.mode;
        let finished = tree
            .set_meta(to, &meta, mode_changed)
            .and_then(|()| if durable { tree.fsync(to) } else { Ok(()) });
        let closed = tree.close(to);
        finished.and(closed).map_err(CopyError::Destination)?;
        Ok(written)
    })();
    let _ = source.close(from);
    copied
}

/// Reads one file to its end through `engine`, hashing it when asked.
fn read(
    engine: &mut dyn TreeEngine,
    dir: &Dir,
    place: &Place,
    buffer: &mut [u8],
    mut hasher: Option<blake3::Hasher>,
) -> io::Result<(u64, Option<blake3::Hash>)> {
    let file = engine.open(dir, &place.name)?;
    let mut total = 0u64;
    let result = loop {
        match engine.read(file, buffer) {
            Ok(0) => break Ok((total, hasher.as_ref().map(blake3::Hasher::finalize))),
            Ok(n) => {
                if let Some(h) = hasher.as_mut() {
                    h.update(&buffer[..n]);
                }
                total += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => break Err(e),
        }
    };
    let _ = engine.close(file);
    result
}
