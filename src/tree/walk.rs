//! A streaming, depth-first walk of a directory tree through a tree engine, never following a
//! symlink: every directory is opened relative to its parent's handle. It stays on the root's
//! filesystem (as `find -xdev`) unless told to cross: a directory on another one is reported,
//! not entered.
//!
//! Memory is bounded by the directories being walked (one open directory and its listing per
//! level of depth), never by the number of files in the tree, so a million-file set in
//! directories of ordinary size walks in a few megabytes; only one directory of millions of
//! entries would be held whole. A level can carry
//! a twin: the matching directory of another tree (the copy being made, the source being
//! verified against), handed along with every entry found in it.

use std::ffi::OsString;
use std::io;
use std::path::PathBuf;

use crate::engine::tree::{Dir, Entry, EntryKind, TreeEngine};

/// Where an entry is: its path from the root (for messages), its directory, its name.
#[derive(Debug, Clone)]
pub struct Place {
    pub rel: PathBuf,
    pub dir: Dir,
    /// The twin of `dir`, if the caller gave it one.
    pub twin: Option<Dir>,
    pub name: OsString,
}

/// What the walk found.
#[derive(Debug)]
pub enum Found {
    /// A directory, reported before anything inside it (and already opened: a twin given now
    /// goes with its entries).
    Dir(Place),
    File(Place),
    Symlink(Place),
    /// A socket, FIFO or device: never opened, never copied.
    Special(PathBuf, EntryKind),
    /// A directory on another filesystem than the root's (a mount point): not entered.
    OtherFilesystem(PathBuf),
    /// A directory that could not be opened or listed.
    Unreadable(PathBuf, io::Error),
}

struct Level {
    rel: PathBuf,
    dir: Dir,
    twin: Option<Dir>,
    entries: std::vec::IntoIter<Entry>,
}

/// A walk in progress; call [`Walk::next`] until it returns None.
pub struct Walk {
    stack: Vec<Level>,
    /// The root's filesystem, when the walk must stay on it and the engine can tell.
    device: Option<u64>,
}

impl Walk {
    /// Starts at `root` (not reported itself), whose twin is `twin`.
    pub fn new(engine: &mut dyn TreeEngine, root: Dir, twin: Option<Dir>) -> io::Result<Walk> {
        let entries = engine.list(&root)?.into_iter();
        let device = engine.device(&root)?;
        Ok(Walk {
            device,
            stack: vec![Level {
                rel: PathBuf::new(),
                dir: root,
                twin,
                entries,
            }],
        })
    }

    /// Lets the walk enter directories of other filesystems.
    pub fn cross_filesystems(&mut self) {
        self.device = None;
    }

    /// The next entry, depth-first.
    pub fn next(&mut self, engine: &mut dyn TreeEngine) -> Option<Found> {
        loop {
            let level = self.stack.last_mut()?;
            let Some(entry) = level.entries.next() else {
                self.stack.pop();
                continue;
            };
            let place = Place {
                rel: level.rel.join(&entry.name),
                dir: level.dir.clone(),
                twin: level.twin.clone(),
                name: entry.name,
            };
            return Some(match entry.kind {
                EntryKind::Dir => {
                    let opened = engine.open_dir(&place.dir, &place.name);
                    if let (Some(root), Ok(dir)) = (self.device, &opened)
                        && engine.device(dir).ok().flatten().is_some_and(|d| d != root)
                    {
                        return Some(Found::OtherFilesystem(place.rel));
                    }
                    let opened = opened.and_then(|dir| Ok((engine.list(&dir)?, dir)));
                    match opened {
                        Ok((entries, dir)) => {
                            self.stack.push(Level {
                                rel: place.rel.clone(),
                                dir,
                                twin: None,
                                entries: entries.into_iter(),
                            });
                            Found::Dir(place)
                        }
                        Err(e) => Found::Unreadable(place.rel, e),
                    }
                }
                EntryKind::File => Found::File(place),
                EntryKind::Symlink => Found::Symlink(place),
                EntryKind::Fifo | EntryKind::Socket | EntryKind::Device => {
                    Found::Special(place.rel, entry.kind)
                }
            });
        }
    }

    /// Gives the directory just reported by [`Found::Dir`] its twin.
    pub fn set_twin(&mut self, twin: Dir) {
        if let Some(level) = self.stack.last_mut() {
            level.twin = Some(twin);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::tree::SystemTree;
    use std::fs;

    #[test]
    fn reports_dirs_before_their_contents_and_never_follows_symlinks() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret"), b"x").unwrap();
        fs::create_dir_all(root.path().join("a/b")).unwrap();
        fs::write(root.path().join("a/b/f"), b"1").unwrap();
        fs::write(root.path().join("top"), b"2").unwrap();
        crate::platform::symlink(outside.path(), &root.path().join("link")).unwrap();
        let mut engine = SystemTree::new();
        let dir = engine
            .open_root(&crate::engine::tree::Root::open(root.path()).unwrap())
            .unwrap();
        let mut walk = Walk::new(&mut engine, dir, None).unwrap();
        let mut seen = Vec::new();
        while let Some(found) = walk.next(&mut engine) {
            seen.push(match found {
                // `/` between components on every system, as the assertions below write them.
                Found::Dir(p) => format!("dir {}", p.rel.display()).replace('\\', "/"),
                Found::File(p) => format!("file {}", p.rel.display()).replace('\\', "/"),
                Found::Symlink(p) => format!("link {}", p.rel.display()),
                Found::Special(p, _) => format!("special {}", p.display()),
                Found::OtherFilesystem(p) => format!("mount {}", p.display()),
                Found::Unreadable(p, _) => format!("unreadable {}", p.display()),
            });
        }
        let pos = |s: &str| {
            seen.iter()
                .position(|x| x == s)
                .unwrap_or_else(|| panic!("{s} in {seen:?}"))
        };
        assert!(pos("dir a") < pos("dir a/b") && pos("dir a/b") < pos("file a/b/f"));
        pos("file top");
        pos("link link");
        assert!(
            !seen.iter().any(|s| s.contains("secret")),
            "followed a symlink: {seen:?}"
        );
    }
}
