//! The disk's health and kind beside its speed: what SMART says of each whole disk in the chain
//! (`smartctl --json`, smartmontools 7 or later), read once per run as typed facts of the disk's
//! node, and the disk's recording kind (SMR or CMR, QLC or TLC) from its model against the
//! vendors' published lists (`data/drive_kinds.csv`, docs/health.md). Where SMART cannot be read
//! the disk gets a `SMART: not read` fact saying why; nothing is guessed.

mod kind;
mod smart;
mod smartctl;

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};
use strum::Display;

use super::{Chain, Key, Node, NodeKind, Value};
pub use smartctl::{Live, Smartctl};

/// SMART's overall assessment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Display)]
#[serde(rename_all = "kebab-case")]
pub enum Assessment {
    #[strum(serialize = "passed")]
    Passed,
    #[strum(serialize = "FAILED")]
    Failed,
}

/// A disk that spins, at its rate, or one that does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rotation {
    SolidState,
    Rpm(u32),
}

impl std::fmt::Display for Rotation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rotation::SolidState => f.write_str("solid state"),
            Rotation::Rpm(rpm) => write!(f, "{rpm} rpm"),
        }
    }
}

/// How a disk records its data, where that decides how it writes past its cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Display)]
#[serde(rename_all = "UPPERCASE")]
pub enum Recording {
    /// Shingled magnetic recording: a cache zone of some GB, then whole bands rewritten.
    #[strum(serialize = "SMR")]
    Smr,
    /// Conventional magnetic recording.
    #[strum(serialize = "CMR")]
    Cmr,
    /// Four bits a cell: fast into an SLC cache, far slower past it.
    #[strum(serialize = "QLC")]
    Qlc,
    /// Three bits a cell.
    #[strum(serialize = "TLC")]
    Tlc,
}

/// A disk's recording and how it is known.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriveKind {
    pub recording: Recording,
    /// The list row that names the model (with its source), or the sign it was read from.
    pub basis: String,
    /// A sign (TRIM on a hard disk), not a vendor's list.
    pub inferred: bool,
}

impl std::fmt::Display for DriveKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let how = if self.inferred { "likely: " } else { "" };
        write!(f, "{} ({how}{})", self.recording, self.basis)
    }
}

/// Why a disk's SMART data was not read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "why", rename_all = "kebab-case")]
pub enum SmartGap {
    /// smartctl is not installed; how to install it on this system.
    NotInstalled { install: String },
    /// The system lets only an administrator open the disk.
    NeedsAdmin,
    /// A USB bridge that does not pass SMART commands through.
    Bridge { bridge: String },
    /// The disks are the server's.
    Share,
    /// The disk was asleep and is not woken for its SMART data.
    Asleep,
    /// smartctl did not answer within its time.
    TimedOut,
    /// smartctl's own message.
    Failed { message: String },
}

impl std::fmt::Display for SmartGap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SmartGap::NotInstalled { install } => {
                write!(f, "smartctl is not installed ({install})")
            }
            SmartGap::NeedsAdmin => f.write_str(
                "only an administrator may open the disk here: run destbench as root (sudo) to read it",
            ),
            SmartGap::Bridge { bridge } => {
                write!(f, "the USB bridge ({bridge}) does not pass SMART through")
            }
            SmartGap::Share => f.write_str("the disks are the server's: read SMART on the server"),
            SmartGap::Asleep => f.write_str("the disk was asleep and was not woken for it"),
            SmartGap::TimedOut => f.write_str("smartctl did not answer in time"),
            SmartGap::Failed { message } => write!(f, "smartctl: {message}"),
        }
    }
}

/// Reads SMART for every whole disk in `chain` that names its device (and says why not on a
/// share), adding the facts to the disk's node.
pub fn read(chain: &mut Chain, smartctl: &dyn Smartctl) {
    each_node(&mut chain.root, &mut |node, bridge| match node.kind {
        NodeKind::Disk => read_disk(node, bridge, smartctl),
        NodeKind::Server => node.fact(Value::SmartUnread(SmartGap::Share), "the chain"),
        _ => {}
    });
}

/// The link errors the disk counts now, read again after a run: what grew during it becomes a
/// fact of its own on the disk's node.
pub fn reread_link_errors(chain: &mut Chain, smartctl: &dyn Smartctl) {
    each_node(&mut chain.root, &mut |node, bridge| {
        let before = node.get(Key::LinkErrors).cloned();
        let (Some(Value::LinkErrors(before)), Some(device)) = (before, device_of(node)) else {
            return;
        };
        let after = smartctl::read(smartctl, &device, bridge)
            .ok()
            .and_then(|r| {
                r.facts.into_iter().find_map(|v| match v {
                    Value::LinkErrors(n) => Some(n),
                    _ => None,
                })
            });
        if let Some(after) = after {
            let grew = after.saturating_sub(before);
            node.fact(Value::LinkErrorsDuringRun(grew), "smartctl, after the run");
        }
    });
}

/// Calls `visit` on every node with the USB bridge's vendor id below it, if there is one.
fn each_node(node: &mut Node, visit: &mut dyn FnMut(&mut Node, Option<&str>)) {
    let bridge = usb_vendor(node).map(str::to_string);
    visit(node, bridge.as_deref());
    for child in &mut node.children {
        each_node(child, visit);
    }
}

/// The vendor id of the USB device under a disk's node ("152d"), as the chain read it.
fn usb_vendor(node: &Node) -> Option<&str> {
    node.walk().into_iter().find_map(|n| {
        n.facts.iter().find_map(|f| match &f.value {
            Value::Other { name, text } if name == USB_VENDOR => Some(text.as_str()),
            _ => None,
        })
    })
}

/// The name under which the chain keeps a USB device's vendor id.
pub const USB_VENDOR: &str = "USB vendor id";

/// The device a disk's node names ("/dev/sda").
fn device_of(node: &Node) -> Option<String> {
    node.get(Key::Device)
        .and_then(Value::as_text)
        .map(str::to_string)
}

fn read_disk(node: &mut Node, bridge: Option<&str>, smartctl: &dyn Smartctl) {
    let Some(device) = device_of(node) else {
        return;
    };
    let origin = format!("smartctl --json -a {device}");
    match smartctl::read(smartctl, &device, bridge) {
        Ok(reading) => {
            for value in reading.facts {
                node.fact(value, &origin);
            }
            match (
                kind::of(reading.model.as_deref(), &node.facts),
                reading.model,
            ) {
                (Some(kind), _) => node.fact(Value::DriveKind(kind), &origin),
                // Said, so that a missing kind reads as not known rather than as not looked for.
                (None, Some(model)) => node.other(
                    "recording",
                    format!("not known: no published list names {model} (data/drive_kinds.csv)"),
                    &origin,
                ),
                (None, None) => {}
            }
        }
        Err(gap) => node.fact(Value::SmartUnread(gap), origin),
    }
}

/// The sentence said before anything else when a disk of the chain reports that it is failing,
/// or its link repeated transfers during the run; None for a disk that says nothing of the kind.
pub fn alarm(chain: &Chain) -> Option<String> {
    chain.nodes().into_iter().find_map(node_alarm)
}

fn node_alarm(node: &Node) -> Option<String> {
    let count = |key: Key| match node.get(key) {
        Some(
            Value::PendingSectors(n)
            | Value::UncorrectableSectors(n)
            | Value::ReallocatedSectors(n)
            | Value::MediaErrors(n)
            | Value::LinkErrorsDuringRun(n),
        ) if *n > 0 => Some(*n),
        _ => None,
    };
    const COPY: &str = "copy your backups to another disk";
    if node.get(Key::SmartAssessment) == Some(&Value::SmartAssessment(Assessment::Failed)) {
        return Some(format!(
            "This disk's own SMART check says it is failing: {COPY}."
        ));
    }
    if let Some(Value::CriticalWarning(bits)) = node.get(Key::CriticalWarning)
        && *bits != 0
    {
        return Some(format!(
            "This disk raises a critical warning ({bits:#04x}): {COPY}."
        ));
    }
    let unreadable =
        count(Key::PendingSectors).unwrap_or(0) + count(Key::UncorrectableSectors).unwrap_or(0);
    if unreadable > 0 {
        return Some(format!(
            "This disk reports {unreadable} sectors it could not read: {COPY}."
        ));
    }
    if let Some(n) = count(Key::MediaErrors) {
        return Some(format!(
            "This disk reports {n} errors reading or writing its data: {COPY}."
        ));
    }
    if let Some(n) = count(Key::ReallocatedSectors) {
        return Some(format!(
            "This disk has replaced {n} failing sectors with spares: keep a second copy of your \
             backups, and compare runs to see whether the count grows."
        ));
    }
    count(Key::LinkErrorsDuringRun).map(|n| {
        format!(
            "The link to this disk repeated {n} transfers during the run: a worn cable or a \
             failing enclosure slows it; try another cable, port or enclosure."
        )
    })
}

/// The recording kind of the chain's disk, where a list or a sign says it.
pub fn drive_kind(chain: &Chain) -> Option<&DriveKind> {
    chain
        .nodes()
        .into_iter()
        .find_map(|n| match n.get(Key::DriveKind) {
            Some(Value::DriveKind(kind)) => Some(kind),
            _ => None,
        })
}

/// The facts of a disk's health the reports' chain shows in one line, in this order.
const IN_ONE_LINE: [Key; 11] = [
    Key::SmartAssessment,
    Key::PendingSectors,
    Key::UncorrectableSectors,
    Key::ReallocatedSectors,
    Key::LinkErrorsDuringRun,
    Key::CriticalWarning,
    Key::MediaErrors,
    Key::EnduranceUsed,
    Key::PowerOnHours,
    Key::DriveKind,
    Key::SmartUnread,
];

/// A node's health in one line ("SMART assessment: passed; pending sectors: 0; power-on hours:
/// 8244"), or why it was not read; None for a node SMART says nothing of.
pub fn in_one_line(node: &Node) -> Option<String> {
    let said: Vec<String> = IN_ONE_LINE
        .iter()
        .filter_map(|&key| node.get(key))
        .map(|v| format!("{}: {v}", v.name()))
        .collect();
    (!said.is_empty()).then(|| said.join("; "))
}
