//! The three systems' fixtures write the same key and the same kind of value for the same fact.

use super::windows::chain::{self as windows, Interface};
use super::{Chain, Key, Node, NodeKind, Transport, Value, linux, macos};

fn first(c: &Chain, kind: NodeKind) -> &Node {
    c.nodes()
        .into_iter()
        .find(|n| n.kind == kind)
        .unwrap_or_else(|| panic!("no {kind:?} in {c:?}"))
}

fn windows_share(json: &str, if_type: u32, transmit_bps: u64) -> Chain {
    let interface = Interface {
        alias: "the interface".into(),
        description: "a fixture".into(),
        if_type,
        transmit_bps,
    };
    windows::chain(&super::windows::tests::share(json, interface))
}

#[test]
fn an_unsigned_smb_share_reads_alike_on_macos_and_windows() {
    let mac = macos::tests::probe(
        "smb-unsigned-ethernet",
        "smbfs //GUEST:@192.168.1.20/Backups /Volumes/Backups",
    );
    let win = windows_share("smb-ethernet.json", 6, 1_000_000_000);
    let (mac, win) = (first(&mac, NodeKind::Server), first(&win, NodeKind::Server));
    for key in [Key::Signing, Key::Encryption] {
        assert_eq!(mac.get(key), win.get(key), "{key}");
        assert!(mac.get(key).is_some(), "{key}");
    }
    // The fixtures' dialects differ; the key and its kind of value do not.
    assert!(matches!(
        mac.get(Key::SmbDialect),
        Some(Value::SmbDialect(_))
    ));
    assert!(matches!(
        win.get(Key::SmbDialect),
        Some(Value::SmbDialect(_))
    ));
}

#[test]
fn wifi_and_ethernet_rates_read_alike_on_every_system() {
    let mac_wifi = macos::tests::probe(
        "smb-signed-wifi",
        "smbfs //alice@nas.local/TimeMachine /Volumes/TimeMachine",
    );
    let linux_wifi = linux::tests::chain("nfs-wifi", "/mnt/nfs");
    let win_wifi = windows_share("smb-wifi.json", 71, 866_700_000);
    for c in [&mac_wifi, &linux_wifi, &win_wifi] {
        let wifi = first(c, NodeKind::Interface);
        assert!(
            matches!(wifi.get(Key::PhyRate), Some(Value::PhyRate(_))),
            "{wifi:?}"
        );
    }
    let mac = macos::tests::probe("nfs-ethernet", "nfs 192.168.1.30:/export/tm /Volumes/tm");
    let linux = linux::tests::chain("cifs-gige", "/mnt/nas");
    let mac_speed = first(&mac, NodeKind::Interface).get(Key::LinkSpeed);
    assert!(matches!(mac_speed, Some(Value::LinkSpeed(_))), "{mac:?}");
    let Some(Value::LinkSpeed(rate)) = mac_speed else {
        unreachable!()
    };
    let win = windows_share("smb-ethernet.json", 6, (rate.mbit_s * 1e6) as u64);
    for c in [&linux, &win] {
        assert_eq!(
            first(c, NodeKind::Interface).get(Key::LinkSpeed),
            mac_speed,
            "{c:?}"
        );
    }
}

#[test]
fn a_usb_disk_is_on_the_same_transport_on_every_system() {
    use super::windows::tests::{disk, local};
    let mac = macos::tests::probe("usb2-stick", "msdos /dev/disk2s1 /Volumes/STICK");
    let linux = linux::tests::chain("usb2-bot-hdd", "/mnt/usb/backups");
    let win = windows::chain(&local(
        r"F:\",
        "FAT32",
        vec![disk(3, "usb2-stick", "cache")],
    ));
    let usb = Some(Value::Transport(Transport::Usb));
    for c in [&mac, &linux, &win] {
        let bus = first(c, NodeKind::Transport);
        assert_eq!(bus.get(Key::Transport), usb.as_ref(), "{bus:?}");
    }
}
