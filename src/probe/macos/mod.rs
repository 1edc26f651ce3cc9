//! macOS: the chain read from macOS's own tools, without root. `statfs` names the filesystem
//! and what it is mounted from; `diskutil info -plist` walks volume → APFS physical store →
//! whole disk; `ioreg -a` finds the USB device or PCIe link above the disk; for shares
//! `smbutil statshares`, `nfsstat -m`, `route -n get` and the interface's media or Wi-Fi rate.
//!
//! Only running the tools and `statfs` are macOS's: everything else reads their output through
//! [`Tools`], so the chain is built and tested on any machine from captured outputs
//! (`tests/fixtures/macos/`, `tests.rs`).

mod diskutil;
mod ioreg;
mod network;
#[cfg(test)]
pub(super) mod tests;
pub mod timemachine;
mod volumes;

use std::path::Path;

use super::{Chain, DeclaredLink, Node, NodeKind, Value};

/// What `statfs` says of the filesystem holding a path.
#[derive(Debug, Clone, PartialEq)]
pub struct MountFacts {
    /// `f_fstypename`: apfs, hfs, smbfs, nfs, afpfs, msdos, exfat...
    pub fstype: String,
    /// `f_mntfromname`: `/dev/disk3s5`, `//user@server/share`, `server:/export`.
    pub from: String,
    /// `f_mntonname`: where it is mounted.
    pub on: String,
}

/// The output of one macOS command, by its arguments (`["diskutil", "info", "-plist",
/// "disk3s5"]`); None when it fails or is missing. The live machine runs the command; tests
/// read a captured output.
pub trait Tools {
    fn output(&self, args: &[&str]) -> Option<String>;
}

/// Where a fact came from: the command line as typed.
fn origin(args: &[&str]) -> String {
    args.join(" ")
}

/// Limits the recursion through disk images on disks.
const MAX_DEPTH: usize = 4;

/// The chain of `path` on the filesystem `mount`, read through `tools`.
pub fn chain(
    path: &Path,
    mount: &MountFacts,
    tools: &dyn Tools,
    declared: Option<&DeclaredLink>,
) -> Chain {
    let mut notes = Vec::new();
    let root = mount_node(mount, tools, &mut notes);
    Chain::with_declared(path, root, notes, declared)
}

fn mount_node(mount: &MountFacts, tools: &dyn Tools, notes: &mut Vec<String>) -> Node {
    let mut node = Node::new(
        NodeKind::Mount,
        format!("{} on {} at {}", mount.fstype, mount.from, mount.on),
    );
    node.fact(
        Value::Filesystem(mount.fstype.clone()),
        "statfs (f_fstypename)",
    );
    node.fact(
        Value::MountedFrom(mount.from.clone()),
        "statfs (f_mntfromname)",
    );
    node.other("mount point", &mount.on, "statfs (f_mntonname)");
    throttling(&mut node, tools);
    match mount.fstype.as_str() {
        "smbfs" | "nfs" | "afpfs" | "webdav" => {
            node.children
                .push(network::server_node(mount, tools, notes));
        }
        "msdos" | "exfat" => {
            notes.push(format!(
                "{}: {} keeps no journal and no permissions: Time Machine cannot back up to it",
                mount.on, mount.fstype
            ));
            node.children.extend(local_children(mount, tools, 0));
        }
        _ => node.children.extend(local_children(mount, tools, 0)),
    }
    node
}

/// The kernel's throttling of low-priority I/O, which Time Machine's hourly backups run at
/// (`IOPOL_THROTTLE`, tier 3): whether it is on, its window and sleeps, from `sysctl debug`.
fn throttling(node: &mut Node, tools: &dyn Tools) {
    const SOURCE: &str = "sysctl debug";
    let Some(text) = tools.output(&["sysctl", "debug"]) else {
        return;
    };
    for (name, value) in lowpri_settings(&text) {
        match name {
            "debug.lowpri_throttle_enabled" => {
                node.fact(Value::LowPriorityThrottling(value != "0"), SOURCE);
            }
            _ => node.other(name, value, SOURCE),
        }
    }
}

/// The settings of throttling that concern Time Machine: on or off, the largest I/O, tier 3's
/// window and sleeps (`name: value` lines of `sysctl`).
fn lowpri_settings(text: &str) -> Vec<(&str, &str)> {
    const NAMES: [&str; 5] = [
        "debug.lowpri_throttle_enabled",
        "debug.lowpri_throttle_max_iosize",
        "debug.lowpri_throttle_tier3_window_msecs",
        "debug.lowpri_throttle_tier3_io_period_msecs",
        "debug.lowpri_throttle_tier3_io_period_ssd_msecs",
    ];
    text.lines()
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim(), value.trim()))
        .filter(|(name, _)| NAMES.contains(name))
        .collect()
}

/// The volume's disk and what is below it, when the filesystem is on a `/dev/disk` node.
fn local_children(mount: &MountFacts, tools: &dyn Tools, depth: usize) -> Vec<Node> {
    match mount.from.strip_prefix("/dev/") {
        Some(dev) if depth < MAX_DEPTH => vec![diskutil::volume_node(dev, tools)],
        _ => {
            let mut n = Node::new(NodeKind::Transport, format!("{} (no disk)", mount.from));
            n.bandwidth = super::Bandwidth::Unknown {
                why: format!(
                    "{} is mounted from {:?}, not a disk: nothing below it to read",
                    mount.fstype, mount.from
                ),
            };
            vec![n]
        }
    }
}

/// This machine's tools, run by absolute path (never a `PATH` lookup).
#[cfg(target_os = "macos")]
struct Live;

#[cfg(target_os = "macos")]
impl Tools for Live {
    fn output(&self, args: &[&str]) -> Option<String> {
        let (program, rest) = args.split_first()?;
        let program = match *program {
            "diskutil" | "ioreg" | "system_profiler" | "sysctl" => format!("/usr/sbin/{program}"),
            "route" | "ifconfig" => format!("/sbin/{program}"),
            other => format!("/usr/bin/{other}"),
        };
        let out = std::process::Command::new(program)
            .args(rest)
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

/// What `statfs` says of `path`'s filesystem.
#[cfg(target_os = "macos")]
pub fn mount_of(path: &Path) -> std::io::Result<MountFacts> {
    let st = rustix::fs::statfs(path)?;
    let text = crate::platform::c_chars;
    Ok(MountFacts {
        fstype: text(&st.f_fstypename),
        from: text(&st.f_mntfromname),
        on: text(&st.f_mntonname),
    })
}

/// Probes the chain of `path` on this Mac.
#[cfg(target_os = "macos")]
pub fn probe(path: &Path, declared: Option<&DeclaredLink>) -> crate::error::Result<Chain> {
    let mount = mount_of(path).map_err(|e| crate::error::Error::Destination {
        path: path.to_path_buf(),
        problem: match e.kind() {
            std::io::ErrorKind::NotFound => "no such file or directory".into(),
            std::io::ErrorKind::PermissionDenied => "permission denied".into(),
            _ => e.to_string(),
        },
    })?;
    Ok(chain(path, &mount, &Live, declared))
}

/// The mounted volumes worth testing on this Mac (`getfsstat`).
#[cfg(target_os = "macos")]
pub fn volumes() -> Vec<std::path::PathBuf> {
    volumes::worth_offering(&volumes::mounted())
}

/// The Time Machine tools of this Mac, for `run --time-machine` and `tm-check`.
#[cfg(target_os = "macos")]
pub fn live_tools() -> &'static dyn Tools {
    &Live
}
