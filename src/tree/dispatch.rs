//! A task's dispatcher: walks the tree in order (`walk`), hands its files to the workers, and
//! does itself what must happen in tree order: directories made before their files (a copy),
//! links copied as links, odd entries listed, and at the end directory metadata or removal and
//! the final flush.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::engine::EngineFactory;
use crate::engine::tree::{Dir, EntryStat, Root, SystemTree, TreeEngine};
use crate::error::{Error, Result};

use super::walk::{Found, Place, Walk};
use super::{Listed, Task};

/// What the dispatcher's walk saw besides files.
#[derive(Default)]
pub(super) struct Walked {
    /// Directories in the order found (parents first), with their source metadata for a copy.
    pub dirs: Vec<(PathBuf, Option<EntryStat>)>,
    pub special: Listed,
    pub unreadable: Listed,
    pub skipped: super::Skipped,
}

pub(super) struct Dispatcher {
    /// The engine of the tree walked (a copy's source, otherwise the tree the task is about).
    walking: Box<dyn TreeEngine>,
    /// The engine of the twin tree (a copy's destination, a verify's source), if any.
    other: Option<Box<dyn TreeEngine>>,
    walk: Walk,
    /// Where the task's own changes go (destination of a copy, root of a delete), and its path.
    target: Option<(Dir, PathBuf)>,
    pub walked: Walked,
}

impl Dispatcher {
    /// Opens the roots of `task` over `root`. Sources are walked with system calls; the tree the
    /// task is about, with the run's engines.
    pub fn new(task: &Task, root: &Root, engines: &EngineFactory) -> Result<Dispatcher> {
        let reading = |e| Error::io(format!("reading {}", root.path().display()), e);
        let (mut walking, other): (Box<dyn TreeEngine>, Option<Box<dyn TreeEngine>>) = match task {
            Task::Copy { .. } => (Box::new(SystemTree::new()), Some(engines.build_tree())),
            Task::Verify { .. } => (engines.build_tree(), Some(Box::new(SystemTree::new()))),
            Task::Read | Task::Delete => (engines.build_tree(), None),
        };
        let root_dir = walking.open_root(root).map_err(reading)?;
        let mut other = other;
        let (twin, target) = match (task, other.as_mut()) {
            (Task::Copy { dst, .. }, Some(engine)) => {
                let dir = engine
                    .open_root(dst)
                    .map_err(|e| Error::io(format!("opening {}", dst.path().display()), e))?;
                (Some(dir.clone()), Some((dir, dst.path())))
            }
            (Task::Verify { source }, Some(engine)) => {
                let dir = engine
                    .open_root(source)
                    .map_err(|e| Error::io(format!("reading {}", source.path().display()), e))?;
                (Some(dir), None)
            }
            (Task::Delete, _) => (None, Some((root_dir.clone(), root.path()))),
            _ => (None, None),
        };
        let mut walk = Walk::new(walking.as_mut(), root_dir, twin).map_err(reading)?;
        if root.crosses() {
            walk.cross_filesystems();
        }
        Ok(Dispatcher {
            walking,
            other,
            walk,
            target,
            walked: Walked::default(),
        })
    }

    /// The engine of the twin tree, or of the walked tree when there is none (a delete changes
    /// the tree it walks).
    fn other(&mut self) -> &mut dyn TreeEngine {
        match self.other.as_mut() {
            Some(other) => other.as_mut(),
            None => self.walking.as_mut(),
        }
    }

    /// The clock of the engine that makes the changes (for the virtual lanes).
    pub fn now(&self) -> Duration {
        match &self.other {
            Some(other) => other.now(),
            None => self.walking.now(),
        }
    }

    /// The next file to hand out (for a delete, symlinks too); None at the end of the tree.
    pub fn next_file(&mut self, task: &Task) -> Result<Option<Place>> {
        while let Some(found) = self.walk.next(self.walking.as_mut()) {
            match found {
                Found::Dir(place) => self.dir(task, &place)?,
                Found::File(place) => return Ok(Some(place)),
                Found::Symlink(place) => match task {
                    Task::Copy { dst, .. } => self.copy_link(&place, dst)?,
                    Task::Delete => return Ok(Some(place)),
                    Task::Read | Task::Verify { .. } => self.walked.skipped.symlinks += 1,
                },
                Found::Special(rel, kind) => {
                    self.walked.skipped.add(kind);
                    self.walked.special.add(rel.display().to_string());
                }
                Found::OtherFilesystem(rel) => {
                    self.walked.skipped.other_filesystems += 1;
                    let shown = format!("{} (another filesystem)", rel.display());
                    self.walked.special.add(shown);
                }
                Found::Unreadable(rel, e) => {
                    self.walked.skipped.unreadable += 1;
                    self.walked
                        .unreadable
                        .add(format!("{}: {e}", rel.display()));
                }
            }
        }
        Ok(None)
    }

    fn dir(&mut self, task: &Task, place: &Place) -> Result<()> {
        let mut meta = None;
        match task {
            Task::Copy { dst, .. } => {
                let stat = self
                    .walking
                    .stat(&place.dir, &place.name)
                    .map_err(|e| Error::io(format!("reading {}", place.rel.display()), e))?;
                meta = Some(stat);
                // Owner-writable until its files are in; the real mode is set at the end.
                let path = dst.path().join(&place.rel);
                let parent = place.twin.as_ref().ok_or_else(|| {
                    Error::io(
                        format!("creating {}", path.display()),
                        std::io::Error::other("its parent was not created"),
                    )
                })?;
                let made = self
                    .other()
                    .mkdir(parent, &place.name)
                    .map_err(|e| Error::io(format!("creating {}", path.display()), e))?;
                self.walk.set_twin(made);
            }
            Task::Verify { .. } => {
                // A directory missing from the source makes its files count as unreadable.
                if let Some(parent) = &place.twin
                    && let Ok(dir) = self.other().open_dir(parent, &place.name)
                {
                    self.walk.set_twin(dir);
                }
            }
            Task::Read | Task::Delete => {}
        }
        self.walked.dirs.push((place.rel.clone(), meta));
        Ok(())
    }

    /// The link is copied as a link; its target is never followed.
    fn copy_link(&mut self, place: &Place, dst: &Root) -> Result<()> {
        let target = match self.walking.read_link(&place.dir, &place.name) {
            Ok(target) => target,
            Err(e) => {
                self.walked
                    .unreadable
                    .add(format!("{}: {e}", place.rel.display()));
                return Ok(());
            }
        };
        let path = dst.path().join(&place.rel);
        let creating = |e| Error::io(format!("creating {}", path.display()), e);
        let parent = place
            .twin
            .clone()
            .ok_or_else(|| creating(std::io::Error::other("its parent was not created")))?;
        self.other()
            .symlink(&parent, &place.name, &target)
            .map_err(creating)
    }

    /// After the files: directory metadata for a copy (deepest first, so setting a directory's
    /// times is the last change inside it), directory removal for a delete, and the final flush.
    pub fn finish(&mut self, task: &Task) -> Result<()> {
        let Some((root, root_path)) = self.target.clone() else {
            return Ok(());
        };
        let dirs = std::mem::take(&mut self.walked.dirs);
        let engine = self.other();
        for (rel, meta) in dirs.iter().rev() {
            let path = root_path.join(rel);
            match (task, meta) {
                (Task::Copy { durable_each, .. }, Some(meta)) => {
                    let dir = engine
                        .open_path(&root, rel)
                        .map_err(|e| Error::io(format!("opening {}", path.display()), e))?;
                    engine
                        .set_dir_meta(&dir, meta, *durable_each)
                        .map_err(|e| {
                            Error::io(format!("setting times of {}", path.display()), e)
                        })?;
                }
                (Task::Delete, _) => {
                    let removing = |e| Error::io(format!("removing {}", path.display()), e);
                    let parent = engine
                        .open_path(&root, rel.parent().unwrap_or(Path::new("")))
                        .map_err(removing)?;
                    let name = rel.file_name().unwrap_or_default();
                    engine.rmdir(&parent, name).map_err(removing)?;
                }
                _ => {}
            }
        }
        let flushed = engine
            .syncfs(&root)
            .map_err(|e| Error::io(format!("flushing {}", root_path.display()), e));
        self.walked.dirs = dirs;
        flushed
    }
}
