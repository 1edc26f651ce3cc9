//! The prober and the verdict over hand-made fixture trees (`tests/fixtures/linux/NAME`, copied
//! by hand from what real systems show): each asserts the chain and the verdict.

use std::path::{Path, PathBuf};

use super::{SysRoots, probe};
use crate::probe::{Bandwidth, Chain, DeclaredLink, Node};
use crate::results::TestResult;
use crate::verdict::tests::{result, seq};
use crate::verdict::{VerdictKind, judge};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/linux")
        .join(name)
}

pub(in crate::probe) fn chain(name: &str, path: &str) -> Chain {
    probe(Path::new(path), &SysRoots::fixture(&fixture(name)), None)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The chain's labels, indented by depth: what `destbench info` shows as the tree.
fn outline(chain: &Chain) -> Vec<String> {
    fn walk(n: &Node, depth: usize, out: &mut Vec<String>) {
        out.push(format!("{}{}", "  ".repeat(depth), n.label));
        for c in &n.children {
            walk(c, depth + 1, out);
        }
    }
    let mut out = Vec::new();
    walk(&chain.root, 0, &mut out);
    out
}

fn summary(c: &Chain, results: &[TestResult]) -> String {
    judge(Some(c), results).summary
}

/// Every fixture's chain as `destbench info` outlines it: (fixture, path, outline).
const OUTLINES: &[(&str, &str, &[&str])] = &[
    (
        "usb2-bot-hdd",
        "/mnt/usb/backups",
        &[
            "ext4 at /mnt/usb from /dev/sdb1",
            "  partition sdb1 (number 1 of sdb)",
            "    disk sdb: Expansion Desk",
            "      USB 2.0 (BOT)",
        ],
    ),
    (
        "usb3-uas-ssd",
        "/media/ssd",
        &[
            "ext4 at /media/ssd from /dev/sdc",
            "  disk sdc: Portable SSD T5",
            "    USB 3.x Gen 1 (UAS)",
        ],
    ),
    (
        "sata2-hdd",
        "/backup",
        &[
            "ext4 at /backup from /dev/sda",
            "  disk sda: WDC WD20EARS-00M",
            "    SATA II (3.0 Gbps)",
        ],
    ),
    (
        "nvme-gen3x4",
        "/home",
        &[
            "ext4 at / from /dev/nvme0n1p2",
            "  partition nvme0n1p2 (number 2 of nvme0n1)",
            "    disk nvme0n1: Samsung SSD 970 EVO Plus 1TB",
            "      NVMe over pcie",
            "        PCIe Gen3 x4 (slowest PCIe link on the path: 0000:3d:00.0)",
        ],
    ),
    (
        "nvme-thunderbolt",
        "/mnt/tb",
        &[
            "ext4 at /mnt/tb from /dev/nvme1n1",
            "  disk nvme1n1: WD_BLACK SN750 1TB",
            "    NVMe over pcie",
            "      PCIe Gen3 x4 (slowest PCIe link on the path: 0000:07:00.0)",
            "        Thunderbolt 3 (20 Gb/s x2)",
        ],
    ),
    (
        "cifs-gige",
        "/mnt/nas",
        &[
            "cifs at /mnt/nas from //192.168.1.20/backup",
            "  server 192.168.1.20",
            "    interface eth0 (Ethernet, 1000 Mbit/s)",
        ],
    ),
    (
        "nfs-wifi",
        "/mnt/nfs",
        &[
            "nfs4 at /mnt/nfs from nas.local:/export/backup",
            "  server 10.0.0.5",
            "    interface wlan0 (Wi-Fi, 866.7 Mbit/s PHY)",
        ],
    ),
    (
        "sshfs-veth",
        "/mnt/ssh",
        &[
            "fuse.sshfs at /mnt/ssh from backup@10.200.0.2:/srv/backup",
            "  server 10.200.0.2",
            "    interface veth0 (virtual)",
        ],
    ),
    (
        "ext4-data-journal",
        "/srv/backup",
        &[
            "ext4 at /srv/backup from /dev/sda3",
            "  partition sda3 (number 3 of sda)",
            "    disk sda: Samsung SSD 860",
            "      SATA III (6.0 Gbps)",
        ],
    ),
    (
        "loop-over-file",
        "/mnt/img",
        &[
            "ext4 at /mnt/img from /dev/loop0",
            "  loop device loop0 over /srv/images/disk.img",
            "    xfs at /srv from /dev/sda1",
            "      partition sda1 (number 1 of sda)",
            "        disk sda: ST4000DM004",
            "          SATA III (6.0 Gbps)",
        ],
    ),
    (
        "btrfs-two-devices",
        "/mnt/pool",
        &[
            "btrfs at /mnt/pool from /dev/sdb",
            "  disk sdb: ST8000DM004",
            "    USB 3.x Gen 1 (UAS)",
            "  disk sdc: ST8000VN004",
            "    SATA III (6.0 Gbps)",
        ],
    ),
    (
        "virtio-disk",
        "/",
        &[
            "ext4 at / from /dev/vda",
            "  disk vda",
            "    virtio (virtual disk)",
        ],
    ),
];

#[test]
fn every_fixture_is_outlined_as_info_shows_it() {
    for (name, path, expected) in OUTLINES {
        assert_eq!(outline(&chain(name, path)), *expected, "{name} at {path}");
    }
}

/// Each fixture's verdict on a sequential write and read (MB/s): (fixture, path, write, read,
/// summary).
const VERDICTS: &[(&str, &str, f64, f64, &str)] = &[
    (
        "usb3-uas-ssd",
        "/media/ssd",
        390.0,
        430.0,
        "USB 3.x Gen 1 (UAS) is the limit: 430 MB/s, 96% of its practical ~450 MB/s.",
    ),
    (
        "nvme-gen3x4",
        "/home",
        3300.0,
        3400.0,
        "PCIe Gen3 is the limit: 3400 MB/s, 96% of its practical ~3544 MB/s.",
    ),
    (
        "cifs-gige",
        "/mnt/nas",
        109.0,
        112.0,
        "Ethernet (TCP) is the limit: 112 MB/s, 95% of its practical ~118 MB/s.",
    ),
    // Far below the wire: the server or the protocol.
    (
        "cifs-gige",
        "/mnt/nas",
        20.0,
        25.0,
        "The server or the protocol is the limit: 25 MB/s is 21% of what Ethernet (TCP) can carry.",
    ),
    (
        "nfs-wifi",
        "/mnt/nfs",
        48.0,
        63.0,
        "Wi-Fi is the limit: 63 MB/s, 89% of its practical ~70.4 MB/s.",
    ),
    (
        "loop-over-file",
        "/mnt/img",
        180.0,
        190.0,
        "The device itself is the limit: 190 MB/s is 34% of what SATA III can carry.",
    ),
];

#[test]
fn every_fixture_has_its_verdict() {
    for (name, path, write, read, expected) in VERDICTS {
        let c = chain(name, path);
        assert_eq!(summary(&c, &seq(*write, *read)), *expected, "{name}");
    }
}

#[test]
fn usb2_bot_hard_disk_on_a_partition() {
    let c = chain("usb2-bot-hdd", "/mnt/usb/backups");
    let disk = &c.root.children[0].children[0];
    assert_eq!(disk.said("device queue depth").as_deref(), Some("1"));
    assert_eq!(disk.said("rotational").as_deref(), Some("yes"));
    assert_eq!(disk.said("cache_type").as_deref(), Some("write back"));
    assert_eq!(c.root.said("data").as_deref(), Some("ordered"));
    assert_eq!(c.root.said("journal").as_deref(), Some("yes"));
    // From udev's database: what the history keeps as the destination's identity.
    assert_eq!(
        c.root.said("uuid").as_deref(),
        Some("5d1f0c1e-7b6a-4c1e-9a57-2f3c4b5a6d7e")
    );
    assert_eq!(disk.said("serial").as_deref(), Some("NA8XYZ12"));
    let v = judge(Some(&c), &seq(33.8, 31.0));
    assert_eq!(v.kind, VerdictKind::LimitedByLink);
    assert_eq!(
        v.summary,
        "USB 2.0 (BOT) is the limit: 33.8 MB/s, 97% of its practical ~35 MB/s."
    );
    assert_eq!(
        v.details,
        [
            "if USB 2.0 (BOT) were faster, the device itself would be the limit",
            "judged by seq-write SEQ1M-Q8T1: 33.8 MB/s"
        ]
    );
    let b = v.bottleneck.expect("a bottleneck");
    assert_eq!((b.link.as_str(), b.declared), ("USB 2.0 (BOT)", false));
    assert!((v.percent_of_ceiling.unwrap() - 33.8 / 35.0 * 100.0).abs() < 1e-9);
    // 120 MB/s cannot cross USB 2.0: a cache, on the result and in the verdict.
    let v = judge(Some(&c), &seq(33.8, 120.0));
    assert_eq!(v.kind, VerdictKind::Cached);
    assert_eq!(v.cached.len(), 1);
    assert_eq!(v.cached[0].test, "seq-read");
}

#[test]
fn sata2_hard_disk_is_its_own_limit() {
    let c = chain("sata2-hdd", "/backup");
    let v = judge(Some(&c), &seq(110.0, 118.0));
    assert_eq!(v.kind, VerdictKind::DeviceOrProtocol);
    assert_eq!(
        v.summary,
        "The device itself is the limit: 118 MB/s is 42% of what SATA II can carry."
    );
}

#[test]
fn nvme_behind_thunderbolt() {
    let c = chain("nvme-thunderbolt", "/mnt/tb");
    let v = judge(Some(&c), &seq(2500.0, 2650.0));
    assert_eq!(
        v.summary,
        "Thunderbolt 3 is the limit: 2650 MB/s, 95% of its practical ~2800 MB/s."
    );
    assert_eq!(
        v.details,
        [
            "if Thunderbolt 3 were faster, the next link, PCIe Gen3, would allow ~3544 MB/s",
            "judged by seq-read SEQ1M-Q8T1: 2650 MB/s"
        ]
    );
}

#[test]
fn cifs_over_gigabit_ethernet() {
    let c = chain("cifs-gige", "/mnt/nas");
    let iface = &c.root.children[0].children[0];
    assert_eq!(
        iface.said("route").as_deref(),
        Some("192.168.1.20 via eth0 (192.168.1.0/24)")
    );
}

#[test]
fn nfs_over_wifi() {
    let c = chain("nfs-wifi", "/mnt/nfs");
    assert_eq!(c.root.said("soft").as_deref(), Some("yes"));
    assert!(
        c.notes.iter().any(|n| n.contains("soft mount")),
        "{:?}",
        c.notes
    );
}

#[test]
fn sshfs_over_veth_has_an_unknown_speed() {
    let c = chain("sshfs-veth", "/mnt/ssh");
    // veth says 10000; that is not believed.
    assert!(c.known_links().is_empty());
    let v = judge(Some(&c), &seq(80.0, 90.0));
    assert_eq!(v.kind, VerdictKind::LinkUnknown);
    assert_eq!(
        v.summary,
        "The network link did not report its speed, so the limit is unknown; it wrote 80 MB/s and read 90 MB/s."
    );
    assert!(
        v.details
            .contains(&"judged by seq-read SEQ1M-Q8T1: 90 MB/s; the interface that did not report its speed: interface veth0 (virtual)".to_string()),
        "{:?}",
        v.details
    );
    assert!(v.bottleneck.is_none() && v.percent_of_ceiling.is_none());
}

#[test]
fn declared_link_speed_is_used_and_labelled() {
    let d: DeclaredLink = "100mbit".parse().unwrap();
    let c = probe(
        Path::new("/mnt/ssh"),
        &SysRoots::fixture(&fixture("sshfs-veth")),
        Some(&d),
    )
    .unwrap();
    let iface = &c.root.children[0].children[0];
    let Bandwidth::Known(ceiling) = &iface.bandwidth else {
        panic!("no declared ceiling")
    };
    assert!(ceiling.declared);
    assert!(
        iface
            .said("reported speed")
            .as_deref()
            .unwrap()
            .starts_with("unknown")
    );
    assert_eq!(
        summary(&c, &seq(11.1, 11.2)),
        "The declared link (100 Mbit/s, --link-speed) is the limit: 11.2 MB/s, 95% of its practical ~11.8 MB/s."
    );
}

#[test]
fn ext4_data_journal_on_a_partition() {
    let c = chain("ext4-data-journal", "/srv/backup");
    assert_eq!(c.root.said("data").as_deref(), Some("journal"));
    assert!(c.notes.iter().any(|n| n.contains("data=journal")));
    // data=journal halves the write rate: the write is far below the link, the read close.
    let v = judge(Some(&c), &seq(260.0, 530.0));
    assert_eq!(v.write_mb_s, Some(260.0));
    assert_eq!(
        v.summary,
        "SATA III is the limit: 530 MB/s, 95% of its practical ~560 MB/s."
    );
}

#[test]
fn btrfs_over_two_devices() {
    let c = chain("btrfs-two-devices", "/mnt/pool");
    assert_eq!(c.root.said("compress").as_deref(), Some("zstd:3"));
    let v = judge(Some(&c), &seq(420.0, 440.0));
    assert_eq!(
        v.summary,
        "USB 3.x Gen 1 (UAS) is the limit: 440 MB/s, 98% of its practical ~450 MB/s."
    );
    assert_eq!(v.next.unwrap().link, "SATA III");
}

#[test]
fn virtio_disk_is_unknown_and_never_guessed() {
    let c = chain("virtio-disk", "/");
    assert_eq!(c.root.said("journal").as_deref(), Some("no"));
    let v = judge(Some(&c), &seq(900.0, 1500.0));
    assert_eq!(v.kind, VerdictKind::LinkUnknown);
    assert!(v.cached.is_empty(), "no ceiling, no cache claim");
}

#[test]
fn unknown_mount_point_is_an_error_not_a_panic() {
    let roots = SysRoots::fixture(&fixture("does-not-exist"));
    let e = probe(Path::new("/x"), &roots, None).unwrap_err();
    assert!(e.to_string().contains("mountinfo"), "{e}");
}

/// A share's per-file cost, and what it is made of.
mod per_file;

/// The lab (tests/integration/lab/mod.rs) reads `destbench info`'s lines "speed: N Mbit/s" of a
/// USB bus and an Ethernet interface, "driver: ...", and the mount options as "key: value":
/// typed facts keep those lines true.
#[test]
fn the_info_lines_the_lab_reads_keep_their_shape() {
    let read = |fixture_dir: &str, rel: &str| {
        let p = fixture(fixture_dir).join(rel);
        std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    };
    let usb = "sys/devices/pci0000:00/0000:00:14.0/usb1/1-2";
    let info = crate::report::chain::render(&chain("usb2-bot-hdd", "/mnt/usb/backups"));
    let speed = read("usb2-bot-hdd", &format!("{usb}/speed"));
    assert!(
        info.contains(&format!("speed: {} Mbit/s  [", speed.trim())),
        "{info}"
    );
    assert!(info.contains("driver: usb-storage  ["), "{info}");
    let info = crate::report::chain::render(&chain("cifs-gige", "/mnt/nas"));
    let eth0 = "sys/devices/pci0000:00/0000:00:1f.6/net/eth0";
    let speed = read("cifs-gige", &format!("{eth0}/speed"));
    assert!(
        info.contains(&format!("speed: {} Mbit/s  [", speed.trim())),
        "{info}"
    );
    let ethernet = format!("(Ethernet, {} Mbit/s)", speed.trim());
    assert!(info.contains(&ethernet), "{info}");
    let mountinfo = read("cifs-gige", "proc/self/mountinfo");
    for key in ["vers", "rsize", "wsize"] {
        let value = mountinfo
            .split([',', ' '])
            .find_map(|o| o.strip_prefix(&format!("{key}=")))
            .unwrap();
        assert!(
            info.contains(&format!("{key}: {value}  [")),
            "{key} in {info}"
        );
    }
}
