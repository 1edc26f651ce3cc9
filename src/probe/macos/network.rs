//! A share's server and the wire to it: `smbutil statshares -m` (dialect, signing,
//! encryption, multichannel), `nfsstat -m`, `route -n get`, and the interface's speed from
//! `ifconfig` (Ethernet media) or `system_profiler SPAirPortDataType -xml` (Wi-Fi PHY rate).

use plist::Value;

use super::{MountFacts, Tools, origin};
use crate::probe::links::{row, trim_number};
use crate::probe::{self, Bandwidth, Node, NodeKind, Rate};

/// The server's host in a mount source: `//user@host/share`, `afp://host/share`,
/// `host:/export`.
pub fn server_host(from: &str) -> Option<String> {
    let rest = from.split_once("://").map_or(from, |(_, r)| r);
    let rest = rest.trim_start_matches('/');
    let host = if let Some((host, _)) = rest.split_once(":/") {
        host
    } else {
        let authority = rest.split('/').next()?;
        authority.rsplit_once('@').map_or(authority, |(_, h)| h)
    };
    (!host.is_empty() && !host.contains(char::is_whitespace)).then(|| host.to_string())
}

pub fn server_node(mount: &MountFacts, tools: &dyn Tools, notes: &mut Vec<String>) -> Node {
    let Some(host) = server_host(&mount.from) else {
        let mut n = Node::new(NodeKind::Server, format!("server of {}", mount.from));
        n.bandwidth = Bandwidth::Unknown {
            why: format!(
                "the server is not named in the mount source {:?}",
                mount.from
            ),
        };
        return n;
    };
    let mut n = Node::new(NodeKind::Server, format!("server {host}"));
    n.other("server", &host, "statfs (f_mntfromname)");
    match mount.fstype.as_str() {
        "smbfs" => smb_facts(&mut n, mount, tools, notes),
        "nfs" => nfs_facts(&mut n, mount, tools),
        _ => {}
    }
    let args = ["route", "-n", "get", host.as_str()];
    match tools.output(&args).as_deref().and_then(route_interface) {
        Some(iface) => {
            let mut i = interface_node(&iface, tools);
            i.other("route", format!("{host} via {iface}"), origin(&args));
            n.children.push(i);
        }
        None => {
            n.bandwidth = Bandwidth::Unknown {
                why: format!("`{}` named no interface", origin(&args)),
            }
        }
    }
    n
}

/// `smbutil statshares` attributes, in order (an attribute may repeat).
pub fn parse_statshares(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter(|l| l.starts_with(' '))
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            Some((words.next()?.to_string(), words.next()?.to_string()))
        })
        .collect()
}

fn smb_facts(n: &mut Node, mount: &MountFacts, tools: &dyn Tools, notes: &mut Vec<String>) {
    let args = ["smbutil", "statshares", "-m", mount.on.as_str()];
    let Some(text) = tools.output(&args) else {
        n.other(
            "SMB session",
            "smbutil statshares gave nothing",
            origin(&args),
        );
        return;
    };
    let attrs = parse_statshares(&text);
    let get = |k: &str| attrs.iter().find(|(a, _)| a == k).map(|(_, v)| v.as_str());
    let src = origin(&args);
    if let Some(v) = get("SMB_VERSION") {
        n.fact(
            probe::Value::SmbDialect(v.trim_start_matches("SMB_").into()),
            &src,
        );
    }
    let signing = get("SIGNING_ON") == Some("TRUE");
    n.fact(probe::Value::Signing(signing), &src);
    let cipher = get("SMB_CURR_ENCRYPT_ALGORITHM").filter(|c| *c != "OFF");
    n.fact(probe::Value::Encryption(cipher.is_some()), &src);
    if let Some(c) = cipher {
        n.other("cipher", c, &src);
    }
    let multichannel = get("MULTI_CHANNEL_SUPPORTED") == Some("TRUE");
    n.fact(probe::Value::Multichannel(multichannel), &src);
    if signing {
        notes.push(format!(
            "{}: SMB signing is on: every message is signed, which often caps a Mac's SMB throughput",
            mount.on
        ));
    }
    if let Some(c) = cipher {
        notes.push(format!(
            "{}: SMB encryption ({c}) is on: the CPU may limit it",
            mount.on
        ));
    }
}

/// The `NFS parameters:` of the current mount parameters of `on`, and the server's address,
/// from `nfsstat -m`.
pub fn parse_nfsstat(text: &str, on: &str) -> Option<(String, Option<String>)> {
    let mut lines = text
        .lines()
        .skip_while(|l| !l.starts_with(&format!("{on} from ")));
    lines.next()?;
    let block: Vec<&str> = lines.take_while(|l| l.starts_with(' ')).collect();
    let current = block
        .iter()
        .position(|l| l.contains("Current mount parameters"))?;
    let params = block[current..]
        .iter()
        .find_map(|l| l.trim().strip_prefix("NFS parameters:"))?
        .trim()
        .to_string();
    let address = block
        .iter()
        .find_map(|l| l.split_once(" @ ")?.1.split_once('(')?.1.strip_suffix(')'))
        .map(str::to_string);
    Some((params, address))
}

fn nfs_facts(n: &mut Node, mount: &MountFacts, tools: &dyn Tools) {
    let args = ["nfsstat", "-m"];
    let parsed = tools
        .output(&args)
        .and_then(|t| parse_nfsstat(&t, &mount.on));
    let Some((params, address)) = parsed else {
        n.other(
            "NFS",
            "nfsstat -m gave nothing for this mount",
            origin(&args),
        );
        return;
    };
    for p in params.split(',') {
        if let Some(v) = p.strip_prefix("vers=") {
            n.other("NFS version", v, origin(&args));
        }
        if p.starts_with("rsize=") || p.starts_with("wsize=") || p == "tcp" || p == "udp" {
            n.other("NFS parameter", p, origin(&args));
        }
    }
    if let Some(a) = address {
        n.other("address", a, origin(&args));
    }
}

/// The `interface:` of a `route -n get` output.
pub fn route_interface(text: &str) -> Option<String> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix("interface:"))
        .map(|i| i.trim().to_string())
        .filter(|i| !i.is_empty())
}

/// The speed in Mbit/s of an Ethernet `media:` line of `ifconfig` (`autoselect (1000baseT
/// <full-duplex>)`, `10Gbase-T`, `2500Base-T`).
pub fn ethernet_mbit(ifconfig: &str) -> Option<u64> {
    let media = ifconfig
        .lines()
        .find_map(|l| l.trim().strip_prefix("media:"))?;
    let active = media.rsplit_once('(').map_or(media, |(_, a)| a);
    let word = active.split_whitespace().next()?.to_ascii_lowercase();
    let (number, unit) = word.split_at(word.find(|c: char| !c.is_ascii_digit())?);
    let n: u64 = number.parse().ok()?;
    unit.starts_with("base")
        .then_some(n)
        .or_else(|| unit.starts_with("gbase").then_some(n * 1000))
}

/// The Wi-Fi interfaces of `system_profiler SPAirPortDataType -xml` with their PHY rate in
/// Mbit/s (None when not associated) and PHY mode.
pub fn wifi_interfaces(xml: &str) -> Vec<(String, Option<f64>, Option<String>)> {
    let Ok(value) = Value::from_reader_xml(xml.as_bytes()) else {
        return Vec::new();
    };
    let items = value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d.as_dictionary()?.get("_items")?.as_array())
        .flatten();
    let interfaces = items
        .filter_map(|i| {
            i.as_dictionary()?
                .get("spairport_airport_interfaces")?
                .as_array()
        })
        .flatten()
        .filter_map(Value::as_dictionary);
    interfaces
        .filter_map(|i| {
            let name = i.get("_name")?.as_string()?.to_string();
            let current = i
                .get("spairport_current_network_information")
                .and_then(Value::as_dictionary);
            let rate = current.and_then(|c| match c.get("spairport_network_rate")? {
                Value::Integer(n) => n.as_unsigned().map(|n| n as f64),
                Value::Real(r) => Some(*r),
                Value::String(s) => s.trim().parse().ok(),
                _ => None,
            });
            let phy = current
                .and_then(|c| c.get("spairport_network_phymode")?.as_string())
                .map(str::to_string);
            Some((name, rate, phy))
        })
        .collect()
}

fn interface_node(iface: &str, tools: &dyn Tools) -> Node {
    let mut n = Node::new(NodeKind::Interface, format!("interface {iface}"));
    let wifi_args = ["system_profiler", "SPAirPortDataType", "-xml"];
    let wifi = tools
        .output(&wifi_args)
        .map(|x| wifi_interfaces(&x))
        .unwrap_or_default();
    if let Some((_, rate, phy)) = wifi.into_iter().find(|(name, ..)| name == iface) {
        let src = origin(&wifi_args);
        n.label = format!("interface {iface} (Wi-Fi)");
        if let Some(phy) = phy {
            n.other("PHY mode", phy, &src);
        }
        match rate.filter(|r| *r > 0.0) {
            Some(mbit) => {
                n.fact(probe::Value::PhyRate(Rate { mbit_s: mbit }), &src);
                n.label = format!(
                    "interface {iface} (Wi-Fi, {} Mbit/s PHY)",
                    trim_number(mbit)
                );
                n.bandwidth = Bandwidth::Known(row("wifi").ceiling_of_rate(mbit));
            }
            None => {
                n.bandwidth = Bandwidth::Unknown {
                    why: format!("{iface} is Wi-Fi but `{src}` reports no transmit rate"),
                }
            }
        }
        return n;
    }
    let args = ["ifconfig", iface];
    match tools.output(&args).as_deref().and_then(ethernet_mbit) {
        Some(mbit) => {
            n.fact(
                probe::Value::LinkSpeed(Rate {
                    mbit_s: mbit as f64,
                }),
                origin(&args),
            );
            n.label = format!("interface {iface} (Ethernet, {mbit} Mbit/s)");
            n.bandwidth = Bandwidth::Known(row("ethernet").ceiling_of_rate(mbit as f64));
        }
        None => {
            n.bandwidth = Bandwidth::Unknown {
                why: format!(
                    "`{}` reports no media speed: link down, virtual, or not Ethernet",
                    origin(&args)
                ),
            }
        }
    }
    n
}
