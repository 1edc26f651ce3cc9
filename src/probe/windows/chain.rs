//! The chain of a Windows destination built from what the queries returned: volume → disks →
//! bus, or volume → server → interface for a mapped drive or UNC path. Pure: the queries are
//! in `live.rs`, so every shape is tested on fixtures on any system.

use std::path::PathBuf;

use super::decode::{Adapter, Bus, Device, SmbConnection, WriteCache, WriteCacheProperty};
use crate::probe::links::row;
use crate::probe::{self, Bandwidth, Chain, Node, NodeKind, Rate, RemovalPolicy, Transport, Value};

/// Where each fact comes from, as the chain records it.
const DEVICE_Q: &str = "IOCTL_STORAGE_QUERY_PROPERTY StorageDeviceProperty";
const ADAPTER_Q: &str = "IOCTL_STORAGE_QUERY_PROPERTY StorageAdapterProperty";
const SEEK_Q: &str = "IOCTL_STORAGE_QUERY_PROPERTY StorageDeviceSeekPenaltyProperty";
const TRIM_Q: &str = "IOCTL_STORAGE_QUERY_PROPERTY StorageDeviceTrimProperty";
const CACHE_Q: &str = "IOCTL_STORAGE_QUERY_PROPERTY StorageDeviceWriteCacheProperty";

/// smartctl's name of `\\.\PhysicalDriveN` on Windows: `/dev/sda` is drive 0, `/dev/sdz` 25,
/// `/dev/sdaa` 26 (its man page, "DEVICE NAMES").
pub(super) fn smartctl_name(number: u32) -> String {
    let letter = |n: u32| char::from(b'a' + (n % 26) as u8);
    if number < 26 {
        format!("/dev/sd{}", letter(number))
    } else {
        format!("/dev/sd{}{}", letter(number / 26 - 1), letter(number))
    }
}

/// What the queries returned for one destination; each answer keeps its error.
#[derive(Debug, Clone)]
pub struct Volume {
    pub path: PathBuf,
    /// The volume's root as `GetVolumePathNameW` gives it: `E:\`, `\\server\share\`.
    pub root: String,
    /// `GetVolumeInformationByHandleW`: NTFS, ReFS, exFAT, FAT32...
    pub filesystem: Result<String, String>,
    pub label: Option<String>,
    pub below: Below,
}

#[derive(Debug, Clone)]
pub enum Below {
    /// The disks under a local volume (`IOCTL_VOLUME_GET_VOLUME_DISK_EXTENTS`).
    Disks(Result<Vec<Disk>, String>),
    /// A mapped drive or UNC path.
    Remote(Remote),
}

/// One physical disk's answers.
#[derive(Debug, Clone)]
pub struct Disk {
    pub number: u32,
    pub device: Result<Device, String>,
    pub adapter: Result<Adapter, String>,
    pub seek_penalty: Result<bool, String>,
    pub trim: Result<bool, String>,
    pub cache: Result<WriteCacheProperty, String>,
}

#[derive(Debug, Clone)]
pub struct Remote {
    /// `\\server\share` (`WNetGetConnectionW` for a mapped drive, else the path itself).
    pub unc: String,
    pub server: String,
    pub share: String,
    /// This share's entry of `Get-SmbConnection`.
    pub smb: Result<SmbConnection, String>,
    /// The interface routed to the server (`GetBestInterfaceEx`, `GetIfEntry2`).
    pub interface: Result<Interface, String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interface {
    pub alias: String,
    pub description: String,
    /// `IFTYPE`: 6 Ethernet, 71 Wi-Fi (IEEE 802.11), 24 loopback.
    pub if_type: u32,
    /// `TransmitLinkSpeed`, bits per second.
    pub transmit_bps: u64,
}

/// The chain, and the notes worth saying once (the removal policy, ignored flushes).
pub fn chain(volume: &Volume) -> Chain {
    let mut notes = Vec::new();
    let fs = volume.filesystem.as_deref().unwrap_or("unknown filesystem");
    let mut root = Node::new(NodeKind::Mount, format!("{fs} at {}", volume.root));
    match &volume.filesystem {
        Ok(name) => root.fact(
            Value::Filesystem(name.clone()),
            "GetVolumeInformationByHandleW",
        ),
        Err(e) => root.other(
            "filesystem",
            format!("not read: {e}"),
            "GetVolumeInformationByHandleW",
        ),
    }
    if let Some(label) = &volume.label {
        root.other("label", label, "GetVolumeInformationByHandleW");
    }
    match &volume.below {
        Below::Disks(Ok(disks)) if disks.is_empty() => {
            root.bandwidth = Bandwidth::Unknown {
                why: format!("{} reported no disk under it (wine does so)", volume.root),
            };
        }
        Below::Disks(Ok(disks)) => {
            root.children = disks.iter().map(|d| disk_node(d, &mut notes)).collect();
        }
        Below::Disks(Err(e)) => {
            root.bandwidth = Bandwidth::Unknown {
                why: format!("the disks under {} were not read: {e}", volume.root),
            };
        }
        Below::Remote(remote) => root.children.push(server_node(remote)),
    }
    Chain {
        path: volume.path.clone(),
        root,
        notes,
    }
}

fn disk_node(disk: &Disk, notes: &mut Vec<String>) -> Node {
    let name = disk
        .device
        .as_ref()
        .ok()
        .and_then(|d| d.product.clone())
        .unwrap_or_else(|| "name not read".into());
    let mut n = Node::new(NodeKind::Disk, format!("disk {}: {name}", disk.number));
    n.bandwidth = Bandwidth::Unknown {
        why: "a disk's own speed is what the run measures".into(),
    };
    n.fact(
        Value::Device(smartctl_name(disk.number)),
        format!(r"\\.\PhysicalDrive{}", disk.number),
    );
    fact_of(
        &mut n,
        "vendor",
        disk.device.as_ref().map(|d| d.vendor.clone()),
        DEVICE_Q,
    );
    fact_of(
        &mut n,
        "revision",
        disk.device.as_ref().map(|d| d.revision.clone()),
        DEVICE_Q,
    );
    if let Ok(d) = &disk.device {
        n.other("removable media", yes_no(d.removable), DEVICE_Q);
    }
    let rotational = disk
        .seek_penalty
        .as_ref()
        .map(|&s| Some(yes_no(s).to_string()));
    fact_of(&mut n, "rotational", rotational, SEEK_Q);
    let trim = disk.trim.as_ref().map(|&t| Some(yes_no(t).to_string()));
    fact_of(&mut n, "trim", trim, TRIM_Q);
    match &disk.cache {
        Ok(cache) => cache_facts(&mut n, disk, cache, notes),
        Err(e) => n.other("write cache", format!("not read: {e}"), CACHE_Q),
    }
    n.children.push(bus_node(disk));
    n
}

fn yes_no(v: bool) -> &'static str {
    if v { "yes" } else { "no" }
}

/// A fact from an answer that may be missing or have failed (then its reason is the value).
fn fact_of(n: &mut Node, key: &str, value: Result<Option<String>, &String>, origin: &str) {
    match value {
        Ok(Some(v)) => n.other(key, v, origin),
        Ok(None) => {}
        Err(e) => n.other(key, format!("not read: {e}"), origin),
    }
}

/// The write cache as Device Manager's Policies tab names it, on a removable bus.
pub fn removal_policy(bus: Bus, cache: WriteCache) -> Option<RemovalPolicy> {
    if !matches!(bus, Bus::Usb | Bus::Sd | Bus::Mmc | Bus::Ieee1394) {
        return None;
    }
    match cache {
        WriteCache::Enabled => Some(RemovalPolicy::BetterPerformance),
        WriteCache::Disabled | WriteCache::None => Some(RemovalPolicy::QuickRemoval),
        WriteCache::Unknown => None,
    }
}

fn cache_facts(n: &mut Node, disk: &Disk, cache: &WriteCacheProperty, notes: &mut Vec<String>) {
    let state = match cache.cache {
        WriteCache::Enabled => "on",
        WriteCache::Disabled => "off",
        WriteCache::None => "none (write-through device)",
        WriteCache::Unknown => "not said",
    };
    match cache.cache {
        WriteCache::Enabled => n.fact(Value::WriteCache(probe::WriteCache::On), CACHE_Q),
        WriteCache::Disabled | WriteCache::None => {
            n.fact(Value::WriteCache(probe::WriteCache::Off), CACHE_Q)
        }
        WriteCache::Unknown => n.other("write cache", state, CACHE_Q),
    }
    if let Some(changeable) = cache.changeable {
        n.other("write cache changeable", yes_no(changeable), CACHE_Q);
    }
    n.other("flush supported", yes_no(cache.flush_supported), CACHE_Q);
    let bus = disk
        .device
        .as_ref()
        .map(|d| d.bus)
        .or_else(|_| disk.adapter.as_ref().map(|a| a.bus));
    if let Some(policy) = bus.ok().and_then(|b| removal_policy(b, cache.cache)) {
        n.fact(Value::RemovalPolicy(policy), CACHE_Q);
        notes.push(format!(
            "disk {}: removal policy \"{}\" (the device's write cache {state}): {}",
            disk.number,
            policy,
            match policy {
                RemovalPolicy::QuickRemoval => {
                    "every write waits for the device; unplugging loses nothing"
                }
                RemovalPolicy::BetterPerformance => {
                    "writes are acknowledged from the device's cache; eject before unplugging"
                }
            }
        ));
    }
    if cache.flushes_ignored {
        notes.push(format!(
            "disk {}: \"turn off write-cache buffer flushing\" is set: flushes are dropped, so \
             durable figures are not durable",
            disk.number
        ));
    }
}

/// The transport a storage bus type names.
fn transport(bus: Bus) -> Transport {
    match bus {
        Bus::Usb => Transport::Usb,
        Bus::Sata => Transport::Sata,
        Bus::Ata => Transport::Ata,
        Bus::Sas => Transport::Sas,
        Bus::Scsi => Transport::Scsi,
        Bus::Nvme => Transport::Nvme,
        Bus::Ieee1394 => Transport::Firewire,
        Bus::Sd => Transport::Sd,
        Bus::Mmc => Transport::Mmc,
        Bus::Iscsi => Transport::Iscsi,
        other => Transport::Other(other.name()),
    }
}

/// The bus, from the adapter (or the device when the adapter did not answer). Windows'
/// storage queries do not give the negotiated link speed (SATA generation, USB speed, PCIe
/// lanes): the ceiling stays unknown, with that reason.
fn bus_node(disk: &Disk) -> Node {
    let (bus, origin) = match (&disk.adapter, &disk.device) {
        (Ok(a), _) => (Some(a.bus), ADAPTER_Q),
        (Err(_), Ok(d)) => (Some(d.bus), DEVICE_Q),
        _ => (None, ADAPTER_Q),
    };
    let Some(bus) = bus else {
        let mut n = Node::new(NodeKind::Transport, "bus not read");
        n.bandwidth = Bandwidth::Unknown {
            why: "neither the adapter nor the device answered IOCTL_STORAGE_QUERY_PROPERTY".into(),
        };
        return n;
    };
    let mut n = Node::new(NodeKind::Transport, bus.name());
    n.fact(Value::Transport(transport(bus)), origin);
    if let Ok(a) = &disk.adapter {
        n.other(
            "max transfer",
            format!("{} KiB", a.max_transfer / 1024),
            ADAPTER_Q,
        );
    }
    n.bandwidth = Bandwidth::Unknown {
        why: match bus {
            Bus::Virtual | Bus::FileBackedVirtual | Bus::Spaces => {
                "a virtual disk: the storage behind it is the limit".into()
            }
            _ => format!(
                "Windows' storage queries do not give the {} link's negotiated speed",
                bus.name()
            ),
        },
    };
    n
}

fn server_node(remote: &Remote) -> Node {
    let mut n = Node::new(NodeKind::Server, format!("server {}", remote.server));
    n.other("share", &remote.share, "the UNC path");
    n.other("unc", &remote.unc, "WNetGetConnectionW");
    match &remote.smb {
        Ok(c) => {
            n.fact(Value::SmbDialect(c.dialect.clone()), "Get-SmbConnection");
            n.fact(Value::Encryption(c.encrypted), "Get-SmbConnection");
            n.fact(Value::Signing(c.signed), "Get-SmbConnection");
        }
        Err(e) => n.other("SMB dialect", format!("not read: {e}"), "Get-SmbConnection"),
    }
    match &remote.interface {
        Ok(i) => n.children.push(interface_node(i)),
        Err(e) => {
            n.bandwidth = Bandwidth::Unknown {
                why: format!("the route to {} was not read: {e}", remote.server),
            };
        }
    }
    n
}

/// The interface routed to the server and its link speed from the links table (Ethernet at
/// its speed, Wi-Fi at its PHY rate); other kinds stay unknown.
pub fn interface_node(i: &Interface) -> Node {
    const ETHERNET: u32 = 6;
    const WIFI: u32 = 71;
    const SOURCE: &str = "GetBestInterfaceEx, GetIfEntry2";
    let mut n = Node::new(NodeKind::Interface, format!("interface {}", i.alias));
    n.other("description", &i.description, SOURCE);
    let mbit = i.transmit_bps as f64 / 1e6;
    // A Wi-Fi interface's transmit speed is its PHY rate, as macOS and Linux report it.
    let rate = Rate { mbit_s: mbit };
    match i.if_type {
        WIFI => n.fact(Value::PhyRate(rate), SOURCE),
        _ => n.fact(Value::LinkSpeed(rate), SOURCE),
    }
    let id = match i.if_type {
        ETHERNET => Some("ethernet"),
        WIFI => Some("wifi"),
        _ => None,
    };
    n.bandwidth = match id {
        Some(id) if i.transmit_bps > 0 && i.transmit_bps != u64::MAX => {
            let c = row(id).ceiling_of_rate(mbit);
            n.label = format!("{} {} on {}", c.link, c.rated, i.alias);
            Bandwidth::Known(c)
        }
        Some(_) => Bandwidth::Unknown {
            why: format!("{} reports no link speed", i.alias),
        },
        None => Bandwidth::Unknown {
            why: format!("interface type {} has no row in the links table", i.if_type),
        },
    };
    n
}
