//! The scratch directory: the only place destbench writes.
//!
//! `PATH/.destbench-<random>/` is created exclusively (mkdir fails if anything has that name) and
//! opened with `O_NOFOLLOW`; every file inside is created relative to that descriptor with
//! `O_EXCL | O_NOFOLLOW`, so no symlink can redirect a write out of it. It is removed when the
//! [`Scratch`] is dropped (success, error, panic) and by the signal handler in [`crate::interrupt`]
//! on a second Ctrl-C.

use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::interrupt;
use crate::platform;

/// The prefix of every scratch directory, so a leftover can be recognised.
pub const PREFIX: &str = ".destbench-";

pub struct Scratch {
    fd: OwnedFd,
    path: PathBuf,
}

/// Checks that `destination` is an existing directory, naming the problem if not.
pub fn check_destination(destination: &Path) -> Result<()> {
    let problem = |problem: &str| Error::Destination {
        path: destination.to_path_buf(),
        problem: problem.to_string(),
    };
    match std::fs::metadata(destination) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(problem("does not exist")),
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
            Err(problem("permission denied (cannot look inside)"))
        }
        Err(e) => Err(problem(&format!("cannot be read: {e}"))),
        Ok(meta) if !meta.is_dir() => Err(problem("is not a directory")),
        Ok(_) => Ok(()),
    }
}

impl Scratch {
    /// Creates a fresh scratch directory inside `destination`.
    pub fn create(destination: &Path) -> Result<Scratch> {
        Scratch::create_tagged(destination, None)
    }

    /// Creates a fresh scratch directory inside `destination`, `PREFIX<tag>-<random>` with a
    /// tag (one client of several on a shared destination: its rank and host).
    pub fn create_tagged(destination: &Path, tag: Option<&str>) -> Result<Scratch> {
        check_destination(destination)?;
        let problem = |problem: String| Error::Destination {
            path: destination.to_path_buf(),
            problem,
        };
        for _ in 0..16 {
            let random = format!("{:016x}", fastrand::u64(..));
            let name = match tag {
                Some(tag) => format!("{PREFIX}{tag}-{random}"),
                None => format!("{PREFIX}{random}"),
            };
            let path = destination.join(&name);
            // Register before creating so a second Ctrl-C in between still removes it.
            interrupt::register_scratch(&path);
            match platform::create_dir_exclusive(destination, &name) {
                Ok(fd) => return Ok(Scratch { fd, path }),
                Err(e) => {
                    interrupt::unregister_scratch(&path);
                    match e.raw_os_error() {
                        Some(libc::EEXIST) => continue,
                        Some(libc::EROFS) => {
                            return Err(problem("is on a read-only filesystem".into()));
                        }
                        Some(libc::EACCES) | Some(libc::EPERM) => {
                            return Err(problem("no permission to write here".into()));
                        }
                        Some(libc::ENOSPC) | Some(libc::EDQUOT) => {
                            return Err(problem(
                                "no space left (cannot even create a directory)".into(),
                            ));
                        }
                        _ => {
                            return Err(problem(format!("cannot create a scratch directory: {e}")));
                        }
                    }
                }
            }
        }
        Err(problem(
            "could not find a free scratch directory name".into(),
        ))
    }

    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // remove_dir_all does not follow symlinks inside the tree.
        if let Err(e) = std::fs::remove_dir_all(&self.path)
            && e.kind() != io::ErrorKind::NotFound
        {
            eprintln!(
                "destbench: could not remove scratch directory {}: {e}",
                self.path.display()
            );
        }
        interrupt::unregister_scratch(&self.path);
    }
}
