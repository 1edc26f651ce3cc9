//! A streaming, depth-first walk of a directory tree that never follows symlinks.
//!
//! Memory is bounded by the depth of the tree (one open directory per level) and the channel the
//! caller drains, never by the number of files, so a million-file set walks in constant memory.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// What the walk found, with the path relative to the root.
#[derive(Debug)]
pub enum Found {
    /// A directory, reported before anything inside it.
    Dir(PathBuf, fs::Metadata),
    File(PathBuf),
    Symlink(PathBuf),
    /// A socket, FIFO or device: never copied.
    Special(PathBuf),
    /// A directory or entry that could not be read.
    Unreadable(PathBuf, io::Error),
}

/// Walks `root` depth-first, calling `visit` for every entry; stops early when `visit` returns
/// false. The root itself is not reported.
pub fn walk(root: &Path, mut visit: impl FnMut(Found) -> bool) -> io::Result<()> {
    let mut stack: Vec<(PathBuf, fs::ReadDir)> = vec![(PathBuf::new(), fs::read_dir(root)?)];
    while let Some((dir, entries)) = stack.last_mut() {
        let Some(entry) = entries.next() else {
            stack.pop();
            continue;
        };
        let dir = dir.clone();
        let found = match entry {
            Err(e) => Found::Unreadable(dir, e),
            Ok(entry) => {
                let rel = dir.join(entry.file_name());
                // file_type comes from the directory entry (no stat) and describes the entry
                // itself, not a symlink's target.
                match entry.file_type() {
                    Err(e) => Found::Unreadable(rel, e),
                    Ok(t) if t.is_dir() => {
                        match (entry.metadata(), fs::read_dir(root.join(&rel))) {
                            (Ok(meta), Ok(children)) => {
                                stack.push((rel.clone(), children));
                                Found::Dir(rel, meta)
                            }
                            (Err(e), _) | (_, Err(e)) => Found::Unreadable(rel, e),
                        }
                    }
                    Ok(t) if t.is_file() => Found::File(rel),
                    Ok(t) if t.is_symlink() => Found::Symlink(rel),
                    Ok(_) => Found::Special(rel),
                }
            }
        };
        if !visit(found) {
            return Ok(());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_dirs_before_their_contents_and_never_follows_symlinks() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret"), b"x").unwrap();
        fs::create_dir_all(root.path().join("a/b")).unwrap();
        fs::write(root.path().join("a/b/f"), b"1").unwrap();
        fs::write(root.path().join("top"), b"2").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("link")).unwrap();
        let mut seen = Vec::new();
        walk(root.path(), |f| {
            seen.push(match f {
                Found::Dir(p, _) => format!("dir {}", p.display()),
                Found::File(p) => format!("file {}", p.display()),
                Found::Symlink(p) => format!("link {}", p.display()),
                Found::Special(p) => format!("special {}", p.display()),
                Found::Unreadable(p, _) => format!("unreadable {}", p.display()),
            });
            true
        })
        .unwrap();
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
