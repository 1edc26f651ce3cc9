//! Ctrl-C, SIGTERM and SIGHUP.
//!
//! The first signal sets a flag; the runner checks it between I/Os, stops, and the scratch
//! directory's `Drop` removes it, so the run ends cleanly with exit code 130. If a second signal
//! arrives (an I/O hung on a dead share, say), the handler thread removes every registered scratch
//! directory itself and exits at once.
//!
//! One client of several (MPI) may be blocked waiting for the others when the signal comes, and
//! MPI cannot be interrupted: its launcher, once one rank died, signals the others and kills them
//! a second later. So while the main thread waits on other clients (`waiting_on_others`), a
//! watchdog started by the first signal removes the scratch directories if the wait lasts beyond
//! [`WAIT_GRACE`]. It does not exit: if the others are alive the wait ends, the main thread finds
//! the signal at its next check and tells them (nothing can be written into a removed
//! directory meanwhile: it does no I/O while it waits).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::Duration;

#[cfg(unix)]
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
// Windows has no SIGHUP; its console's close and shutdown events arrive as SIGTERM.
#[cfg(windows)]
const SIGHUP: i32 = 1;
#[cfg(windows)]
const SIGINT: i32 = 2;
#[cfg(windows)]
const SIGTERM: i32 = 15;

use crate::error::{EXIT_INTERRUPTED, Error};

static RECEIVED: AtomicI32 = AtomicI32::new(0);
static SCRATCH_DIRS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
/// The main thread is blocked waiting on other clients (an MPI collective).
static WAITING: AtomicBool = AtomicBool::new(false);
/// The page of `destbench ui` asked the run under way to stop (its Cancel button).
static CANCELLED: AtomicBool = AtomicBool::new(false);

/// How long a signalled process may stay blocked on other clients before the watchdog removes
/// its scratch: well under Open MPI's one second between SIGTERM and SIGKILL.
pub const WAIT_GRACE: Duration = Duration::from_millis(300);

/// Installs the handlers, once per process: a later call (`destbench ui` runs and estimates
/// many times) does nothing, so one signal is never seen twice.
pub fn install() -> std::io::Result<()> {
    static INSTALLED: Mutex<bool> = Mutex::new(false);
    let mut installed = INSTALLED.lock().unwrap_or_else(|e| e.into_inner());
    if !*installed {
        install_handlers()?;
        *installed = true;
    }
    Ok(())
}

/// SIGINT, SIGTERM and SIGHUP, on a thread of their own.
#[cfg(unix)]
fn install_handlers() -> std::io::Result<()> {
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                on_signal(signal);
            }
        })?;
    Ok(())
}

/// Installs the console handler (once per process): Ctrl-C and Ctrl-Break, and the console's
/// close, logoff and shutdown events (as SIGTERM), each on the handler's own thread.
#[cfg(windows)]
fn install_handlers() -> std::io::Result<()> {
    ctrlc::set_handler(|| on_signal(SIGINT)).map_err(std::io::Error::other)
}

/// The first signal sets the flag (and starts the watchdog); a second removes every scratch
/// directory and exits at once.
fn on_signal(signal: i32) {
    if RECEIVED.swap(signal, Ordering::SeqCst) != 0 {
        remove_all_scratch();
        std::process::exit(EXIT_INTERRUPTED.into());
    }
    let _ = std::thread::Builder::new()
        .name("watchdog".into())
        .spawn(watchdog);
}

/// Err(Interrupted) once a signal has arrived, or a cancel was asked ([`cancel`]).
pub fn check() -> Result<(), Error> {
    match RECEIVED.load(Ordering::Relaxed) {
        0 if CANCELLED.load(Ordering::Relaxed) => Err(Error::Interrupted("Cancel on the page")),
        0 => Ok(()),
        SIGTERM => Err(Error::Interrupted("SIGTERM")),
        SIGHUP => Err(Error::Interrupted("SIGHUP")),
        _ => Err(Error::Interrupted("Ctrl-C")),
    }
}

/// Whether Ctrl-C, SIGTERM or SIGHUP has arrived (a [`cancel`] is not a signal).
pub fn signalled() -> bool {
    RECEIVED.load(Ordering::Relaxed) != 0
}

/// Stops the run under way as a first Ctrl-C does (the runner stops at its next check and the
/// scratch's `Drop` removes it), without ending the process: `destbench ui`'s Cancel.
pub fn cancel() {
    CANCELLED.store(true, Ordering::SeqCst);
}

/// Forgets a [`cancel`], before the next run starts; a signal is never forgotten.
pub fn clear_cancel() {
    CANCELLED.store(false, Ordering::SeqCst);
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

/// Runs `wait` (a call that blocks until other clients answer) marked as such for the watchdog.
#[cfg(feature = "mpi")]
pub fn waiting_on_others<T>(wait: impl FnOnce() -> T) -> T {
    WAITING.store(true, Ordering::SeqCst);
    let result = wait();
    WAITING.store(false, Ordering::SeqCst);
    result
}

/// After a signal: removes the scratch directories once the main thread has been blocked on
/// other clients for [`WAIT_GRACE`]; never while it works (it then stops and cleans up itself).
fn watchdog() {
    let step = Duration::from_millis(50);
    let mut blocked = Duration::ZERO;
    loop {
        std::thread::sleep(step);
        blocked = if WAITING.load(Ordering::SeqCst) {
            blocked + step
        } else {
            Duration::ZERO
        };
        if blocked >= WAIT_GRACE {
            remove_all_scratch();
            return;
        }
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
                let _ = crate::platform::remove_tree(
                    crate::platform::AsHandleRef::handle_ref(&parent),
                    name,
                );
            }
        }
    }
}
