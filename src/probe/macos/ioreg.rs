//! The bus above a whole disk, from the IORegistry (`ioreg -a`, a plist of the IOService plane
//! below each matching object): the USB device's negotiated speed and UAS or BOT, the PCIe link
//! of an NVMe controller and whether it is tunnelled through Thunderbolt.

use plist::{Dictionary, Value};

use super::{Tools, origin};
use crate::probe::links::{row, usb_row};
use crate::probe::{self, Bandwidth, Node, NodeKind, Rate, Transport};

const CHILDREN: &str = "IORegistryEntryChildren";

/// The objects from the root of `entry` down to the one whose `BSD Name` is `bsd`.
fn path_to<'a>(entry: &'a Dictionary, bsd: &str) -> Option<Vec<&'a Dictionary>> {
    if entry.get("BSD Name").and_then(Value::as_string) == Some(bsd) {
        return Some(vec![entry]);
    }
    let children = entry.get(CHILDREN).and_then(Value::as_array)?;
    children
        .iter()
        .filter_map(Value::as_dictionary)
        .find_map(|c| path_to(c, bsd))
        .map(|mut path| {
            path.insert(0, entry);
            path
        })
}

/// The path to `bsd` in an `ioreg -a -r -c CLASS` output (an array of subtrees), shortest
/// first: nested matches appear both on their own and inside their parents.
pub fn find<'a>(tree: &'a Value, bsd: &str) -> Option<Vec<&'a Dictionary>> {
    tree.as_array()?
        .iter()
        .filter_map(Value::as_dictionary)
        .filter_map(|d| path_to(d, bsd))
        .min_by_key(Vec::len)
}

fn class(d: &Dictionary) -> &str {
    d.get("IOObjectClass")
        .and_then(Value::as_string)
        .unwrap_or("")
}

fn integer(d: &Dictionary, key: &str) -> Option<u64> {
    d.get(key).and_then(Value::as_unsigned_integer)
}

fn unknown(label: String, why: String) -> Node {
    let mut n = Node::new(NodeKind::Transport, label);
    n.bandwidth = Bandwidth::Unknown { why };
    n
}

fn read_tree(class: &str, tools: &dyn Tools) -> (Option<Value>, String) {
    let args = ["ioreg", "-a", "-r", "-c", class];
    let tree = tools
        .output(&args)
        .and_then(|t| Value::from_reader_xml(t.as_bytes()).ok());
    (tree, origin(&args))
}

/// The bus of the whole disk `bsd`, as its `BusProtocol` names it (`bus`, read from
/// `disk_src`) and the IORegistry measures it.
pub fn bus_node(bsd: &str, bus: Option<&str>, disk_src: &str, tools: &dyn Tools) -> Node {
    let bus = bus.unwrap_or("");
    let mut node = match bus {
        "USB" => usb_node(bsd, tools),
        "PCI-Express" | "PCI" | "Thunderbolt" => pcie_node(bsd, bus, tools),
        "Apple Fabric" => unknown(
            "Apple Fabric (on the chip)".into(),
            "the SSD is on the Apple silicon chip's own fabric: macOS reports no link speed".into(),
        ),
        "Disk Image" => unknown(
            "disk image".into(),
            "a disk image: the storage holding its file is the limit".into(),
        ),
        "" => unknown(
            "bus not reported".into(),
            format!("{disk_src} names no BusProtocol"),
        ),
        other => unknown(
            other.to_string(),
            format!("{other}: this prober does not read its link speed on macOS"),
        ),
    };
    if !bus.is_empty() {
        node.fact(
            probe::Value::Transport(transport(bus)),
            format!("{disk_src} (BusProtocol)"),
        );
    }
    node
}

/// The transport a `BusProtocol` names.
fn transport(bus: &str) -> Transport {
    match bus {
        "USB" => Transport::Usb,
        "SATA" => Transport::Sata,
        "SAS" => Transport::Sas,
        "PCI-Express" | "PCI" => Transport::Pcie,
        "Thunderbolt" => Transport::Thunderbolt,
        "FireWire" => Transport::Firewire,
        "Secure Digital" => Transport::Sd,
        other => Transport::Other(other.into()),
    }
}

/// USB: the `IOUSBHostDevice` above the disk, its negotiated speed and the storage driver.
fn usb_node(bsd: &str, tools: &dyn Tools) -> Node {
    let (tree, src) = read_tree("IOUSBHostDevice", tools);
    let Some(path) = tree.as_ref().and_then(|t| find(t, bsd)) else {
        return unknown(
            "USB".into(),
            format!("no USB device above {bsd} in `{src}`"),
        );
    };
    let device = path[0];
    let uas = path.iter().any(|d| class(d).contains("UAS"));
    let protocol = if uas { "UAS" } else { "BOT" };
    let mbit = integer(device, "UsbLinkSpeed")
        .map(|bits| bits / 1_000_000)
        .or_else(|| usb_speed_mbit(integer(device, "USBSpeed")?));
    let mut node = Node::new(NodeKind::Transport, format!("USB ({protocol})"));
    if let Some(name) = device.get("USB Product Name").and_then(Value::as_string) {
        node.other("USB device", name, &src);
    }
    node.other("protocol", protocol, format!("{src} (driver class)"));
    let Some(mbit) = mbit else {
        node.bandwidth = Bandwidth::Unknown {
            why: format!("the USB device above {bsd} reports no speed"),
        };
        return node;
    };
    node.fact(
        probe::Value::LinkSpeed(Rate {
            mbit_s: mbit as f64,
        }),
        &src,
    );
    let Some(id) = usb_row(mbit as f64, Some(uas)) else {
        node.bandwidth = Bandwidth::Unknown {
            why: format!("USB speed {mbit} Mbit/s has no row in the links table"),
        };
        return node;
    };
    let ceiling = row(id).ceiling();
    node.label = ceiling.link.clone();
    node.bandwidth = Bandwidth::Known(ceiling);
    node
}

/// `USBSpeed` of an `IOUSBHostDevice`: IOUSBHostFamily's `tIOUSBHostConnectionSpeed`, the
/// XHCI speed IDs (1 full, 2 low, 3 high, 4 super, 5 super+, 6 super+ 2x2), in Mbit/s. (The
/// older `IOUSBDevice` enumeration, where 3 is super, is not this one.)
fn usb_speed_mbit(code: u64) -> Option<u64> {
    Some(match code {
        1 => 12,
        2 => 1,
        3 => 480,
        4 => 5000,
        5 => 10000,
        6 => 20000,
        _ => return None,
    })
}

/// PCIe: the nearest `IOPCIDevice` above the disk, its link status register, and whether it is
/// tunnelled (Thunderbolt).
fn pcie_node(bsd: &str, bus: &str, tools: &dyn Tools) -> Node {
    let (tree, src) = read_tree("IOPCIDevice", tools);
    let path = tree.as_ref().and_then(|t| find(t, bsd));
    let Some(device) = path.as_ref().and_then(|p| {
        p.iter()
            .rev()
            .find(|d| d.contains_key("IOPCIExpressLinkStatus"))
    }) else {
        return unknown(
            bus.to_string(),
            format!("no PCIe device with a link status above {bsd} in `{src}`"),
        );
    };
    let status = integer(device, "IOPCIExpressLinkStatus").unwrap_or(0);
    // The PCIe Link Status register: speed in bits 0-3, negotiated width in bits 4-9.
    let (generation, width) = (status & 0xf, (status >> 4) & 0x3f);
    let mut node = Node::new(
        NodeKind::Transport,
        format!("PCIe Gen{generation} x{width}"),
    );
    node.other(
        "link",
        format!("Gen{generation} x{width} (status {status:#x})"),
        format!("{src} (IOPCIExpressLinkStatus)"),
    );
    match (generation, u32::try_from(width)) {
        (1..=5, Ok(w)) if w > 0 => {
            node.bandwidth = Bandwidth::Known(row(&format!("pcie{generation}")).ceiling_lanes(w))
        }
        _ => {
            node.bandwidth = Bandwidth::Unknown {
                why: format!("link status {status:#x} names no PCIe generation and width"),
            }
        }
    }
    let tunnelled = device.get("IOPCITunnelled").and_then(Value::as_boolean) == Some(true);
    if tunnelled || bus == "Thunderbolt" {
        node.children.push(unknown(
            "Thunderbolt".into(),
            "the PCIe link is tunnelled through Thunderbolt (IOPCITunnelled); its generation is not read, so the tunnel's ceiling is unknown".into(),
        ));
    }
    node
}
