//! Files written by name inside a scratch directory, as `estimate` writes its calibration sets,
//! a backup tool's miniatures, its home and its stderr: each name below the scratch is reached
//! from the scratch's own handle one component at a time, never following a symlink, so a
//! directory of the scratch swapped for a link by someone else leads no write out of it (the
//! swap is an error instead). The programs that then read these files are given their paths,
//! and confined ([`crate::platform::confine`]).

use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::path::{Component, Path, PathBuf};

use crate::engine::tree::{Dir, EntryKind, SystemTree, TreeEngine};
use crate::platform::{self, OpenHow};

use super::Scratch;

/// Writes inside one scratch directory, by names relative to it.
pub struct Within<'a> {
    scratch: &'a Scratch,
    engine: SystemTree,
    /// The directory last reached, by its relative path: files come grouped by directory.
    last: Option<(PathBuf, Dir)>,
}

/// What a walk of a tree written here finds: a regular file of this size, or a symlink.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Found {
    File(u64),
    Link,
}

impl<'a> Within<'a> {
    pub fn new(scratch: &'a Scratch) -> Within<'a> {
        Within {
            scratch,
            engine: SystemTree::new(),
            last: None,
        }
    }

    /// The path of `rel` in the scratch, for messages and for the programs given it.
    pub fn path(&self, rel: &Path) -> PathBuf {
        self.scratch.path().join(rel)
    }

    /// The directory `rel`, each missing component made (a symlink there is an error).
    pub fn dir(&mut self, rel: &Path) -> io::Result<Dir> {
        if let Some((at, dir)) = &self.last
            && at == rel
        {
            return Ok(dir.clone());
        }
        let mut dir = Dir::Real(self.scratch.fd.clone());
        for part in rel.components() {
            let Component::Normal(name) = part else {
                return Err(io::ErrorKind::InvalidInput.into());
            };
            dir = match self.engine.open_dir(&dir, name) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => self.engine.mkdir(&dir, name)?,
                other => other?,
            };
        }
        self.last = Some((rel.to_path_buf(), dir.clone()));
        Ok(dir)
    }

    /// Creates the file `rel` (it must not exist), open for reading and writing, its
    /// directories made as needed.
    pub fn create(&mut self, rel: &Path) -> io::Result<File> {
        self.open_how(rel, true, true)
    }

    /// Makes `rel` a symlink to `target`, its directories made as needed.
    pub fn symlink(&mut self, rel: &Path, target: &OsStr) -> io::Result<()> {
        let (parent, name) = split(rel)?;
        let dir = self.dir(parent)?;
        self.engine.symlink(&dir, name, target)
    }

    /// Opens the existing regular file `rel`, for writing where `write`.
    pub fn open(&mut self, rel: &Path, write: bool) -> io::Result<File> {
        self.open_how(rel, write, false)
    }

    fn open_how(&mut self, rel: &Path, write: bool, create: bool) -> io::Result<File> {
        let (parent, name) = split(rel)?;
        let dir = self.dir(parent)?;
        let name = name
            .to_str()
            .ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
        let how = OpenHow {
            write,
            create,
            direct: false,
        };
        Ok(platform::into_file(platform::open_in(
            dir.fd()?,
            name,
            how,
        )?))
    }

    /// Calls `visit` with the path (relative to the scratch) of every regular file and symlink
    /// below `rel`, directories in name order, never following a link.
    pub fn walk(
        &mut self,
        rel: &Path,
        visit: &mut dyn FnMut(&mut Self, &Path, Found) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut pending = vec![rel.to_path_buf()];
        while let Some(at) = pending.pop() {
            let dir = self.dir(&at)?;
            let mut entries = self.engine.list(&dir)?;
            entries.sort_by(|a, b| b.name.cmp(&a.name));
            for entry in entries {
                let path = at.join(&entry.name);
                match entry.kind {
                    EntryKind::Dir => pending.push(path),
                    EntryKind::File => {
                        let size = self.engine.stat(&dir, &entry.name)?.size;
                        visit(self, &path, Found::File(size))?;
                    }
                    EntryKind::Symlink => visit(self, &path, Found::Link)?,
                    _ => {}
                }
            }
        }
        Ok(())
    }
}

/// `rel`'s parent and its last name.
fn split(rel: &Path) -> io::Result<(&Path, &OsStr)> {
    match (rel.parent(), rel.file_name()) {
        (Some(parent), Some(name)) => Ok((parent, name)),
        _ => Err(io::ErrorKind::InvalidInput.into()),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn names_are_reached_through_the_scratch_and_a_link_is_never_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let scratch = Scratch::create(tmp.path()).unwrap();
        let mut within = Within::new(&scratch);
        within
            .create(Path::new("set/a/b/f"))
            .unwrap()
            .write_all(b"data")
            .unwrap();
        within
            .symlink(Path::new("set/a/link"), OsStr::new("b"))
            .unwrap();
        let mut seen = Vec::new();
        within
            .walk(Path::new("set"), &mut |_, rel, found| {
                seen.push((rel.to_path_buf(), found));
                Ok(())
            })
            .unwrap();
        assert_eq!(
            seen,
            [
                (PathBuf::from("set/a/link"), Found::Link),
                (PathBuf::from("set/a/b/f"), Found::File(4)),
            ]
        );
        // A directory swapped for a link out: the next write there fails, nothing goes out.
        let a = scratch.path().join("set/a");
        std::fs::rename(&a, scratch.path().join("aside")).unwrap();
        crate::platform::symlink(outside.path(), &a).unwrap();
        let mut fresh = Within::new(&scratch);
        assert!(fresh.create(Path::new("set/a/g")).is_err());
        assert!(fresh.open(Path::new("set/a/b/f"), true).is_err());
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    }
}
