//! `diskutil info -plist`: a volume, its APFS physical stores (or its partition) and the whole
//! disk under them, with the bus it is on.

use plist::{Dictionary, Value};

use super::{Tools, ioreg, origin};
use crate::probe::{Bandwidth, Node, NodeKind};

/// What `diskutil info -plist DEV` says of one device, the keys destbench reads.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DiskInfo {
    pub identifier: String,
    pub whole_disk: Option<String>,
    pub is_whole: bool,
    /// The disks an APFS container lives on (`APFSPhysicalStores`).
    pub physical_stores: Vec<String>,
    pub container: Option<String>,
    pub bus: Option<String>,
    pub internal: Option<bool>,
    /// Absent behind most USB bridges: macOS does not know.
    pub solid_state: Option<bool>,
    pub media_name: Option<String>,
    pub external: Option<bool>,
    pub device_tree_path: Option<String>,
    pub volume_name: Option<String>,
    pub filesystem: Option<String>,
}

/// Reads one `diskutil info -plist` output; None when it is not that plist.
pub fn parse(text: &str) -> Option<DiskInfo> {
    let value = Value::from_reader_xml(text.as_bytes()).ok()?;
    let d = value.as_dictionary()?;
    let string = |k: &str| d.get(k).and_then(Value::as_string).map(str::to_string);
    let boolean = |k: &str| d.get(k).and_then(Value::as_boolean);
    Some(DiskInfo {
        identifier: string("DeviceIdentifier")?,
        whole_disk: string("ParentWholeDisk"),
        is_whole: boolean("WholeDisk").unwrap_or(false),
        physical_stores: stores(d),
        container: string("APFSContainerReference"),
        bus: string("BusProtocol"),
        internal: boolean("Internal"),
        solid_state: boolean("SolidState"),
        media_name: string("MediaName").filter(|s| !s.is_empty()),
        external: boolean("RemovableMediaOrExternalDevice"),
        device_tree_path: string("DeviceTreePath"),
        volume_name: string("VolumeName").filter(|s| !s.is_empty()),
        filesystem: string("FilesystemType"),
    })
}

/// `APFSPhysicalStores`: an array of one-key dictionaries naming a disk.
fn stores(d: &Dictionary) -> Vec<String> {
    let Some(list) = d.get("APFSPhysicalStores").and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(Value::as_dictionary)
        .filter_map(|s| {
            s.get("APFSPhysicalStore")
                .or_else(|| s.get("DeviceIdentifier"))
                .and_then(Value::as_string)
                .map(str::to_string)
        })
        .collect()
}

fn info(dev: &str, tools: &dyn Tools) -> (Option<DiskInfo>, String) {
    let args = ["diskutil", "info", "-plist", dev];
    (
        tools.output(&args).as_deref().and_then(parse),
        origin(&args),
    )
}

fn unknown(kind: NodeKind, label: String, why: String) -> Node {
    let mut n = Node::new(kind, label);
    n.bandwidth = Bandwidth::Unknown { why };
    n
}

/// The volume `dev` (`disk3s5`) and everything under it, to the bus.
pub fn volume_node(dev: &str, tools: &dyn Tools) -> Node {
    let (Some(vol), src) = info(dev, tools) else {
        return unknown(
            NodeKind::Partition,
            format!("volume {dev}"),
            format!("`diskutil info -plist {dev}` gave nothing: the disk below is not known"),
        );
    };
    let mut node = Node::new(NodeKind::Partition, volume_label(&vol));
    if let Some(c) = &vol.container {
        node.other("APFS container", c, &src);
    }
    if vol.is_whole {
        // A filesystem on the whole disk (many USB sticks): the volume is the disk.
        return disk_node(&vol, &src, tools);
    }
    if vol.physical_stores.is_empty() {
        node.children.push(whole_disk(&vol, &src, tools));
        return node;
    }
    for store in &vol.physical_stores {
        node.other("APFS physical store", store, &src);
        node.children.push(store_node(store, tools));
    }
    node
}

fn volume_label(vol: &DiskInfo) -> String {
    let name = vol.volume_name.as_deref().unwrap_or("(no name)");
    match &vol.container {
        Some(c) => format!("APFS volume {} ({name}) in container {c}", vol.identifier),
        None => format!("volume {} ({name})", vol.identifier),
    }
}

/// A physical store of an APFS container (a partition, or a whole disk) and its disk.
fn store_node(store: &str, tools: &dyn Tools) -> Node {
    let (Some(part), src) = info(store, tools) else {
        return unknown(
            NodeKind::Partition,
            format!("physical store {store}"),
            format!("`diskutil info -plist {store}` gave nothing"),
        );
    };
    if part.is_whole {
        return disk_node(&part, &src, tools);
    }
    let mut node = Node::new(NodeKind::Partition, format!("partition {store}"));
    node.children.push(whole_disk(&part, &src, tools));
    node
}

/// The whole disk under a partition, from its `ParentWholeDisk`.
fn whole_disk(part: &DiskInfo, src: &str, tools: &dyn Tools) -> Node {
    let Some(parent) = &part.whole_disk else {
        return unknown(
            NodeKind::Disk,
            format!("disk of {}", part.identifier),
            format!("{src} names no ParentWholeDisk"),
        );
    };
    match info(parent, tools) {
        (Some(disk), src) => disk_node(&disk, &src, tools),
        (None, src) => unknown(
            NodeKind::Disk,
            format!("disk {parent}"),
            format!("`{src}` gave nothing"),
        ),
    }
}

/// A whole disk: what it is, and the bus above it.
fn disk_node(disk: &DiskInfo, src: &str, tools: &dyn Tools) -> Node {
    let name = disk.media_name.as_deref().unwrap_or("unnamed");
    let mut node = Node::new(NodeKind::Disk, format!("disk {} ({name})", disk.identifier));
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    if let Some(m) = &disk.media_name {
        node.fact(crate::probe::Value::Model(m.clone()), src);
    }
    node.fact(
        crate::probe::Value::Device(format!("/dev/{}", disk.identifier)),
        src,
    );
    match disk.solid_state {
        Some(ssd) => node.other("solid state", yes_no(ssd), src),
        None => node.other(
            "solid state",
            "not reported (usual behind a USB bridge)",
            src,
        ),
    }
    if let Some(i) = disk.internal {
        node.other("internal", yes_no(i), src);
    }
    if let Some(e) = disk.external {
        node.other("removable or external", yes_no(e), src);
    }
    if let Some(p) = &disk.device_tree_path {
        node.other("device tree path", p, src);
    }
    node.children.push(ioreg::bus_node(
        &disk.identifier,
        disk.bus.as_deref(),
        src,
        tools,
    ));
    node
}
