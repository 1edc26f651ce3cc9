//! The chain from a destination path to the wire: mount and filesystem, block device stack,
//! transport (bus), device, and for network filesystems the server, route and interface. Each
//! link carries what was read and where from, and its rated and practical bandwidth from the
//! link table (`links`). The verdict (`crate::verdict`) is pure code over this.
//!
//! Probing never guesses: a link whose speed the system does not report stays
//! [`Bandwidth::Unknown`] with the reason. The user may declare a link the system cannot see
//! (`--link-speed`); such a ceiling is marked `declared`.
//!
//! # What is here
//!
//! The types here are platform-neutral, and one [`probe`] per system fills the same [`Chain`],
//! with [`volumes`] (the mounted volumes worth testing) beside it:
//! - `linux/`: `/proc/self/mountinfo` and `/sys`, read through [`SysRoots`] so fixture trees can
//!   stand in.
//! - `macos/`: `statfs`, `getfsstat` and macOS's own tools (`diskutil`, `ioreg`, `smbutil`,
//!   `nfsstat`, `route`, `ifconfig`, `system_profiler`), their output read through a `Tools`
//!   seam so the parsers run on any system; Time Machine's destination and its speed checks.
//! - `windows/`: the volume's and the disks' queries, decoded by pure code tested on fixtures;
//!   only `windows/live.rs` calls Windows.
//! - `fact.rs`: a link's facts, each a key and a typed value, one spelling on every system.
//! - `links.rs` (the link table, from `data/links.csv`), `rate.rs` (a link speed the user
//!   declares) and `patience.rs` (asking many volumes without waiting on a dead share).

mod fact;
pub mod health;
pub(crate) mod links;
#[cfg(target_os = "linux")]
mod linux;
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
mod macos;
mod patience;
mod rate;
#[cfg(all(test, target_os = "linux"))]
mod tests;
#[cfg_attr(not(windows), allow(dead_code))]
mod windows;

use std::path::{Path, PathBuf};

pub use fact::{Fact, Key, Rate, RemovalPolicy, Transport, Value, WriteCache};
#[cfg(target_os = "linux")]
pub use linux::SysRoots;
pub use macos::timemachine::LoggedBackup as TimeMachineBackup;
pub use macos::timemachine::SpeedCheck as TimeMachineCheck;
pub use patience::replies_within;
pub use rate::DeclaredLink;

use crate::error::Result;

/// The chain of one destination path.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Chain {
    /// The path probed, as given.
    pub path: PathBuf,
    /// The first node is the mount; its children go towards the wire.
    pub root: Node,
    /// What matters for backups and is worth saying once (sync mounts, no journal...).
    pub notes: Vec<String>,
}

/// What a node of the chain is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NodeKind {
    /// A mounted filesystem.
    Mount,
    /// A partition of a whole disk.
    Partition,
    /// A loop device; its child is the mount holding its backing file.
    Loop,
    /// A device-mapper device (LVM, dm-crypt...).
    DeviceMapper,
    /// An md (software RAID) device.
    Raid,
    /// A whole disk (or its namespace): the device itself.
    Disk,
    /// A bus between the device and the machine: USB, SATA, PCIe, Thunderbolt, virtio.
    Transport,
    /// A userspace filesystem (FUSE): the server process is part of the chain.
    Userspace,
    /// Memory (tmpfs): no device.
    Memory,
    /// The server of a network filesystem.
    Server,
    /// The network interface that routes to the server.
    Interface,
    /// A link the user declared (`--link-speed`), not read from the system.
    Declared,
}

/// One link of the chain.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Node {
    pub kind: NodeKind,
    /// One line: "USB 2.0 (BOT)", "disk sdb", "ext4 on /dev/sdb1 at /mnt".
    pub label: String,
    /// What was read, and where from.
    pub facts: Vec<Fact>,
    pub bandwidth: Bandwidth,
    /// The next links towards the wire (several for RAID and multi-device filesystems).
    pub children: Vec<Node>,
}

impl RemovalPolicy {
    /// The policy a node's fact records; None without one.
    pub fn of(node: &Node) -> Option<RemovalPolicy> {
        match node.get(Key::RemovalPolicy)? {
            Value::RemovalPolicy(p) => Some(*p),
            _ => None,
        }
    }
}

/// Whether a node limits bandwidth, and how much.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum Bandwidth {
    /// Not a link with a bandwidth of its own (a filesystem, a partition).
    None,
    /// A link whose speed the system does not report, and why.
    Unknown { why: String },
    /// A link with a rated bandwidth and a practical ceiling.
    Known(Ceiling),
}

/// The bandwidth of a link: a row of the link table applied to what the system reported.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Ceiling {
    /// The link's name in the table: "USB 2.0 (BOT)".
    pub link: String,
    /// The table row id.
    pub row: String,
    /// Rated signalling rate, in words ("480 Mbit/s", "8 GT/s x4").
    pub rated: String,
    /// The practical payload ceiling the verdict measures against, MB/s (10^6 B/s).
    pub practical_mb_s: f64,
    /// The top of the practical range; a figure well above it is a cache.
    pub practical_max_mb_s: f64,
    /// Where the figures come from (`source` in the documents).
    #[serde(rename = "source")]
    pub origin: String,
    /// Declared by the user, not read from the system.
    pub declared: bool,
}

impl Node {
    pub fn new(kind: NodeKind, label: impl Into<String>) -> Node {
        Node {
            kind,
            label: label.into(),
            facts: Vec::new(),
            bandwidth: Bandwidth::None,
            children: Vec::new(),
        }
    }

    /// Records a fact.
    pub fn fact(&mut self, value: Value, origin: impl Into<String>) {
        self.facts.push(Fact {
            value,
            origin: origin.into(),
        });
    }

    /// Records a fact nobody compares: `name` and the text as read.
    pub fn other(&mut self, name: &str, text: impl Into<String>, origin: impl Into<String>) {
        self.fact(Value::other(name, text), origin);
    }

    /// The value of the first fact with `key`.
    pub fn get(&self, key: Key) -> Option<&Value> {
        self.facts.iter().map(|f| &f.value).find(|v| v.key() == key)
    }

    /// The text the terminal shows for the first fact shown as `name` (tests read facts so).
    #[cfg(test)]
    pub fn said(&self, name: &str) -> Option<String> {
        self.facts
            .iter()
            .find(|f| f.value.name() == name)
            .map(|f| f.value.to_string())
    }

    /// This node and every node below it, depth first, path to wire.
    pub fn walk(&self) -> Vec<&Node> {
        let mut out = vec![self];
        for c in &self.children {
            out.extend(c.walk());
        }
        out
    }
}

impl Chain {
    /// The chain of `path` from its mount `root`, with the link the user declared, if any.
    pub fn with_declared(
        path: &Path,
        root: Node,
        notes: Vec<String>,
        declared: Option<&DeclaredLink>,
    ) -> Chain {
        let mut chain = Chain {
            path: path.to_path_buf(),
            root,
            notes,
        };
        if let Some(d) = declared {
            d.declare(&mut chain);
        }
        chain
    }

    /// Every node, path to wire.
    pub fn nodes(&self) -> Vec<&Node> {
        self.root.walk()
    }

    /// Nodes with a known ceiling, smallest practical ceiling first.
    pub fn known_links(&self) -> Vec<(&Node, &Ceiling)> {
        let mut links: Vec<(&Node, &Ceiling)> = self
            .nodes()
            .into_iter()
            .filter_map(|n| match &n.bandwidth {
                Bandwidth::Known(c) => Some((n, c)),
                _ => None,
            })
            .collect();
        links.sort_by(|a, b| a.1.practical_mb_s.total_cmp(&b.1.practical_mb_s));
        links
    }

    /// Nodes that are links of unknown speed, with the reason.
    pub fn unknown_links(&self) -> Vec<(&Node, &str)> {
        self.nodes()
            .into_iter()
            .filter_map(|n| match &n.bandwidth {
                Bandwidth::Unknown { why } => Some((n, why.as_str())),
                _ => None,
            })
            .collect()
    }

    /// The filesystem's type at the root, as the system names it.
    pub fn filesystem(&self) -> Option<&str> {
        self.root.get(Key::Filesystem)?.as_text()
    }

    /// Whether the root is a network filesystem.
    pub fn is_network(&self) -> bool {
        self.nodes().iter().any(|n| n.kind == NodeKind::Server)
    }

    /// Whether the destination is memory (tmpfs).
    pub fn is_memory(&self) -> bool {
        self.nodes().iter().any(|n| n.kind == NodeKind::Memory)
    }
}

/// Probes the chain of `path` on this machine. `declared` adds a link the system cannot report.
/// A missing path is an error naming it.
#[cfg(target_os = "linux")]
pub fn probe(path: &Path, declared: Option<&DeclaredLink>) -> Result<Chain> {
    linux::probe(path, &SysRoots::live(), declared)
}

/// Probes the chain of `path` on this Mac. A missing path is an error naming it.
#[cfg(target_os = "macos")]
pub fn probe(path: &Path, declared: Option<&DeclaredLink>) -> Result<Chain> {
    macos::probe(path, declared)
}

/// The directory `run --time-machine` measures: Time Machine's first mounted destination.
#[cfg(target_os = "macos")]
/// Why there is none, in words the caller puts after the flag.
pub fn time_machine_destination() -> std::result::Result<PathBuf, String> {
    let destinations = macos::timemachine::destinations(macos::live_tools());
    macos::timemachine::pick(&destinations).map_err(|e| e.to_string())
}

/// Time Machine's logged speed checks and backups of the volume holding `destination` (to that
/// path or a directory above it) in the last week.
#[cfg(target_os = "macos")]
pub fn time_machine_log(destination: &Path) -> (Vec<TimeMachineCheck>, Vec<TimeMachineBackup>) {
    let (checks, backups) = macos::timemachine::read_log(macos::live_tools(), 7);
    (
        macos::timemachine::checks_of(destination, checks),
        macos::timemachine::backups_of(destination, backups),
    )
}

/// Time Machine exists only on macOS.
#[cfg(not(target_os = "macos"))]
pub fn time_machine_destination() -> std::result::Result<PathBuf, String> {
    Err("Time Machine exists only on macOS; give the destination's path".into())
}

/// Probes the chain of `path` on this machine (Windows).
#[cfg(windows)]
pub fn probe(path: &Path, declared: Option<&DeclaredLink>) -> Result<Chain> {
    windows::probe(path, declared)
}

/// The mounted volumes worth testing on this machine (Linux: `/proc/self/mountinfo`): disks
/// and shares that can be written, each once; empty when the mount table cannot be read.
#[cfg(target_os = "linux")]
pub fn volumes() -> Vec<PathBuf> {
    linux::volumes(&SysRoots::live()).unwrap_or_default()
}

/// The mounted volumes worth testing on this Mac (`getfsstat`): disks and shares that can be
/// written, the internal data volume at `/System/Volumes/Data`; empty when the table cannot
/// be read.
#[cfg(target_os = "macos")]
pub fn volumes() -> Vec<PathBuf> {
    macos::volumes()
}

/// The drives worth testing on this machine (Windows: `GetLogicalDriveStringsW`,
/// `GetDriveTypeW`, `GetVolumeInformationW`): fixed, removable and network drives that can be
/// written, as their roots (`C:\`).
#[cfg(windows)]
pub fn volumes() -> Vec<PathBuf> {
    windows::volumes()
}
