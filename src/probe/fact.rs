//! A chain fact: a key and a typed value. The facts code or users compare across systems have a
//! key of their own and one spelling everywhere (signing is a bool on macOS and Windows alike,
//! a rate is Mbit/s); what nobody compares is [`Value::Other`], a name and the text as read.

use std::fmt;

use serde::{Deserialize, Serialize};
use strum::{Display, EnumDiscriminants, IntoStaticStr};

use super::health::{Assessment, DriveKind, Rotation, SmartGap};
use super::links::trim_number;

/// A fact read from the system, with its source (a file, a table, a command).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "Wire")]
pub struct Fact {
    #[serde(flatten)]
    pub value: Value,
    /// Where the fact was read: a file, a command, a query. `source` in the documents.
    #[serde(rename = "source")]
    pub origin: String,
}

/// What a fact says. [`Key`] names each kind; the terminal shows `key: value`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, EnumDiscriminants)]
#[serde(tag = "key", content = "value", rename_all = "kebab-case")]
#[strum_discriminants(name(Key), derive(Display, IntoStaticStr))]
pub enum Value {
    /// The filesystem's type as the system names it: "ext4", "nfs4", "apfs", "NTFS".
    #[strum_discriminants(strum(serialize = "filesystem"))]
    Filesystem(String),
    /// The block device's I/O scheduler in use: "mq-deadline", "none".
    #[strum_discriminants(strum(serialize = "scheduler"))]
    Scheduler(String),
    /// The SMB dialect of the session (or, on Linux, the mount's `vers=`): "3.1.1".
    #[strum_discriminants(strum(serialize = "SMB dialect"))]
    SmbDialect(String),
    /// Whether SMB messages are signed.
    #[strum_discriminants(strum(serialize = "signing"))]
    Signing(bool),
    /// Whether SMB traffic is encrypted.
    #[strum_discriminants(strum(serialize = "encryption"))]
    Encryption(bool),
    /// Whether the SMB server supports multichannel.
    #[strum_discriminants(strum(serialize = "multichannel"))]
    Multichannel(bool),
    /// A Wi-Fi interface's PHY (transmit) rate.
    #[strum_discriminants(strum(serialize = "PHY rate"))]
    PhyRate(Rate),
    /// A wired link's negotiated speed: an Ethernet interface, a USB device, a SATA link.
    #[strum_discriminants(strum(serialize = "link speed"))]
    LinkSpeed(Rate),
    /// Whether the device acknowledges writes from a volatile cache.
    #[strum_discriminants(strum(serialize = "write cache"))]
    WriteCache(WriteCache),
    /// Windows' removal policy of a disk on a removable bus.
    #[strum_discriminants(strum(serialize = "removal policy"))]
    RemovalPolicy(RemovalPolicy),
    /// The bus of a transport node.
    #[strum_discriminants(strum(serialize = "transport"))]
    Transport(Transport),
    /// What a mount is mounted from: a device ("/dev/sdb1"), a share ("//nas/share").
    #[strum_discriminants(strum(serialize = "source"))]
    #[serde(rename = "source")]
    MountedFrom(String),
    /// The filesystem's UUID.
    #[strum_discriminants(strum(serialize = "uuid"))]
    Uuid(String),
    /// A disk's model.
    #[strum_discriminants(strum(serialize = "model"))]
    Model(String),
    /// A disk's serial number.
    #[strum_discriminants(strum(serialize = "serial"))]
    Serial(String),
    /// macOS: whether low-priority I/O is throttled (`debug.lowpri_throttle_enabled`): Time
    /// Machine's hourly backups run at that priority, so it decides how fast they go while other
    /// programs use the disk.
    #[strum_discriminants(strum(serialize = "low-priority throttling"))]
    LowPriorityThrottling(bool),
    /// A whole disk as the system's tools name it: smartctl reads it by this name ("/dev/sda",
    /// "/dev/disk4", "/dev/pd1" for Windows' PhysicalDrive1).
    #[strum_discriminants(strum(serialize = "device"))]
    Device(String),
    /// The disk's firmware version (SMART's identify data).
    #[strum_discriminants(strum(serialize = "firmware"))]
    Firmware(String),
    /// SMART's overall assessment: the disk's own judgement of itself.
    #[strum_discriminants(strum(serialize = "SMART assessment"))]
    SmartAssessment(Assessment),
    /// Sectors the disk has moved to spares after failing to write or read them (ATA 5).
    #[strum_discriminants(strum(serialize = "reallocated sectors"))]
    ReallocatedSectors(u64),
    /// Sectors waiting to be reallocated: the disk could not read them (ATA 197).
    #[strum_discriminants(strum(serialize = "pending sectors"))]
    PendingSectors(u64),
    /// Sectors its own offline scan could not read (ATA 198).
    #[strum_discriminants(strum(serialize = "uncorrectable sectors"))]
    UncorrectableSectors(u64),
    /// Transfers the link between disk and host had to repeat: a cable or an enclosure, not the
    /// disk (ATA 199, UDMA CRC errors).
    #[strum_discriminants(strum(serialize = "link errors"))]
    LinkErrors(u64),
    /// How many link errors the disk counted while the run measured it.
    #[strum_discriminants(strum(serialize = "link errors during the run"))]
    LinkErrorsDuringRun(u64),
    #[strum_discriminants(strum(serialize = "power-on hours"))]
    PowerOnHours(u64),
    #[strum_discriminants(strum(serialize = "power cycles"))]
    PowerCycles(u64),
    /// Degrees Celsius, as the disk reports it.
    #[strum_discriminants(strum(serialize = "temperature"))]
    Temperature(i64),
    /// NVMe's critical warning bits (spare, temperature, reliability, read-only, backup); 0 is
    /// none.
    #[strum_discriminants(strum(serialize = "critical warning"))]
    CriticalWarning(u8),
    /// NVMe's estimate of its rated endurance used, in percent (may pass 100).
    #[strum_discriminants(strum(serialize = "endurance used"))]
    EnduranceUsed(u8),
    /// NVMe: data the disk could not read or write correctly.
    #[strum_discriminants(strum(serialize = "media errors"))]
    MediaErrors(u64),
    /// NVMe: power lost before the disk was told to shut down.
    #[strum_discriminants(strum(serialize = "unsafe shutdowns"))]
    UnsafeShutdowns(u64),
    /// A spinning disk's rate, or solid state.
    #[strum_discriminants(strum(serialize = "rotation"))]
    Rotation(Rotation),
    /// "2.5 inches", "M.2", as SMART's identify data says.
    #[strum_discriminants(strum(serialize = "form factor"))]
    FormFactor(String),
    /// Whether the disk accepts TRIM: on a hard disk, the sign of drive-managed SMR.
    #[strum_discriminants(strum(serialize = "TRIM"))]
    Trim(bool),
    /// How the disk records: SMR or CMR, QLC or TLC, and how that is known.
    #[strum_discriminants(strum(serialize = "recording"))]
    DriveKind(DriveKind),
    /// Why the disk's SMART data was not read.
    #[strum_discriminants(strum(serialize = "SMART"))]
    SmartUnread(SmartGap),
    /// A fact nobody compares across systems (a vendor, a mount option, a PCIe hop), or a typed
    /// fact the system did not answer (then its reason is the text): a name and the text.
    #[strum_discriminants(strum(serialize = "other"))]
    Other { name: String, text: String },
}

/// A rate in Mbit/s (10^6 bits per second), shown as "866.7 Mbit/s".
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    pub mbit_s: f64,
}

/// A bus between a disk and the machine, one spelling on every system; a bus with no name here
/// keeps the system's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Display)]
#[serde(rename_all = "kebab-case")]
pub enum Transport {
    #[strum(serialize = "USB")]
    Usb,
    #[strum(serialize = "SATA")]
    Sata,
    #[strum(serialize = "ATA")]
    Ata,
    #[strum(serialize = "SAS")]
    Sas,
    #[strum(serialize = "SCSI")]
    Scsi,
    #[strum(serialize = "NVMe")]
    Nvme,
    #[strum(serialize = "PCIe")]
    Pcie,
    #[strum(serialize = "Thunderbolt")]
    Thunderbolt,
    #[strum(serialize = "FireWire")]
    Firewire,
    #[strum(serialize = "SD")]
    Sd,
    #[strum(serialize = "MMC")]
    Mmc,
    #[strum(serialize = "iSCSI")]
    Iscsi,
    #[strum(serialize = "virtio")]
    Virtio,
    #[serde(untagged)]
    #[strum(to_string = "{0}")]
    Other(String),
}

/// Whether writes are acknowledged from the device's volatile cache (Linux's "write back") or
/// only once on the medium (Linux's "write through"; Windows' disabled cache or none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Display)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "lowercase")]
pub enum WriteCache {
    On,
    Off,
}

/// Windows' removal policy of a disk on a removable bus, as Device Manager's Policies tab names
/// it: "quick removal" turns the device's write cache off, "better performance" on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Display)]
#[serde(rename_all = "kebab-case")]
pub enum RemovalPolicy {
    #[strum(serialize = "quick removal")]
    QuickRemoval,
    #[strum(serialize = "better performance")]
    BetterPerformance,
}

impl Value {
    /// A fact nobody compares: `name` and the text as read.
    pub fn other(name: &str, text: impl Into<String>) -> Value {
        Value::Other {
            name: name.to_string(),
            text: text.into(),
        }
    }

    pub fn key(&self) -> Key {
        Key::from(self)
    }

    /// The text of a typed fact whose value is text (a filesystem, a model...).
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Value::Filesystem(s)
            | Value::Scheduler(s)
            | Value::SmbDialect(s)
            | Value::MountedFrom(s)
            | Value::Uuid(s)
            | Value::Model(s)
            | Value::Serial(s)
            | Value::Device(s)
            | Value::Firmware(s)
            | Value::FormFactor(s) => Some(s),
            _ => None,
        }
    }

    /// The fact's name as the terminal shows it.
    pub fn name(&self) -> &str {
        match self {
            Value::Other { name, .. } => name,
            typed => Key::from(typed).into(),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let on_off = |b: bool| if b { "on" } else { "off" };
        if let Some(text) = self.as_text() {
            return f.write_str(text);
        }
        match self {
            Value::Other { text, .. } => f.write_str(text),
            Value::Signing(b) | Value::Encryption(b) | Value::LowPriorityThrottling(b) => {
                f.write_str(on_off(*b))
            }
            Value::Multichannel(b) => f.write_str(if *b { "supported" } else { "not supported" }),
            Value::PhyRate(r) | Value::LinkSpeed(r) => write!(f, "{r}"),
            Value::WriteCache(c) => write!(f, "{c}"),
            Value::RemovalPolicy(p) => write!(f, "{p}"),
            Value::Transport(t) => write!(f, "{t}"),
            Value::ReallocatedSectors(n)
            | Value::PendingSectors(n)
            | Value::UncorrectableSectors(n)
            | Value::LinkErrors(n)
            | Value::LinkErrorsDuringRun(n)
            | Value::PowerOnHours(n)
            | Value::PowerCycles(n)
            | Value::MediaErrors(n)
            | Value::UnsafeShutdowns(n) => write!(f, "{n}"),
            Value::Temperature(c) => write!(f, "{c} °C"),
            Value::CriticalWarning(0) => f.write_str("none"),
            Value::CriticalWarning(bits) => write!(f, "{bits:#04x}"),
            Value::EnduranceUsed(pct) => write!(f, "{pct}%"),
            Value::Trim(b) => f.write_str(if *b { "supported" } else { "not supported" }),
            Value::SmartAssessment(a) => write!(f, "{a}"),
            Value::Rotation(r) => write!(f, "{r}"),
            Value::DriveKind(k) => write!(f, "{k}"),
            Value::SmartUnread(gap) => write!(f, "not read: {gap}"),
            _ => Ok(()), // the facts whose value is text, written above
        }
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} Mbit/s", trim_number(self.mbit_s))
    }
}

impl Rate {
    /// "480" or "866.7 Mbit/s" (the number first, a unit after it or none) as a rate; "6.0
    /// Gbps" in Gbit/s.
    pub fn parse(text: &str) -> Option<Rate> {
        let mut words = text.split_whitespace();
        let number: f64 = words.next()?.parse().ok()?;
        let scale = match words.next() {
            None | Some("Mbit/s" | "Mb/s" | "Mbps") => 1.0,
            Some("Gbit/s" | "Gb/s" | "Gbps") => 1000.0,
            Some(_) => return None,
        };
        Some(Rate {
            mbit_s: number * scale,
        })
    }
}

/// A fact as written: `{ "key", "value", "source" }`. A key this version does not type, or a
/// value of another type (a `destbench.chain/1` document's facts are all text), reads as
/// [`Value::Other`] with the key as its name, so older and newer documents load.
#[derive(Deserialize)]
struct Wire {
    key: String,
    #[serde(default)]
    value: serde_json::Value,
    #[serde(default)]
    source: String,
}

impl From<Wire> for Fact {
    fn from(w: Wire) -> Fact {
        let tagged = serde_json::json!({ "key": w.key, "value": w.value });
        let value = serde_json::from_value(tagged).unwrap_or_else(|_| {
            let text = match w.value {
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            };
            from_chain_1(&w.key, &text).unwrap_or(Value::Other { name: w.key, text })
        });
        Fact {
            value,
            origin: w.source,
        }
    }
}

/// A `destbench.chain/1` fact, typed where its name and text say what it is: each system spelled
/// them its own way then (Windows' "signed: yes", macOS's "signing: on").
fn from_chain_1(name: &str, text: &str) -> Option<Value> {
    let yes = match text {
        "yes" | "on" | "supported by the server" => Some(true),
        "no" | "off" | "not supported" => Some(false),
        _ => None,
    };
    Some(match name {
        "signing" | "signed" => Value::Signing(yes?),
        "encrypted" => Value::Encryption(yes?),
        // macOS wrote the cipher, or "off".
        "encryption" => Value::Encryption(yes.unwrap_or(true)),
        "multichannel" => Value::Multichannel(yes?),
        "SMB dialect" | "smb dialect" if !text.starts_with("not read") => {
            Value::SmbDialect(text.into())
        }
        "PHY rate" | "PHY bitrate" => Value::PhyRate(Rate::parse(text)?),
        "speed" | "link speed" | "negotiated speed" | "media" => {
            Value::LinkSpeed(Rate::parse(text)?)
        }
        "write cache" => Value::WriteCache(match text {
            "write back" | "on" => WriteCache::On,
            "write through" | "off" | "none (write-through device)" => WriteCache::Off,
            _ => return None,
        }),
        "removal policy" => Value::RemovalPolicy(match text {
            "quick removal" => RemovalPolicy::QuickRemoval,
            "better performance" => RemovalPolicy::BetterPerformance,
            _ => return None,
        }),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_facts_read_back_to_the_same_value() {
        let facts = [
            Value::Signing(true),
            Value::PhyRate(Rate { mbit_s: 866.7 }),
            Value::RemovalPolicy(RemovalPolicy::QuickRemoval),
            Value::WriteCache(WriteCache::On),
            Value::Transport(Transport::Nvme),
            Value::Transport(Transport::Other("Apple Fabric".into())),
            Value::other("PHY mode", "802.11ax"),
        ];
        for value in facts {
            let fact = Fact {
                value,
                origin: "a test".into(),
            };
            let text = serde_json::to_string(&fact).unwrap();
            assert_eq!(serde_json::from_str::<Fact>(&text).unwrap(), fact, "{text}");
        }
    }

    #[test]
    fn an_old_chains_text_facts_still_load() {
        // destbench.chain/1: every value text; typed keys it spelled alike read typed.
        let old = r#"[{ "key": "filesystem", "value": "ext4", "source": "mountinfo" },
                      { "key": "signed", "value": "yes", "source": "Get-SmbConnection" },
                      { "key": "PHY bitrate", "value": "866.7 Mbit/s", "source": "iw" },
                      { "key": "write cache", "value": "not said", "source": "a query" }]"#;
        let facts: Vec<Fact> = serde_json::from_str(old).unwrap();
        assert_eq!(facts[0].value, Value::Filesystem("ext4".into()));
        assert_eq!(facts[1].value, Value::Signing(true));
        assert_eq!(facts[1].origin, "Get-SmbConnection");
        let Value::PhyRate(rate) = facts[2].value else {
            panic!("{:?}", facts[2])
        };
        assert_eq!(rate.to_string(), "866.7 Mbit/s");
        assert_eq!(facts[3].value, Value::other("write cache", "not said"));
    }

    #[test]
    fn an_old_chain_loads_with_its_facts() {
        let old = r#"{ "path": "/Volumes/share", "notes": [], "root": {
            "kind": "mount", "label": "smbfs at /Volumes/share", "bandwidth": { "state": "none" },
            "facts": [ { "key": "filesystem", "value": "smbfs", "source": "statfs" },
                       { "key": "signing", "value": "on", "source": "smbutil" },
                       { "key": "mount point", "value": "/Volumes/share", "source": "statfs" } ],
            "children": [] } }"#;
        let chain: crate::probe::Chain = serde_json::from_str(old).unwrap();
        assert_eq!(chain.filesystem(), Some("smbfs"));
        assert_eq!(chain.root.get(Key::Signing), Some(&Value::Signing(true)));
        let mount_point = Value::other("mount point", "/Volumes/share");
        assert_eq!(chain.root.facts[2].value, mount_point);
    }
}
