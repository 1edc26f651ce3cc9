//! The buses between a disk and the machine, found by walking the disk's ancestors in
//! `/sys/devices`: USB (negotiated `speed`, `uas` or `usb-storage` driver), SATA (link
//! generation), NVMe (its transport), the slowest PCIe link on the path, Thunderbolt, virtio.

use std::path::Path;

use super::{SysRoots, link_name, rate_fact, read, speed_fact};
use crate::probe::links::{row, trim_number, usb_row};
use crate::probe::{Bandwidth, Node, NodeKind, Transport, Value};

/// The transport nodes above the disk whose sysfs directory is `dir`, nested from the
/// device towards the machine; None when no known bus is found.
pub fn chain(dir: &Path, roots: &SysRoots) -> Option<Node> {
    let top = roots.sys("devices");
    let ancestors: Vec<&Path> = dir
        .ancestors()
        .skip(1)
        .take_while(|p| p.starts_with(&top) && *p != top)
        .collect();
    let mut found: Vec<Node> = Vec::new();
    if let Some(v) = virtio(&ancestors, roots) {
        // A virtual disk: the PCI "link" the hypervisor shows is not a wire.
        found.push(v);
    } else {
        found.extend(usb(&ancestors, roots));
        found.extend(sata(&ancestors, roots));
        found.extend(nvme(&ancestors, roots));
        found.extend(iscsi(&ancestors));
        let pcie = pcie(&ancestors, roots);
        let external = pcie.as_ref().is_some_and(|(_, removable)| *removable);
        found.extend(pcie.map(|(n, _)| n));
        if external {
            found.push(thunderbolt(roots));
        }
    }
    // Nest: each bus is the child of the one nearer the device.
    found.into_iter().rev().reduce(|child, mut parent| {
        parent.children.push(child);
        parent
    })
}

fn dir_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn numbered(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()))
}

fn virtio(ancestors: &[&Path], roots: &SysRoots) -> Option<Node> {
    let dev = ancestors
        .iter()
        .find(|p| numbered(&dir_name(p), "virtio"))?;
    let mut n = Node::new(NodeKind::Transport, "virtio (virtual disk)");
    n.fact(Value::Transport(Transport::Virtio), roots.shown(dev));
    if let Some(driver) = link_name(&dev.join("driver")) {
        n.other("driver", driver, format!("{}/driver", roots.shown(dev)));
    }
    n.bandwidth = Bandwidth::Unknown {
        why:
            "a virtual disk: the host's storage behind it is the limit, and the guest cannot see it"
                .into(),
    };
    Some(n)
}

fn usb(ancestors: &[&Path], roots: &SysRoots) -> Option<Node> {
    // The nearest USB device (it has idVendor and speed), and the interface right below it
    // (`1-1:1.0`): its driver (usb-storage or uas) is the transport's. The SCSI nodes further
    // down (`0:0:0:0`) carry their own driver, `sd`, which says nothing about the transport.
    let dev_index = ancestors
        .iter()
        .position(|p| p.join("idVendor").is_file() && p.join("speed").is_file())?;
    let dev = ancestors[dev_index];
    let shown = roots.shown(dev);
    let driver = dev_index
        .checked_sub(1)
        .map(|i| ancestors[i])
        .and_then(|p| link_name(&p.join("driver")).map(|d| (d, roots.shown(p))));
    let mut n = Node::new(NodeKind::Transport, "USB");
    n.fact(Value::Transport(Transport::Usb), &shown);
    let speed = speed_fact(&mut n, dev, &shown);
    for (key, file) in [
        (crate::probe::health::USB_VENDOR, "idVendor"),
        ("version", "version"),
        ("product", "product"),
        ("manufacturer", "manufacturer"),
    ] {
        if let Some(v) = read(&dev.join(file)) {
            n.other(key, v, format!("{shown}/{file}"));
        }
    }
    let uas = match &driver {
        Some((d, src)) => {
            n.other("driver", d, format!("{src}/driver"));
            match d.as_str() {
                "uas" => Some(true),
                "usb-storage" => Some(false),
                _ => None,
            }
        }
        None => None,
    };
    let protocol = match uas {
        Some(true) => "UAS",
        Some(false) => "BOT",
        None => "driver unknown",
    };
    let id = speed
        .as_deref()
        .and_then(|s| s.parse::<f64>().ok())
        .and_then(|mbit| usb_row(mbit, uas));
    match id {
        Some(id) => {
            let c = row(id).ceiling();
            n.label = match id {
                "usb2-bot" | "usb2-uas" | "usb3g1-bot" | "usb3g1-uas" => c.link.clone(),
                _ => format!("{} ({protocol})", c.link),
            };
            if uas.is_none() {
                n.label = format!("{} (driver unknown: UAS ceiling assumed)", c.link);
            }
            n.bandwidth = Bandwidth::Known(c);
        }
        None => {
            n.label = format!("USB ({protocol})");
            n.bandwidth = Bandwidth::Unknown {
                why: match speed {
                    Some(s) => format!("USB speed {s} Mbit/s has no row in the links table"),
                    None => "the USB device reports no speed".into(),
                },
            };
        }
    }
    Some(n)
}

fn sata(ancestors: &[&Path], roots: &SysRoots) -> Option<Node> {
    let port = ancestors.iter().find(|p| numbered(&dir_name(p), "ata"))?;
    let number = dir_name(port).trim_start_matches("ata").to_string();
    // ataN/linkN/ata_link/linkN/sata_spd; /sys/class/ata_link/linkN is the same directory.
    let candidates = [
        port.join(format!("link{number}/ata_link/link{number}/sata_spd")),
        roots.sys(&format!("class/ata_link/link{number}/sata_spd")),
    ];
    let spd = candidates
        .iter()
        .find_map(|p| read(p).map(|v| (v, roots.shown(p))));
    let mut n = Node::new(NodeKind::Transport, format!("ATA port ata{number}"));
    n.fact(Value::Transport(Transport::Sata), roots.shown(port));
    let id = match spd.as_ref().map(|(v, _)| v.as_str()) {
        Some("1.5 Gbps") => Some("sata1"),
        Some("3.0 Gbps") => Some("sata2"),
        Some("6.0 Gbps") => Some("sata3"),
        _ => None,
    };
    if let Some((v, src)) = &spd {
        rate_fact(&mut n, Value::LinkSpeed, "link speed", v, src.clone());
    }
    match id {
        Some(id) => {
            let c = row(id).ceiling();
            n.label = format!("{} ({})", c.link, spd.map(|s| s.0).unwrap_or_default());
            n.bandwidth = Bandwidth::Known(c);
        }
        None => {
            n.bandwidth = Bandwidth::Unknown {
                why: "the ATA link reports no SATA speed (PATA, or the link is down)".into(),
            };
        }
    }
    Some(n)
}

fn nvme(ancestors: &[&Path], roots: &SysRoots) -> Option<Node> {
    let ctrl = ancestors.iter().find(|p| {
        numbered(&dir_name(p), "nvme") && p.parent().is_some_and(|q| dir_name(q) == "nvme")
    })?;
    let transport = read(&ctrl.join("transport"));
    let mut n = Node::new(
        NodeKind::Transport,
        format!(
            "NVMe over {}",
            transport.as_deref().unwrap_or("an unknown transport")
        ),
    );
    n.fact(Value::Transport(Transport::Nvme), roots.shown(ctrl));
    if let Some(t) = &transport {
        n.other(
            "NVMe transport",
            t,
            format!("{}/transport", roots.shown(ctrl)),
        );
    }
    if transport.as_deref() != Some("pcie") {
        // NVMe over fabrics (tcp, rdma, fc) or loop: the fabric's own link is not followed.
        n.bandwidth = Bandwidth::Unknown {
            why: "NVMe over a fabric: the fabric's link speed is not followed".into(),
        };
    }
    Some(n)
}

fn iscsi(ancestors: &[&Path]) -> Option<Node> {
    ancestors
        .iter()
        .find(|p| numbered(&dir_name(p), "session"))?;
    let mut n = Node::new(NodeKind::Transport, "iSCSI session");
    n.bandwidth = Bandwidth::Unknown {
        why: "iSCSI: the network path to the target is not followed".into(),
    };
    Some(n)
}

/// "8.0 GT/s PCIe" (or "8 GT/s") -> the table row of that generation.
fn pcie_row(speed: &str) -> Option<&'static str> {
    let gt: f64 = speed.split_whitespace().next()?.parse().ok()?;
    [
        (2.5, "pcie1"),
        (5.0, "pcie2"),
        (8.0, "pcie3"),
        (16.0, "pcie4"),
        (32.0, "pcie5"),
    ]
    .iter()
    .find(|(g, _)| (gt - g).abs() < 0.01)
    .map(|(_, id)| *id)
}

/// The slowest PCIe link on the path, and whether the path leaves the machine (a device behind
/// an external, hot-pluggable port: Thunderbolt / USB4).
fn pcie(ancestors: &[&Path], roots: &SysRoots) -> Option<(Node, bool)> {
    let mut n = Node::new(NodeKind::Transport, "PCIe");
    let mut slowest = None;
    let mut removable = false;
    for p in ancestors {
        let shown = roots.shown(p);
        if read(&p.join("removable")).as_deref() == Some("removable") {
            removable = true;
        }
        let (Some(speed), Some(width)) = (
            read(&p.join("current_link_speed")),
            read(&p.join("current_link_width")),
        ) else {
            continue;
        };
        let lanes: Option<u32> = width.parse().ok().filter(|w| *w > 0);
        n.other(
            &format!("link at {}", dir_name(p)),
            format!("{speed} x{width}"),
            format!("{shown}/current_link_speed, current_link_width"),
        );
        let (Some(id), Some(lanes)) = (pcie_row(&speed), lanes) else {
            continue;
        };
        let c = row(id).ceiling_lanes(lanes);
        let label = format!(
            "{} x{lanes} (slowest PCIe link on the path: {})",
            c.link,
            dir_name(p)
        );
        if slowest
            .as_ref()
            .is_none_or(|(s, _): &(crate::probe::Ceiling, String)| {
                c.practical_mb_s < s.practical_mb_s
            })
        {
            slowest = Some((c, label));
        }
    }
    if n.facts.is_empty() {
        return None;
    }
    n.fact(
        Value::Transport(Transport::Pcie),
        "the links above, in /sys/devices",
    );
    match slowest {
        Some((c, label)) => {
            n.label = label;
            n.bandwidth = Bandwidth::Known(c);
        }
        None => {
            n.bandwidth = Bandwidth::Unknown {
                why: "no PCIe link on the path reports a known speed and width".into(),
            };
        }
    }
    Some((n, removable))
}

/// The Thunderbolt / USB4 link to an external PCIe device. sysfs lists connected routers but
/// not which PCIe tunnel carries which disk, so only a single connected device is named.
fn thunderbolt(roots: &SysRoots) -> Node {
    let mut n = Node::new(NodeKind::Transport, "Thunderbolt / USB4");
    let base = roots.sys("bus/thunderbolt/devices");
    n.fact(Value::Transport(Transport::Thunderbolt), roots.shown(&base));
    let mut routers: Vec<std::path::PathBuf> = std::fs::read_dir(&base)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                // Routers are "D-R" (domain-route); route 0 is the host's own router.
                .filter(|p| {
                    let name = dir_name(p);
                    name.split_once('-').is_some_and(|(d, r)| {
                        !d.is_empty()
                            && d.bytes().all(|b| b.is_ascii_digit())
                            && r != "0"
                            && !r.contains('.')
                            && !r.contains(':')
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    routers.sort();
    let [router] = routers.as_slice() else {
        n.bandwidth = Bandwidth::Unknown {
            why: if routers.is_empty() {
                "the disk is behind an external PCIe port, but no Thunderbolt device is listed"
                    .into()
            } else {
                format!(
                    "{} Thunderbolt devices are connected; sysfs does not say which carries this disk",
                    routers.len()
                )
            },
        };
        return n;
    };
    let shown = roots.shown(router);
    let mut read_fact = |key: &str| {
        let v = read(&router.join(key));
        if let Some(v) = &v {
            n.other(key, v, format!("{shown}/{key}"));
        }
        v
    };
    read_fact("device_name");
    read_fact("vendor_name");
    let generation = read_fact("generation");
    let gbit: Option<f64> =
        read_fact("rx_speed").and_then(|s| s.split_whitespace().next()?.parse().ok());
    let lanes: Option<f64> = read_fact("rx_lanes").and_then(|s| s.parse().ok());
    let id = match generation.as_deref() {
        Some("1") => Some("tb1"),
        Some("2") => Some("tb2"),
        Some("3") => Some("tb3"),
        Some("4") => match gbit.zip(lanes) {
            Some((g, l)) if g * l <= 20.0 => Some("usb4-20"),
            Some(_) => Some("tb4"),
            None => None,
        },
        _ => None,
    };
    match id {
        Some(id) => {
            let c = row(id).ceiling();
            n.label = match gbit.zip(lanes) {
                Some((g, l)) => format!("{} ({} Gb/s x{l})", c.link, trim_number(g)),
                None => c.link.clone(),
            };
            n.bandwidth = Bandwidth::Known(c);
        }
        None => {
            n.bandwidth = Bandwidth::Unknown {
                why: "the Thunderbolt device reports no generation the links table knows".into(),
            };
        }
    }
    n
}
