//! Ctrl-C, SIGTERM and SIGHUP.
//!
//! The first signal sets a flag; the runner checks it between I/Os, stops, and the scratch
//! directory's `Drop` removes it, so the run ends cleanly with exit code 130. If a second signal
//! arrives (an I/O hung on a dead share, say), the handler thread removes every registered scratch
//! directory itself and exits at once.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, Ordering};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

use crate::error::{EXIT_INTERRUPTED, Error};

static RECEIVED: AtomicI32 = AtomicI32::new(0);
static SCRATCH_DIRS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Installs the handlers (once per process).
pub fn install() -> std::io::Result<()> {
    let mut signals = Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                if RECEIVED.swap(signal, Ordering::SeqCst) != 0 {
                    remove_all_scratch();
                    std::process::exit(EXIT_INTERRUPTED.into());
                }
            }
        })?;
    Ok(())
}

/// Err(Interrupted) once a signal has arrived.
pub fn check() -> Result<(), Error> {
    match RECEIVED.load(Ordering::Relaxed) {
        0 => Ok(()),
        SIGTERM => Err(Error::Interrupted("SIGTERM")),
        SIGHUP => Err(Error::Interrupted("SIGHUP")),
        _ => Err(Error::Interrupted("Ctrl-C")),
    }
}

pub(crate) fn register_scratch(path: &Path) {
    if let Ok(mut dirs) = SCRATCH_DIRS.lock() {
        dirs.push(path.to_path_buf());
    }
}

pub(crate) fn unregister_scratch(path: &Path) {
    if let Ok(mut dirs) = SCRATCH_DIRS.lock() {
        dirs.retain(|p| p != path);
    }
}

fn remove_all_scratch() {
    if let Ok(dirs) = SCRATCH_DIRS.lock() {
        for dir in dirs.iter() {
            // Through the parent's descriptor, never following a symlink or leaving the
            // filesystem (what the scratch's own Drop does).
            if let (Some(parent), Some(name)) = (dir.parent(), dir.file_name())
                && let Ok(parent) = crate::platform::open_dir(parent)
            {
                let _ = crate::platform::remove_tree(std::os::fd::AsFd::as_fd(&parent), name);
            }
        }
    }
}
