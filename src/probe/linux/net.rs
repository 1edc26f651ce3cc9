//! Network filesystems: the server named by the mount, the interface the kernel routes to it
//! (`/proc/net/route`, `/proc/net/ipv6_route`), and that interface's link speed. Virtual
//! interfaces (loopback, veth, tap, virtio-net...) report `-1` or a made-up `10000`: their speed
//! is unknown, never trusted.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::Path;

use super::mountinfo::MountEntry;
use super::{SysRoots, link_name, read, speed_fact};
use crate::probe::links::{row, trim_number};
use crate::probe::{Bandwidth, Node, NodeKind, Rate, Value};

/// Drivers of virtual NICs: their reported speeds describe no wire.
const VIRTUAL_DRIVERS: [&str; 7] = [
    "virtio_net",
    "veth",
    "tun",
    "xen-netfront",
    "hv_netvsc",
    "vmxnet3",
    "vif",
];

/// The server's host as the mount names it.
fn server_host(m: &MountEntry) -> Option<String> {
    if let Some(addr) = m.option("addr").filter(|a| !a.is_empty()) {
        return Some(addr.to_string());
    }
    let src = m.from.as_str();
    let host = match m.fstype.as_str() {
        // //host/share
        "cifs" | "smb3" => src.strip_prefix("//")?.split('/').next()?,
        // host:/export, [v6]:/export, mon1,mon2:/ (ceph)
        "nfs" | "nfs4" | "ceph" | "9p" => src.rsplit_once(":/").map_or(src, |(h, _)| h),
        // [user@]host:path
        "fuse.sshfs" => {
            let h = src.rsplit_once(':').map_or(src, |(h, _)| h);
            h.rsplit_once('@').map_or(h, |(_, h)| h)
        }
        _ => return None,
    };
    let host = host
        .split(',')
        .next()?
        .trim_start_matches('[')
        .trim_end_matches(']');
    (!host.is_empty()).then(|| host.to_string())
}

pub fn node(m: &MountEntry, roots: &SysRoots, notes: &mut Vec<String>) -> Node {
    let fs = m.fstype.as_str();
    if fs == "virtiofs" || (fs == "9p" && m.option("trans").is_none_or(|t| t == "virtio")) {
        let mut n = Node::new(
            NodeKind::Transport,
            format!("{fs}: a folder shared by the host"),
        );
        n.bandwidth = Bandwidth::Unknown {
            why: "a virtual shared folder: the host's storage and its file server are the limit"
                .into(),
        };
        return n;
    }
    if fs == "fuse.sshfs" {
        notes.push(format!(
            "{}: sshfs: encryption and one SSH connection often limit it before the wire does",
            m.mount_point.display()
        ));
    }
    let Some(host) = server_host(m) else {
        let mut n = Node::new(NodeKind::Server, format!("server of {}", m.from));
        n.bandwidth = Bandwidth::Unknown {
            why: match fs {
                "fuse.rclone" => "rclone names a remote from its own config; the server and route are not visible".into(),
                _ => format!("the server is not named in the mount source {:?}", m.from),
            },
        };
        return n;
    };
    let mut n = Node::new(NodeKind::Server, format!("server {host}"));
    n.other(
        "server",
        &host,
        if m.option("addr").is_some() {
            "/proc/self/mountinfo (addr=)"
        } else {
            "/proc/self/mountinfo (source)"
        },
    );
    let ip = host.parse::<IpAddr>().ok().or_else(|| {
        resolve(&host, roots).inspect(|ip| n.other("address", ip.to_string(), "resolver"))
    });
    let Some(ip) = ip else {
        n.bandwidth = Bandwidth::Unknown {
            why: format!("{host} could not be resolved to an address, so its route is unknown"),
        };
        return n;
    };
    match route(ip, roots) {
        Some((iface, how)) => {
            let mut i = interface(&iface, roots);
            i.other("route", how.0, how.1);
            n.children.push(i);
        }
        None => {
            n.bandwidth = Bandwidth::Unknown {
                why: format!("no route to {ip} found in /proc/net/route or /proc/net/ipv6_route"),
            };
        }
    }
    n
}

/// Host names are resolved only on this machine (a fixture names its servers by address).
fn resolve(host: &str, roots: &SysRoots) -> Option<IpAddr> {
    use std::net::ToSocketAddrs;
    if !roots.live {
        return None;
    }
    (host, 0).to_socket_addrs().ok()?.next().map(|a| a.ip())
}

/// The interface the kernel routes `ip` through, with how that was found (text, source).
fn route(ip: IpAddr, roots: &SysRoots) -> Option<(String, (String, String))> {
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    };
    if ip.is_loopback() {
        return Some((
            "lo".into(),
            (
                format!("{ip} is a loopback address"),
                "RFC 1122 / RFC 4291".into(),
            ),
        ));
    }
    match ip {
        IpAddr::V4(v4) => route_v4(v4, roots),
        IpAddr::V6(v6) => route_v6(v6, roots),
    }
}

const RTF_UP: u32 = 0x1;
const RTF_REJECT: u32 = 0x200;

fn route_v4(ip: Ipv4Addr, roots: &SysRoots) -> Option<(String, (String, String))> {
    let path = roots.proc.join("net/route");
    let text = std::fs::read_to_string(&path).ok()?;
    // The kernel prints each address as the native-endian u32 of its network-order bytes.
    let addr = |h: &str| {
        u32::from_str_radix(h, 16)
            .ok()
            .map(|v| Ipv4Addr::from(v.to_ne_bytes()))
    };
    let best = text
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            if f.len() < 8 {
                return None;
            }
            let flags = u32::from_str_radix(f[3], 16).ok()?;
            let (dest, mask) = (addr(f[1])?, addr(f[7])?);
            let metric: u32 = f[6].parse().ok()?;
            let m = u32::from(mask);
            (flags & RTF_UP != 0 && flags & RTF_REJECT == 0 && u32::from(ip) & m == u32::from(dest))
                .then(|| {
                    (
                        m.count_ones(),
                        metric,
                        f[0].to_string(),
                        format!("{dest}/{}", m.count_ones()),
                    )
                })
        })
        .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))?;
    Some((
        best.2.clone(),
        (
            format!("{ip} via {} ({})", best.2, best.3),
            "/proc/net/route".into(),
        ),
    ))
}

fn route_v6(ip: Ipv6Addr, roots: &SysRoots) -> Option<(String, (String, String))> {
    let text = std::fs::read_to_string(roots.proc.join("net/ipv6_route")).ok()?;
    let target = u128::from(ip);
    let best =
        text.lines()
            .filter_map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                if f.len() < 10 {
                    return None;
                }
                let dest = u128::from_str_radix(f[0], 16).ok()?;
                let len = u32::from_str_radix(f[1], 16).ok().filter(|l| *l <= 128)?;
                let metric = u32::from_str_radix(f[5], 16).ok()?;
                let flags = u32::from_str_radix(f[8], 16).ok()?;
                let mask = if len == 0 {
                    0
                } else {
                    u128::MAX << (128 - len)
                };
                (flags & RTF_UP != 0 && flags & RTF_REJECT == 0 && target & mask == dest & mask)
                    .then(|| {
                        (
                            len,
                            metric,
                            f[9].to_string(),
                            format!("{}/{len}", Ipv6Addr::from(dest)),
                        )
                    })
            })
            .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))?;
    Some((
        best.2.clone(),
        (
            format!("{ip} via {} ({})", best.2, best.3),
            "/proc/net/ipv6_route".into(),
        ),
    ))
}

/// An interface and its speed, read from `/sys/class/net/IFACE`.
fn interface(name: &str, roots: &SysRoots) -> Node {
    let dir = roots.sys(&format!("class/net/{name}"));
    let shown = roots.shown(&dir);
    let mut n = Node::new(NodeKind::Interface, format!("interface {name}"));
    let speed = speed_fact(&mut n, &dir, &shown);
    let driver = link_name(&dir.join("device/driver"));
    if let Some(d) = &driver {
        n.other("driver", d, format!("{shown}/device/driver"));
    }
    if dir.join("wireless").is_dir() || dir.join("phy80211").exists() {
        wifi_link(&mut n, name, roots);
    } else if let Some(kind) = virtual_kind(name, &dir, driver.as_deref()) {
        virtual_link(&mut n, name, &kind, speed.as_deref());
    } else {
        ethernet_link(&mut n, name, speed.as_deref());
    }
    n
}

/// What kind of virtual interface the one at `dir` is, if it is one.
fn virtual_kind(name: &str, dir: &Path, driver: Option<&str>) -> Option<String> {
    let canonical = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let loopback = read(&dir.join("type")).as_deref() == Some("772") || name == "lo";
    if loopback {
        Some("loopback".to_string())
    } else if dir.join("tun_flags").is_file() {
        Some("tun/tap".to_string())
    } else if let Some(d) = driver.filter(|d| VIRTUAL_DRIVERS.contains(d)) {
        Some(d.to_string())
    } else if canonical.components().any(|c| c.as_os_str() == "virtual") {
        Some("virtual".to_string())
    } else {
        None
    }
}

/// A Wi-Fi interface: its ceiling from the PHY bitrate, where `iw` tells it.
fn wifi_link(n: &mut Node, name: &str, roots: &SysRoots) {
    n.label = format!("interface {name} (Wi-Fi)");
    match wifi_bitrate(name, roots) {
        Some((mbit, src)) => {
            n.fact(Value::PhyRate(Rate { mbit_s: mbit }), src);
            let c = row("wifi").ceiling_of_rate(mbit);
            n.label = format!("interface {name} (Wi-Fi, {} Mbit/s PHY)", trim_number(mbit));
            n.bandwidth = Bandwidth::Known(c);
        }
        None => {
            n.bandwidth = Bandwidth::Unknown {
                why: "Wi-Fi: the PHY bitrate is not in sysfs, and `iw` did not report it".into(),
            };
        }
    }
}

/// A virtual interface: whatever speed it reports describes no wire.
fn virtual_link(n: &mut Node, name: &str, kind: &str, speed: Option<&str>) {
    n.label = if kind == "virtual" {
        format!("interface {name} (virtual)")
    } else {
        format!("interface {name} ({kind}, virtual)")
    };
    n.bandwidth = Bandwidth::Unknown {
        why: match speed {
            Some(s) => {
                format!("{name} is virtual ({kind}): the speed it reports ({s}) describes no wire")
            }
            None => format!("{name} is virtual ({kind}) and reports no speed"),
        },
    };
}

/// An Ethernet interface: its ceiling from the link speed, when the link is up and says.
fn ethernet_link(n: &mut Node, name: &str, speed: Option<&str>) {
    match speed.and_then(|s| s.parse::<i64>().ok()).filter(|s| *s > 0) {
        Some(mbit) => {
            let c = row("ethernet").ceiling_of_rate(mbit as f64);
            n.label = format!("interface {name} (Ethernet, {mbit} Mbit/s)");
            n.bandwidth = Bandwidth::Known(c);
        }
        None => {
            n.bandwidth = Bandwidth::Unknown {
                why: format!(
                    "{name} reports no link speed ({}): link down, or the driver does not say",
                    speed.unwrap_or("no speed file")
                ),
            };
        }
    }
}

/// The Wi-Fi PHY (tx) bitrate from `iw dev IFACE link` (nl80211 only: sysfs lacks it).
fn wifi_bitrate(name: &str, roots: &SysRoots) -> Option<(f64, String)> {
    let text = match &roots.iw_outputs {
        Some(dir) => std::fs::read_to_string(dir.join(format!("{name}.link"))).ok()?,
        None => {
            let out = std::process::Command::new("iw")
                .args(["dev", name, "link"])
                .output()
                .ok()?;
            String::from_utf8_lossy(&out.stdout).into_owned()
        }
    };
    let mbit = text.lines().find_map(|l| {
        let rest = l.trim().strip_prefix("tx bitrate:")?;
        rest.split_whitespace().next()?.parse::<f64>().ok()
    })?;
    Some((mbit, format!("iw dev {name} link")))
}
