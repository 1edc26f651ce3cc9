//! The scratch directory: the only place destbench writes.
//!
//! `PATH/.destbench-<random>/` is created exclusively (mkdir fails if anything has that name)
//! relative to `PATH` opened once, and opened with `O_NOFOLLOW`; every file inside is reached
//! from that descriptor ([`Scratch::root`]) with `O_NOFOLLOW` on every component, so no symlink
//! can redirect a write, read or removal out of it. A marker inside ([`marker`]) says whose it is,
//! so a leftover of a killed run can be found later ([`leftovers`]). It is removed when the
//! [`Scratch`] is dropped (success, error, panic), through its descriptors and never across a
//! mount point, and by the signal handler in [`crate::interrupt`] on a second Ctrl-C.

pub mod leftovers;
pub mod marker;
pub mod within;

use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::engine::tree::Root;
use crate::error::{Error, Result};
use crate::interrupt;
use crate::platform::AsHandleRef;
use crate::platform::confine::{Launcher, Writable};
use crate::platform::{self, Handle, HandleRef};

/// The prefix of every scratch directory, so a leftover can be recognised.
pub const PREFIX: &str = ".destbench-";

/// How long the removal keeps trying while something else changes the directory under it.
const REMOVE_PATIENCE: Duration = Duration::from_secs(2);

pub struct Scratch {
    fd: Arc<Handle>,
    /// The directory it was made in, opened once, and its name there: the removal at the end
    /// unlinks that name only if it is still this directory.
    parent: Handle,
    name: String,
    path: PathBuf,
    /// Numbers the directories made in it, so no two ever share a name.
    made: AtomicU64,
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

/// What a failure to create something in `destination` means, in one line.
fn creating_problem(destination: &Path, e: &io::Error) -> Error {
    use io::ErrorKind::{PermissionDenied, QuotaExceeded, ReadOnlyFilesystem, StorageFull};
    let problem = match e.kind() {
        ReadOnlyFilesystem => "is on a read-only filesystem".into(),
        PermissionDenied => "no permission to write here".into(),
        StorageFull | QuotaExceeded => "no space left (cannot even create a directory)".into(),
        _ => format!("cannot create a scratch directory: {e}"),
    };
    Error::Destination {
        path: destination.to_path_buf(),
        problem,
    }
}

impl Scratch {
    /// Creates a fresh scratch directory inside `destination`, with its marker.
    pub fn create(destination: &Path) -> Result<Scratch> {
        Scratch::create_tagged(destination, None)
    }

    /// Creates a fresh scratch directory inside `destination`, `PREFIX<tag>-<random>` with a
    /// tag (one client of several on a shared destination: its rank and host).
    pub fn create_tagged(destination: &Path, tag: Option<&str>) -> Result<Scratch> {
        check_destination(destination)?;
        let parent =
            platform::open_dir(destination).map_err(|e| creating_problem(destination, &e))?;
        for _ in 0..16 {
            let random = format!("{:016x}", fastrand::u64(..));
            let name = match tag {
                Some(tag) => format!("{PREFIX}{tag}-{random}"),
                None => format!("{PREFIX}{random}"),
            };
            let path = destination.join(&name);
            // Register before creating so a second Ctrl-C in between still removes it.
            interrupt::register_scratch(&path);
            match platform::create_dir_exclusive(parent.handle_ref(), &name) {
                Ok(fd) => {
                    let scratch = Scratch {
                        fd: Arc::new(fd),
                        parent,
                        name,
                        path,
                        made: AtomicU64::new(0),
                    };
                    // Dropped (and so removed) if the marker cannot be written.
                    marker::write(scratch.fd()).map_err(|e| creating_problem(destination, &e))?;
                    return Ok(scratch);
                }
                Err(e) => {
                    interrupt::unregister_scratch(&path);
                    if e.kind() != io::ErrorKind::AlreadyExists {
                        return Err(creating_problem(destination, &e));
                    }
                }
            }
        }
        Err(Error::Destination {
            path: destination.to_path_buf(),
            problem: "could not find a free scratch directory name".into(),
        })
    }

    pub fn fd(&self) -> HandleRef<'_> {
        self.fd.handle_ref()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes the filesystem that holds the scratch directory (`syncfs`), as timed copies
    /// begin and end.
    pub fn syncfs(&self) -> Result<()> {
        platform::syncfs(self.fd()).map_err(|e| Error::Destination {
            path: self.path.clone(),
            problem: format!("syncfs: {e}"),
        })
    }

    /// How the programs that write in this scratch directory (and in `also`'s) are started:
    /// confined to them where the system can ([`platform::confine::launcher`]); Err says why
    /// they may not run here.
    pub fn launcher(
        &self,
        also: &[&Scratch],
        run_anyway: bool,
    ) -> std::result::Result<Launcher, String> {
        let writable: Vec<Writable<'_>> = std::iter::once(self)
            .chain(also.iter().copied())
            .map(|s| Writable {
                dir: s.fd(),
                path: &s.path,
            })
            .collect();
        platform::confine::launcher(&writable, run_anyway)
    }

    /// The scratch directory as the root of the trees made in it, reached from its descriptor.
    pub fn root(&self) -> Root {
        Root::of_fd(&self.path, self.fd.clone())
    }

    /// A name used once in this scratch directory: `what-N`. A directory whose removal failed
    /// (a failing disk) then cannot make the next one fail with "File exists" instead of the
    /// disk's own error.
    pub fn fresh_name(&self, what: &str) -> String {
        format!("{what}-{}", self.made.fetch_add(1, Ordering::Relaxed))
    }

    /// Whether `name` in the parent is still this directory (not something swapped in).
    fn still_there(&self) -> bool {
        let at = platform::stat_in(self.parent.handle_ref(), OsStr::new(&self.name));
        match (at, platform::stat(self.fd.handle_ref())) {
            (Ok(at), Ok(ours)) => at.device == ours.device && at.inode == ours.inode,
            _ => false,
        }
    }
}

impl Scratch {
    /// Empties the directory through its own descriptor (wherever it is now), never following
    /// a symlink or crossing into another filesystem, then removes its name if that is still
    /// this directory. Something that keeps renaming or adding entries meanwhile (another user
    /// swapping a directory for a symlink and back) is outlasted: the removal tries again, a
    /// millisecond apart, for up to [`REMOVE_PATIENCE`].
    fn remove(&self) -> io::Result<()> {
        let deadline = Instant::now() + REMOVE_PATIENCE;
        loop {
            let done = platform::remove_contents(self.fd.handle_ref())?;
            if !self.still_there() {
                return Err(io::Error::other("it was moved or replaced"));
            }
            match platform::remove_dir_in(self.parent.handle_ref(), OsStr::new(&self.name)) {
                Ok(()) => return Ok(()),
                Err(e)
                    if e.kind() == io::ErrorKind::DirectoryNotEmpty
                        && Instant::now() < deadline =>
                {
                    std::thread::sleep(Duration::from_millis(1));
                }
                Err(e) if done.kept > 0 => {
                    return Err(io::Error::other(format!(
                        "{} entries could not be removed ({e})",
                        done.kept
                    )));
                }
                Err(e) => return Err(e),
            }
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Err(e) = self.remove()
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
