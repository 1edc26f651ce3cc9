//! The Windows chain from fixtures of the real structures (`tests/fixtures/windows/`, made by
//! `tests/fixtures/windows/make.py` from winioctl.h's layouts; its README says where each value
//! comes from).

use std::path::PathBuf;

use super::chain::{self, Below, Disk, Interface, Remote, Volume};
use super::decode::{self, Bus, WriteCache};
use crate::probe::{Bandwidth, NodeKind};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/windows")
        .join(name)
}

/// The bytes of a `.hex` fixture: hex pairs, `#` to the end of a line a comment.
fn bytes(name: &str) -> Vec<u8> {
    let text = std::fs::read_to_string(fixture(&format!("{name}.hex"))).unwrap();
    text.lines()
        .flat_map(|line| line.split('#').next().unwrap_or("").split_whitespace())
        .map(|pair| u8::from_str_radix(pair, 16).unwrap())
        .collect()
}

fn json(name: &str) -> String {
    std::fs::read_to_string(fixture(name)).unwrap()
}

/// A disk as `live.rs` would gather it, from the fixtures named `{disk}.*`; a missing fixture is
/// a query the device did not answer.
pub(in crate::probe) fn disk(number: u32, disk: &str, cache: &str) -> Disk {
    let answer = |what: &str| {
        let path = fixture(&format!("{disk}.{what}.hex"));
        if path.exists() {
            Ok(bytes(&format!("{disk}.{what}")))
        } else {
            Err("Incorrect function. (os error 1)".to_string())
        }
    };
    Disk {
        number,
        device: answer("device").and_then(|b| decode::device(&b)),
        adapter: answer("adapter").and_then(|b| decode::adapter(&b)),
        seek_penalty: answer("seek").and_then(|b| decode::seek_penalty(&b)),
        trim: answer("trim").and_then(|b| decode::trim(&b)),
        cache: answer(cache).and_then(|b| decode::write_cache(&b)),
    }
}

pub(in crate::probe) fn local(root: &str, fs: &str, disks: Vec<Disk>) -> Volume {
    Volume {
        path: PathBuf::from(format!("{root}Backups")),
        root: root.into(),
        filesystem: Ok(fs.into()),
        label: Some("Backup".into()),
        below: Below::Disks(Ok(disks)),
    }
}

#[test]
fn a_sata_ssd_is_sata_with_trim_no_seek_penalty_and_its_cache_on() {
    let d = disk(0, "sata-ssd", "cache");
    let device = d.device.clone().unwrap();
    assert_eq!(device.vendor, None);
    assert_eq!(device.product.as_deref(), Some("Samsung SSD 860 EVO 500GB"));
    assert_eq!(device.serial.as_deref(), Some("S3Z2NB0K123456A"));
    assert_eq!((device.bus, device.removable), (Bus::Sata, false));
    assert_eq!(d.adapter.clone().unwrap().max_transfer, 128 * 1024);
    assert_eq!(
        (d.seek_penalty.clone(), d.trim.clone()),
        (Ok(false), Ok(true))
    );
    assert_eq!(d.cache.clone().unwrap().cache, WriteCache::Enabled);
    let c = chain::chain(&local(r"C:\", "NTFS", vec![d]));
    let disk = &c.root.children[0];
    assert_eq!(disk.kind, NodeKind::Disk);
    assert_eq!(disk.label, "disk 0: Samsung SSD 860 EVO 500GB");
    assert_eq!(disk.said("rotational").as_deref(), Some("no"));
    assert_eq!(disk.said("trim").as_deref(), Some("yes"));
    assert_eq!(disk.said("write cache").as_deref(), Some("on"));
    // A fixed disk has no removal policy.
    assert_eq!(disk.said("removal policy").as_deref(), None);
    let bus = &disk.children[0];
    assert_eq!(
        (bus.kind, bus.label.as_str()),
        (NodeKind::Transport, "SATA")
    );
    assert!(matches!(&bus.bandwidth, Bandwidth::Unknown { why } if why.contains("SATA link")));
    assert!(c.notes.is_empty());
}

#[test]
fn an_nvme_disk_is_nvme_and_its_cache_cannot_be_switched() {
    let d = disk(1, "nvme", "cache");
    assert_eq!(d.device.clone().unwrap().bus, Bus::Nvme);
    assert_eq!(d.adapter.clone().unwrap().bus, Bus::Nvme);
    assert_eq!(d.cache.clone().unwrap().changeable, Some(false));
    let c = chain::chain(&local(r"D:\", "ReFS", vec![d]));
    assert_eq!(c.root.label, r"ReFS at D:\");
    let disk = &c.root.children[0];
    assert_eq!(disk.said("vendor").as_deref(), Some("NVMe"));
    assert_eq!(disk.said("write cache changeable").as_deref(), Some("no"));
    assert_eq!(disk.children[0].label, "NVMe");
}

#[test]
fn a_usb3_disk_names_better_performance_and_quick_removal_from_its_cache() {
    for (cache, state, policy) in [
        ("cache-on", "on", "better performance"),
        ("cache-off", "off", "quick removal"),
    ] {
        let d = disk(2, "usb3-disk", cache);
        assert_eq!(d.device.clone().unwrap().bus, Bus::Usb);
        assert_eq!(d.seek_penalty.clone(), Ok(true), "a spinning disk");
        let c = chain::chain(&local(r"E:\", "exFAT", vec![d]));
        let disk = &c.root.children[0];
        assert_eq!(disk.said("write cache").as_deref(), Some(state), "{cache}");
        assert_eq!(
            disk.said("removal policy").as_deref(),
            Some(policy),
            "{cache}"
        );
        assert_eq!(disk.said("rotational").as_deref(), Some("yes"));
        assert_eq!(disk.children[0].label, "USB");
        assert_eq!(c.notes.len(), 1, "{:?}", c.notes);
        assert!(
            c.notes[0].contains(&format!("\"{policy}\"")),
            "{:?}",
            c.notes
        );
    }
}

#[test]
fn a_usb2_stick_is_removable_under_quick_removal_and_its_missing_answers_say_so() {
    let d = disk(3, "usb2-stick", "cache");
    let device = d.device.clone().unwrap();
    assert_eq!(
        (device.vendor.as_deref(), device.removable),
        (Some("SanDisk"), true)
    );
    let c = chain::chain(&local(r"F:\", "FAT32", vec![d]));
    let disk = &c.root.children[0];
    assert_eq!(disk.said("removable media").as_deref(), Some("yes"));
    assert_eq!(
        disk.said("removal policy").as_deref(),
        Some("quick removal")
    );
    // The stick answers neither the seek-penalty nor the TRIM query: the chain says so.
    assert!(
        disk.said("rotational")
            .as_deref()
            .unwrap()
            .starts_with("not read: ")
    );
    assert!(
        disk.said("trim")
            .as_deref()
            .unwrap()
            .starts_with("not read: ")
    );
}

#[test]
fn volume_extents_list_each_disk_of_a_spanned_volume() {
    let one = decode::disk_extents(&bytes("sata-ssd.extents")).unwrap();
    assert_eq!(one.len(), 1);
    assert_eq!((one[0].disk, one[0].offset), (0, 0x100000));
    let two = decode::disk_extents(&bytes("spanned.extents")).unwrap();
    assert_eq!(two.iter().map(|e| e.disk).collect::<Vec<_>>(), [0, 1]);
    // A structure cut short is an error that says so, never a panic.
    let cut = &bytes("spanned.extents")[..20];
    assert!(
        decode::disk_extents(cut)
            .unwrap_err()
            .contains("fewer than")
    );
    assert!(decode::device(&[0; 10]).is_err());
    // A volume that lists no disk (as wine's does) says so instead of ending the chain there.
    let c = chain::chain(&local(r"Z:\", "NTFS", Vec::new()));
    assert!(matches!(&c.root.bandwidth, Bandwidth::Unknown { why } if why.contains("no disk")));
}

pub(in crate::probe) fn share(json_name: &str, interface: Interface) -> Volume {
    let smb = decode::smb_connections(&json(json_name))
        .unwrap()
        .into_iter()
        .find(|c| c.share_name == "backup")
        .ok_or_else(|| "none".to_string());
    Volume {
        path: PathBuf::from(r"\\nas\backup\pc"),
        root: decode::plain_root(r"\\?\UNC\nas\backup\"),
        filesystem: Ok("NTFS".into()),
        label: None,
        below: Below::Remote(Remote {
            unc: r"\\nas\backup".into(),
            server: "nas".into(),
            share: "backup".into(),
            smb,
            interface: Ok(interface),
        }),
    }
}

#[test]
fn an_smb_311_share_on_ethernet_is_limited_by_the_ethernet_link() {
    let c = chain::chain(&share(
        "smb-ethernet.json",
        Interface {
            alias: "Ethernet".into(),
            description: "Intel(R) Ethernet Connection (7) I219-V".into(),
            if_type: 6,
            transmit_bps: 1_000_000_000,
        },
    ));
    assert_eq!(c.root.label, r"NTFS at \\nas\backup\");
    let server = &c.root.children[0];
    assert_eq!(
        (server.kind, server.label.as_str()),
        (NodeKind::Server, "server nas")
    );
    assert_eq!(server.said("SMB dialect").as_deref(), Some("3.1.1"));
    assert_eq!(server.said("encryption").as_deref(), Some("off"));
    let iface = &server.children[0];
    assert_eq!(iface.kind, NodeKind::Interface);
    let Bandwidth::Known(ceiling) = &iface.bandwidth else {
        panic!("{:?}", iface.bandwidth)
    };
    assert_eq!(
        (ceiling.row.as_str(), ceiling.rated.as_str()),
        ("ethernet", "1000 Mbit/s")
    );
    assert_eq!(ceiling.practical_mb_s, 117.5);
    assert!(c.is_network());
}

#[test]
fn an_smb_311_share_on_wifi_is_limited_by_the_phy_rate() {
    let c = chain::chain(&share(
        "smb-wifi.json",
        Interface {
            alias: "Wi-Fi".into(),
            description: "Intel(R) Wi-Fi 6 AX201 160MHz".into(),
            if_type: 71,
            transmit_bps: 866_700_000,
        },
    ));
    let server = &c.root.children[0];
    // The share's own entry among the connections to that server.
    assert_eq!(server.said("encryption").as_deref(), Some("on"));
    let Bandwidth::Known(ceiling) = &server.children[0].bandwidth else {
        panic!("{:?}", server.children[0].bandwidth)
    };
    assert_eq!(
        (ceiling.row.as_str(), ceiling.rated.as_str()),
        ("wifi", "866.7 Mbit/s")
    );
    assert_eq!(ceiling.practical_mb_s, 70.4);
}

#[test]
fn an_interface_without_a_speed_or_a_row_stays_unknown() {
    let node = chain::interface_node(&Interface {
        alias: "Loopback".into(),
        description: "Software Loopback Interface 1".into(),
        if_type: 24,
        transmit_bps: 1_073_741_824,
    });
    assert!(matches!(node.bandwidth, Bandwidth::Unknown { .. }));
    assert!(decode::smb_connections("").is_err());
    assert_eq!(decode::unc_server_share(r"\\nas"), None);
    assert_eq!(decode::plain_root(r"\\?\E:\"), r"E:\");
    assert_eq!(decode::plain_root(r"\\?\Volume{1}\"), r"\\?\Volume{1}\");
}

#[test]
fn the_verdict_names_the_removal_policy_the_writes_were_measured_under() {
    for (cache, policy) in [
        ("cache-off", "quick removal"),
        ("cache-on", "better performance"),
    ] {
        let c = chain::chain(&local(r"E:\", "NTFS", vec![disk(2, "usb3-disk", cache)]));
        let verdict = crate::verdict::judge(Some(&c), &[]);
        let line = verdict
            .details
            .iter()
            .find(|d| d.contains("removal policy") || d.contains(policy))
            .unwrap_or_else(|| panic!("{:?}", verdict.details));
        assert!(
            line.starts_with(&format!("disk 2: Elements 25A2: \"{policy}\"")),
            "{line}"
        );
    }
    let fixed = chain::chain(&local(r"C:\", "NTFS", vec![disk(0, "sata-ssd", "cache")]));
    let verdict = crate::verdict::judge(Some(&fixed), &[]);
    assert!(
        !verdict.details.iter().any(|d| d.contains("removal")),
        "{:?}",
        verdict.details
    );
}

#[test]
fn a_physical_drive_has_smartctls_name() {
    let names: Vec<String> = [0, 1, 25, 26, 27, 51, 52]
        .into_iter()
        .map(chain::smartctl_name)
        .collect();
    assert_eq!(
        names,
        [
            "/dev/sda",
            "/dev/sdb",
            "/dev/sdz",
            "/dev/sdaa",
            "/dev/sdab",
            "/dev/sdaz",
            "/dev/sdba"
        ]
    );
}
