//! Linux: the chain read from `/proc/self/mountinfo` and `/sys`, through [`SysRoots`] so tests
//! can point the prober at hand-made fixture trees. Every file is optional: what a kernel or a
//! driver does not export becomes an unknown, never an error.

mod block;
mod mount;
mod mountinfo;
mod net;
mod transport;
mod udev;
mod volumes;

pub use volumes::volumes;

use std::fs;
use std::path::{Path, PathBuf};

use super::{Chain, DeclaredLink, Node, Rate, Value};
use crate::error::{Error, Result};

/// Where `/proc` and `/sys` are, and whether they describe this machine (so a path can be
/// `statx`ed and a Wi-Fi bitrate asked of `iw`) or a fixture.
#[derive(Debug, Clone)]
pub struct SysRoots {
    pub proc: PathBuf,
    pub sys: PathBuf,
    /// The roots are this machine's: paths given to the prober exist and can be inspected.
    pub live: bool,
    /// udev's database of devices (`/run/udev/data`).
    pub udev_data: PathBuf,
    /// Fixtures: a directory of `iw dev IFACE link` outputs, one file per interface
    /// (`IFACE.link`), standing in for running `iw`.
    pub iw_outputs: Option<PathBuf>,
}

impl SysRoots {
    /// This machine.
    pub fn live() -> SysRoots {
        SysRoots {
            proc: PathBuf::from("/proc"),
            sys: PathBuf::from("/sys"),
            live: true,
            udev_data: PathBuf::from("/run/udev/data"),
            iw_outputs: None,
        }
    }

    /// A fixture tree holding `proc/`, `sys/` and optionally `udev/` and `iw/`.
    #[cfg(test)]
    pub fn fixture(dir: &Path) -> SysRoots {
        SysRoots {
            proc: dir.join("proc"),
            sys: dir.join("sys"),
            live: false,
            udev_data: dir.join("udev"),
            iw_outputs: Some(dir.join("iw")),
        }
    }

    /// `/sys/...` under the root: `sys("class/block/sda")`.
    fn sys(&self, rel: &str) -> PathBuf {
        self.sys.join(rel)
    }

    /// The path under the sysfs root, for display (`/sys/...`), whatever the root is.
    fn shown(&self, p: &Path) -> String {
        match p.strip_prefix(&self.sys) {
            Ok(rel) => format!("/sys/{}", rel.display()),
            Err(_) => match p.strip_prefix(&self.proc) {
                Ok(rel) => format!("/proc/{}", rel.display()),
                Err(_) => p.display().to_string(),
            },
        }
    }
}

/// The trimmed content of a small text file; None when missing, unreadable or empty.
fn read(path: &Path) -> Option<String> {
    let text = fs::read_to_string(path).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// The names in a directory, sorted; empty when it is missing or unreadable (sysfs lists:
/// `slaves/`, a btrfs filesystem's `devices/`).
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The last component of a symlink's target (a driver's name).
fn link_name(path: &Path) -> Option<String> {
    fs::read_link(path)
        .ok()?
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
}

/// Limits recursion through loop devices (a loop over a file on another loop...).
const MAX_DEPTH: usize = 8;

pub fn probe(path: &Path, roots: &SysRoots, declared: Option<&DeclaredLink>) -> Result<Chain> {
    let path_err = |problem: String| Error::Destination {
        path: path.to_path_buf(),
        problem,
    };
    if roots.live {
        fs::metadata(path).map_err(|e| {
            path_err(match e.kind() {
                std::io::ErrorKind::NotFound => "no such file or directory".into(),
                std::io::ErrorKind::PermissionDenied => "permission denied".into(),
                _ => e.to_string(),
            })
        })?;
    }
    let mounts = mountinfo::read_mountinfo(roots).map_err(|e| {
        Error::io(
            format!(
                "reading {}",
                roots.shown(&roots.proc.join("self/mountinfo"))
            ),
            e,
        )
    })?;
    let mut notes = Vec::new();
    let root = mount::node_for_path(path, roots, &mounts, 0, &mut notes)
        .ok_or_else(|| path_err("no mount in /proc/self/mountinfo holds this path".into()))?;
    Ok(Chain::with_declared(path, root, notes, declared))
}

/// The `speed` file of a sysfs device or interface `dir` (shown as `shown`), as a link-speed
/// fact; its text for the caller's own reading.
fn speed_fact(n: &mut Node, dir: &Path, shown: &str) -> Option<String> {
    let speed = read(&dir.join("speed"))?;
    rate_fact(
        n,
        Value::LinkSpeed,
        "speed",
        &speed,
        format!("{shown}/speed"),
    );
    Some(speed)
}

/// A rate sysfs gives as text ("480", "6.0 Gbps"): the typed fact when it is a positive rate,
/// else the text as read under `name` (an interface whose link is down says "-1").
fn rate_fact(n: &mut Node, typed: fn(Rate) -> Value, name: &str, text: &str, origin: String) {
    match Rate::parse(text).filter(|r| r.mbit_s > 0.0) {
        Some(rate) => n.fact(typed(rate), origin),
        None => n.other(name, text, origin),
    }
}

#[cfg(test)]
pub(super) mod tests;
