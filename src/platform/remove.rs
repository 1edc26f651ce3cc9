//! Removing a directory tree of our own without ever leaving it: every directory is opened from
//! its parent's handle with `O_NOFOLLOW`, so a directory swapped for a symlink is unlinked as a
//! link and never entered, and a directory on another filesystem (something mounted inside) is
//! left alone. `std::fs::remove_dir_all` is safe against symlinks but crosses mount points.

use super::dir::{is_link_or_file, open_dir_at, read_dir, remove_dir_in, stat, stat_in, unlink_at};
use super::{AsHandleRef, FileKind, HandleRef};
use std::ffi::OsStr;
use std::io;

/// What a removal did: entries removed, and entries left (unremovable, or on another
/// filesystem).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Removed {
    pub removed: u64,
    pub kept: u64,
}

/// Removes everything inside the open directory `dir` (not `dir` itself), staying on `dir`'s
/// filesystem.
pub fn remove_contents(dir: HandleRef<'_>) -> io::Result<Removed> {
    let dev = stat(dir)?.device;
    let mut done = Removed::default();
    remove_inside(dir, dev, &mut done)?;
    Ok(done)
}

/// Removes the directory `name` in `parent` and everything in it, if it is a directory on
/// `parent`'s filesystem; a symlink by that name is removed as a link.
pub fn remove_tree(parent: HandleRef<'_>, name: &OsStr) -> io::Result<Removed> {
    let dev = stat(parent)?.device;
    let mut done = Removed::default();
    remove_entry(parent, name, dev, &mut done);
    Ok(done)
}

fn remove_inside(dir: HandleRef<'_>, dev: u64, done: &mut Removed) -> io::Result<()> {
    let names = read_dir(dir)?
        .map(|entry| entry.map(|e| e.name))
        .collect::<io::Result<Vec<_>>>()?;
    for name in names {
        remove_entry(dir, &name, dev, done);
    }
    Ok(())
}

/// Counts the outcome of one removal: gone already is neither removed nor kept.
fn count(result: io::Result<()>, done: &mut Removed) {
    match result {
        Ok(()) => done.removed += 1,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(_) => done.kept += 1,
    }
}

fn remove_entry(parent: HandleRef<'_>, name: &OsStr, dev: u64, done: &mut Removed) {
    let kind = match stat_in(parent, name) {
        Ok(st) => st.kind,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return,
        Err(_) => {
            done.kept += 1;
            return;
        }
    };
    if kind == FileKind::Dir {
        match open_dir_at(parent, name) {
            Ok(sub) => {
                let same_fs = stat(sub.handle_ref()).is_ok_and(|st| st.device == dev);
                // A mount point inside is not ours to empty; a directory that cannot be
                // listed keeps what is in it.
                if !same_fs || remove_inside(sub.handle_ref(), dev, done).is_err() {
                    done.kept += 1;
                    return;
                }
                drop(sub);
                count(remove_dir_in(parent, name), done);
                return;
            }
            // Swapped for a symlink or a file since the stat: remove that instead.
            Err(e) if is_link_or_file(&e) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return,
            Err(_) => {
                done.kept += 1;
                return;
            }
        }
    }
    count(unlink_at(parent, name), done);
}

/// Entries and bytes (of regular files) inside the open directory `dir`, counted the way
/// [`remove_contents`] would remove them: no symlink followed, no other filesystem entered.
pub fn measure_contents(dir: HandleRef<'_>) -> io::Result<(u64, u64)> {
    fn measure(dir: HandleRef<'_>, dev: u64, sum: &mut (u64, u64)) -> io::Result<()> {
        for entry in read_dir(dir)? {
            let name = entry?.name;
            let Ok(st) = stat_in(dir, &name) else {
                continue;
            };
            sum.0 += 1;
            match st.kind {
                FileKind::File => sum.1 += st.size,
                FileKind::Dir if st.device == dev => {
                    if let Ok(sub) = open_dir_at(dir, &name) {
                        measure(sub.handle_ref(), dev, sum)?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
    let dev = stat(dir)?.device;
    let mut sum = (0, 0);
    measure(dir, dev, &mut sum)?;
    Ok(sum)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A symlink inside points at a directory outside: the link goes, the directory's file stays.
    #[test]
    fn removal_never_follows_a_symlink() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("keep"), b"x").unwrap();
        let parent = tempfile::tempdir().unwrap();
        let tree = parent.path().join("tree");
        std::fs::create_dir_all(tree.join("a/b")).unwrap();
        std::fs::write(tree.join("a/b/f"), b"y").unwrap();
        crate::platform::symlink(outside.path(), &tree.join("a/link")).unwrap();
        let fd = crate::platform::open_dir(parent.path()).unwrap();
        let done = remove_tree(fd.handle_ref(), OsStr::new("tree")).unwrap();
        assert_eq!(
            done,
            Removed {
                removed: 5,
                kept: 0
            }
        );
        assert!(!tree.exists());
        assert_eq!(std::fs::read(outside.path().join("keep")).unwrap(), b"x");
    }
}
