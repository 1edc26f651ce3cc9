//! Removing a directory tree of our own without ever leaving it: every directory is opened from
//! its parent's handle with `O_NOFOLLOW`, so a directory swapped for a symlink is unlinked as a
//! link and never entered, and a directory on another filesystem (something mounted inside) is
//! left alone. `std::fs::remove_dir_all` is safe against symlinks but crosses mount points.

use std::ffi::OsStr;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

/// What a removal did: entries removed, and entries left (unremovable, or on another
/// filesystem).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Removed {
    pub removed: u64,
    pub kept: u64,
}

fn open_dir_nofollow(parent: BorrowedFd<'_>, name: &OsStr) -> rustix::io::Result<OwnedFd> {
    rustix::fs::openat(
        parent,
        name,
        OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::RDONLY,
        Mode::empty(),
    )
}

/// Removes everything inside the open directory `dir` (not `dir` itself), staying on `dir`'s
/// filesystem.
pub fn remove_contents(dir: BorrowedFd<'_>) -> io::Result<Removed> {
    let dev = rustix::fs::fstat(dir)?.st_dev;
    let mut done = Removed::default();
    remove_inside(dir, dev, &mut done)?;
    Ok(done)
}

/// Removes the directory `name` in `parent` and everything in it, if it is a directory on
/// `parent`'s filesystem; a symlink by that name is removed as a link.
pub fn remove_tree(parent: BorrowedFd<'_>, name: &OsStr) -> io::Result<Removed> {
    let dev = rustix::fs::fstat(parent)?.st_dev;
    let mut done = Removed::default();
    remove_entry(parent, name, dev, &mut done);
    Ok(done)
}

fn remove_inside(dir: BorrowedFd<'_>, dev: u64, done: &mut Removed) -> io::Result<()> {
    let mut names = Vec::new();
    for entry in rustix::fs::Dir::read_from(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_bytes();
        if name != b"." && name != b".." {
            names.push(OsStr::from_bytes(name).to_os_string());
        }
    }
    for name in names {
        remove_entry(dir, &name, dev, done);
    }
    Ok(())
}

fn remove_entry(parent: BorrowedFd<'_>, name: &OsStr, dev: u64, done: &mut Removed) {
    let kind = match rustix::fs::statat(parent, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => FileType::from_raw_mode(st.st_mode),
        Err(Errno::NOENT) => return,
        Err(_) => {
            done.kept += 1;
            return;
        }
    };
    if kind == FileType::Directory {
        match open_dir_nofollow(parent, name) {
            Ok(sub) => {
                let same_fs = rustix::fs::fstat(&sub).is_ok_and(|st| st.st_dev == dev);
                // A mount point inside is not ours to empty; a directory that cannot be
                // listed keeps what is in it.
                if !same_fs || remove_inside(sub.as_fd(), dev, done).is_err() {
                    done.kept += 1;
                    return;
                }
                drop(sub);
                match rustix::fs::unlinkat(parent, name, AtFlags::REMOVEDIR) {
                    Ok(()) => done.removed += 1,
                    Err(Errno::NOENT) => {}
                    Err(_) => done.kept += 1,
                }
                return;
            }
            // Swapped for a symlink or a file since the stat: remove that instead.
            Err(Errno::LOOP | Errno::NOTDIR) => {}
            Err(Errno::NOENT) => return,
            Err(_) => {
                done.kept += 1;
                return;
            }
        }
    }
    match rustix::fs::unlinkat(parent, name, AtFlags::empty()) {
        Ok(()) => done.removed += 1,
        Err(Errno::NOENT) => {}
        Err(_) => done.kept += 1,
    }
}

/// Entries and bytes (of regular files) inside the open directory `dir`, counted the way
/// [`remove_contents`] would remove them: no symlink followed, no other filesystem entered.
pub fn measure_contents(dir: BorrowedFd<'_>) -> io::Result<(u64, u64)> {
    fn measure(dir: BorrowedFd<'_>, dev: u64, sum: &mut (u64, u64)) -> io::Result<()> {
        for entry in rustix::fs::Dir::read_from(dir)? {
            let entry = entry?;
            let name = OsStr::from_bytes(entry.file_name().to_bytes());
            if name == "." || name == ".." {
                continue;
            }
            let Ok(st) = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) else {
                continue;
            };
            sum.0 += 1;
            match FileType::from_raw_mode(st.st_mode) {
                FileType::RegularFile => sum.1 += st.st_size as u64,
                FileType::Directory if st.st_dev == dev => {
                    if let Ok(sub) = open_dir_nofollow(dir, name) {
                        measure(sub.as_fd(), dev, sum)?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
    let dev = rustix::fs::fstat(dir)?.st_dev;
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
        std::os::unix::fs::symlink(outside.path(), tree.join("a/link")).unwrap();
        let fd = std::fs::File::open(parent.path()).unwrap();
        let done = remove_tree(fd.as_fd(), OsStr::new("tree")).unwrap();
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
