//! The macOS chain built from captured-shape outputs (`tests/fixtures/macos/`, one folder per
//! machine; its README says where each shape comes from), on any platform.

use std::path::{Path, PathBuf};

use super::timemachine::{self, LoggedBackup, SpeedCheck};
use super::{MountFacts, Tools, chain, network};
use crate::probe::{Bandwidth, Chain, Key, Node, NodeKind, Value};

/// Outputs read from `tests/fixtures/macos/<machine>/`, one file per command line (spaces as `_`, slashes
/// as `%`); `log show ...` is the file `log_show`.
struct Fixture(PathBuf);

impl Tools for Fixture {
    fn output(&self, args: &[&str]) -> Option<String> {
        let name = if args.first() == Some(&"log") {
            "log_show".to_string()
        } else {
            args.join("_").replace('/', "%")
        };
        std::fs::read_to_string(self.0.join(name)).ok()
    }
}

fn fixture(machine: &str) -> Fixture {
    Fixture(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/macos")
            .join(machine),
    )
}

/// The chain of `machine`'s fixtures for `mount`: "FSTYPE FROM ON", the mount point last (it
/// may hold spaces).
pub(in crate::probe) fn probe(machine: &str, mount: &str) -> Chain {
    let mut fields = mount.splitn(3, ' ');
    let mut field = || fields.next().expect("FSTYPE FROM ON");
    let (fstype, from, on) = (field(), field(), field());
    let mount = MountFacts {
        fstype: fstype.into(),
        from: from.into(),
        on: on.into(),
    };
    chain(Path::new(on), &mount, &fixture(machine), None)
}

/// The labels of the chain's nodes, path to wire.
fn labels(c: &Chain) -> Vec<&str> {
    c.nodes().iter().map(|n| n.label.as_str()).collect()
}

/// The first node of the chain that `which` picks.
fn node(c: &Chain, which: impl Fn(&Node) -> bool) -> &Node {
    c.nodes()
        .into_iter()
        .find(|n| which(n))
        .expect("no such node")
}

/// Asserts each fact `(key, value)` of `node`.
fn assert_facts(node: &Node, facts: &[(&str, &str)]) {
    for (key, value) in facts {
        assert_eq!(
            node.said(key).as_deref(),
            Some(*value),
            "{key} of {}",
            node.label
        );
    }
}

/// The link table row of the slowest known link.
fn bottleneck(c: &Chain) -> Option<&str> {
    c.known_links()
        .first()
        .map(|(_, ceiling)| ceiling.row.as_str())
}

#[test]
fn internal_nvme_on_apple_silicon_walks_volume_store_and_disk() {
    let c = probe("internal-nvme", "apfs /dev/disk3s5 /System/Volumes/Data");
    assert_eq!(
        labels(&c),
        [
            "apfs on /dev/disk3s5 at /System/Volumes/Data",
            "APFS volume disk3s5 (Data) in container disk3",
            "partition disk0s2",
            "disk disk0 (APPLE SSD AP0512Q)",
            "Apple Fabric (on the chip)",
        ]
    );
    assert_facts(c.nodes()[3], &[("solid state", "yes"), ("internal", "yes")]);
    assert!(matches!(c.nodes()[4].bandwidth, Bandwidth::Unknown { .. }));
    assert_eq!(bottleneck(&c), None);
}

/// Low-priority throttling, which sets the pace of Time Machine's hourly backups, is read into
/// the mount's facts: on with tier 3's window and sleeps, or off where the user turned it off.
#[test]
fn low_priority_throttling_is_a_fact_of_the_mount() {
    let on = probe("usb-apfs", "apfs /dev/disk5s1 /Volumes/Backup");
    assert_eq!(
        on.root.get(Key::LowPriorityThrottling),
        Some(&Value::LowPriorityThrottling(true))
    );
    assert_facts(
        &on.root,
        &[
            ("debug.lowpri_throttle_tier3_window_msecs", "500"),
            ("debug.lowpri_throttle_tier3_io_period_ssd_msecs", "25"),
            ("debug.lowpri_throttle_max_iosize", "131072"),
        ],
    );
    let off = probe("internal-nvme", "apfs /dev/disk3s5 /System/Volumes/Data");
    assert_eq!(
        off.root.said("low-priority throttling").as_deref(),
        Some("off")
    );
}

#[test]
fn apfs_on_a_usb_ssd_is_uas_at_10_gbit() {
    let c = probe("usb-apfs", "apfs /dev/disk5s1 /Volumes/Backup");
    let usb = node(&c, |n| n.kind == NodeKind::Transport);
    assert_facts(
        usb,
        &[
            ("link speed", "10000 Mbit/s"),
            ("protocol", "UAS"),
            ("USB device", "PSSD T7"),
        ],
    );
    assert_eq!(bottleneck(&c), Some("usb3g2"));
    let disk = node(&c, |n| n.kind == NodeKind::Disk);
    assert_facts(disk, &[("removable or external", "yes")]);
    assert!(
        disk.said("solid state")
            .as_deref()
            .unwrap()
            .starts_with("not reported")
    );
}

#[test]
fn a_usb_2_stick_is_bot_at_480_mbit_and_fat_is_noted() {
    let c = probe("usb2-stick", "msdos /dev/disk2s1 /Volumes/STICK");
    assert_eq!(bottleneck(&c), Some("usb2-bot"));
    let usb = node(&c, |n| n.kind == NodeKind::Transport);
    assert_facts(usb, &[("link speed", "480 Mbit/s"), ("protocol", "BOT")]);
    assert!(c.notes.iter().any(|n| n.contains("msdos keeps no journal")));
}

#[test]
fn a_thunderbolt_enclosure_is_a_tunnelled_pcie_gen3_x4_link() {
    let c = probe("thunderbolt", "apfs /dev/disk7s1 /Volumes/TB Backup");
    assert_eq!(bottleneck(&c), Some("pcie3"));
    let pcie = node(&c, |n| n.label.starts_with("PCIe"));
    assert_eq!(pcie.label, "PCIe Gen3 x4");
    assert_eq!(pcie.children[0].label, "Thunderbolt");
    assert!(matches!(
        pcie.children[0].bandwidth,
        Bandwidth::Unknown { .. }
    ));
}

#[test]
fn an_smb_3_share_with_signing_over_wifi() {
    let c = probe(
        "smb-signed-wifi",
        "smbfs //alice@nas.local/TimeMachine /Volumes/TimeMachine",
    );
    assert!(c.is_network());
    let server = c.nodes()[1];
    assert_eq!(server.label, "server nas.local");
    let facts = [
        ("SMB dialect", "3.1.1"),
        ("signing", "on"),
        ("encryption", "off"),
    ];
    assert_facts(server, &facts);
    assert!(c.notes.iter().any(|n| n.contains("SMB signing is on")));
    let wifi = c.nodes()[2];
    assert_eq!(wifi.label, "interface en0 (Wi-Fi, 866 Mbit/s PHY)");
    assert_facts(wifi, &[("PHY mode", "802.11ac")]);
    assert_eq!(bottleneck(&c), Some("wifi"));
}

#[test]
fn an_smb_3_share_without_signing_over_2_5g_ethernet() {
    let c = probe(
        "smb-unsigned-ethernet",
        "smbfs //GUEST:@192.168.1.20/Backups /Volumes/Backups",
    );
    let server = c.nodes()[1];
    assert_eq!(server.label, "server 192.168.1.20");
    assert_facts(
        server,
        &[
            ("SMB dialect", "3.0.2"),
            ("signing", "off"),
            ("multichannel", "supported"),
        ],
    );
    assert!(c.notes.is_empty());
    assert_eq!(c.nodes()[2].label, "interface en7 (Ethernet, 2500 Mbit/s)");
    assert_eq!(bottleneck(&c), Some("ethernet"));
}

#[test]
fn an_nfs_mount_over_gigabit_ethernet() {
    let c = probe("nfs-ethernet", "nfs 192.168.1.30:/export/tm /Volumes/tm");
    let server = c.nodes()[1];
    assert_facts(server, &[("NFS version", "3"), ("address", "192.168.1.30")]);
    let params: Vec<String> = server
        .facts
        .iter()
        .filter(|f| f.value.name() == "NFS parameter")
        .map(|f| f.value.to_string())
        .collect();
    assert_eq!(params, ["tcp", "rsize=65536", "wsize=65536"]);
    assert_eq!(c.nodes()[2].label, "interface en0 (Ethernet, 1000 Mbit/s)");
}

#[test]
fn a_missing_tool_output_is_an_unknown_with_its_reason() {
    let c = probe("internal-nvme", "apfs /dev/disk9s1 /Volumes/Gone");
    assert_eq!(c.unknown_links().len(), 1);
    assert!(
        c.unknown_links()[0]
            .1
            .contains("diskutil info -plist disk9s1")
    );
}

#[test]
fn mount_sources_name_their_server() {
    for (source, server) in [
        ("//alice@nas.local/TimeMachine", Some("nas.local")),
        ("//GUEST:@192.168.1.20/Backups", Some("192.168.1.20")),
        ("192.168.1.30:/export/tm", Some("192.168.1.30")),
        ("afp://bob@tc.local/Data", Some("tc.local")),
        ("map -hosts", None),
    ] {
        assert_eq!(network::server_host(source).as_deref(), server, "{source}");
    }
}

#[test]
fn ethernet_media_lines_give_their_speed() {
    let mbit = |m: &str| network::ethernet_mbit(&format!("\tmedia: {m}\n"));
    assert_eq!(mbit("autoselect (1000baseT <full-duplex>)"), Some(1000));
    assert_eq!(mbit("autoselect (10Gbase-T <full-duplex>)"), Some(10000));
    assert_eq!(mbit("autoselect (100baseTX <full-duplex>)"), Some(100));
    assert_eq!(mbit("autoselect"), None);
}

#[test]
fn time_machine_destinations_and_the_one_measured() {
    let xml = fixture("timemachine")
        .output(&["tmutil", "destinationinfo", "-X"])
        .unwrap();
    let list = timemachine::parse_destinations(&xml);
    assert_eq!(list.len(), 2);
    assert_eq!(
        (list[0].kind.as_str(), list[1].kind.as_str()),
        ("Network", "Local")
    );
    assert_eq!(
        list[0].url.as_deref(),
        Some("smb://alice@nas._smb._tcp.local/TimeMachine")
    );
    assert_eq!(list[1].mount_point, None);
    let picked = timemachine::pick(&list).unwrap();
    assert!(picked.ends_with("TimeMachine") && picked.starts_with("/Volumes/.timemachine"));
    let unmounted = timemachine::pick(&list[1..]).unwrap_err();
    assert!(unmounted.contains("no Time Machine destination is mounted (Backup)"));
    assert!(timemachine::pick(&[]).is_err());
    // No destination configured: tmutil writes an empty dictionary.
    let none =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict/>\n</plist>\n";
    assert!(timemachine::parse_destinations(none).is_empty());
}

#[test]
fn time_machine_speed_checks_from_its_log() {
    let (checks, _) = timemachine::read_log(&fixture("timemachine"), 7);
    assert_eq!(checks.len(), 3);
    let SpeedCheck {
        concurrent,
        files,
        file_size,
        mb_s,
        seconds,
        when,
        ..
    } = &checks[1];
    assert!(*concurrent);
    assert_eq!((*files, file_size.as_str(), *mb_s), (500, "4 KB", 1.18));
    assert_eq!(*seconds, Some(1.736));
    assert_eq!(when, "2026-11-24 02:14:10.031877+0100");
    assert!(!checks[2].concurrent);
    assert_eq!((checks[2].files, checks[2].mb_s), (1, 71.8));
    assert!(
        checks[2]
            .destination
            .as_deref()
            .unwrap()
            .ends_with("/TimeMachine")
    );
    assert_eq!(
        timemachine::parse_speed_line("Backup completed successfully."),
        None
    );
}

/// Each backup's time runs from its start line to its last copy's; a share's backup goes to a
/// disk image's volume and is known by where its speed check wrote; before Big Sur the copy's
/// line carries the items and their size itself.
#[test]
fn time_machine_backups_from_its_log() {
    let (_, backups) = timemachine::read_log(&fixture("timemachine"), 7);
    let summary: Vec<(u64, u64, f64)> = backups
        .iter()
        .map(|b| (b.items, b.bytes, (b.seconds * 1e3).round() / 1e3))
        .collect();
    assert_eq!(
        summary,
        [
            (231_907, 38_950_000_000, 11_854.315),
            (412, 96_300_000, 49.513),
            (302_475, 173_700_000_000, 2_259.522)
        ]
    );
    let LoggedBackup {
        when,
        destination,
        checked,
        ..
    } = &backups[0];
    assert_eq!(when, "2026-11-24 02:14:05.903114+0100");
    assert_eq!(
        destination.as_deref(),
        Some("/Volumes/Backups of Alice’s MacBook Pro")
    );
    assert!(checked.as_deref().unwrap().ends_with("/TimeMachine"));
    let share = Path::new(
        "/Volumes/.timemachine/nas._smb._tcp.local/5B3F2A10-8C4D-4E5F-9A6B-7C8D9E0F1A2B/TimeMachine",
    );
    let of_share = timemachine::backups_of(share, backups.clone());
    assert_eq!(of_share.len(), 2);
    assert!(timemachine::backups_of(Path::new("/Volumes/Other"), backups).is_empty());
    // A progress line is not a volume's copy.
    assert!(timemachine::parse_backup_log(
        "2021-04-15 14:23:16.609140+0100  localhost backupd[1]: (TimeMachine) [x:y] Starting backup\n\
         2021-04-15 14:33:16.609140+0100  localhost backupd[1]: (TimeMachine) [x:y] Copied 60.21 GB \
         of 79.08 GB, 146004 of 1041141 items (~50.94 MB/s, 8.28 items/s). Last path seen: /a"
    )
    .is_empty());
}
