//! The verdict over chains built in code, one test per kind of verdict: each chain the least
//! that shows it, the figures taken from the link table rather than typed again. (The prober's
//! fixtures judge whole real chains: `src/probe/linux/tests.rs`.)

use std::path::PathBuf;
use std::time::Duration;

use super::{CACHE_MARGIN, LIMITED_AT, VerdictKind, judge};
use crate::engine::EngineKind;
use crate::probe::links::{self, LinkRow};
use crate::probe::{Bandwidth, Chain, Node, NodeKind};
use crate::results::{Method, Repetition, TestResult, TestResultParts};
use crate::stats::{LatencyHistogram, ThroughputSeries};
use crate::workload::TestId;

/// A result of one repetition at `rate` MB/s.
pub(crate) fn result(test: TestId, variant: &str, rate: f64) -> TestResult {
    TestResult::from_parts(TestResultParts {
        test,
        workload: crate::workload::known_workload(test, variant).expect("a suite variant"),
        unit: crate::results::Unit::MegabytesPerSecond,
        threads: 1,
        file_set: None,
        method: Method::Direct,
        engine: EngineKind::Sync,
        block_size: 1 << 20,
        queue_depth: 8,
        op_kind: crate::results::OpKind::Io,
        repetitions: vec![Repetition {
            rate,
            bytes: 1 << 30,
            ops: 1024,
            elapsed: Duration::from_secs(2),
            cpu: Duration::ZERO,
            series: ThroughputSeries::new(Duration::from_millis(250)),
            passes: None,
        }],
        latency: LatencyHistogram::default(),
        warnings: Vec::new(),
        stopped: None,
    })
    .expect("one repetition")
}

pub(crate) fn seq(write: f64, read: f64) -> Vec<TestResult> {
    vec![
        result(TestId::SeqWrite, "SEQ1M-Q8T1", write),
        result(TestId::SeqRead, "SEQ1M-Q8T1", read),
    ]
}

/// A disk mounted at /mnt/backup behind one bus: the link table's row `id`, or a bus whose
/// speed the system does not report.
pub(crate) fn disk_behind(row: Option<&LinkRow>) -> Chain {
    let mut bus = Node::new(
        NodeKind::Transport,
        row.map_or("virtio", |r| r.name.as_str()),
    );
    bus.bandwidth = match row {
        Some(r) => Bandwidth::Known(r.ceiling()),
        None => Bandwidth::Unknown {
            why: "a virtual disk".into(),
        },
    };
    let mut disk = Node::new(NodeKind::Disk, "disk sdb");
    disk.children.push(bus);
    let mut mount = Node::new(NodeKind::Mount, "ext4 at /mnt/backup from /dev/sdb");
    mount.children.push(disk);
    Chain {
        path: PathBuf::from("/mnt/backup"),
        root: mount,
        notes: Vec::new(),
    }
}

#[test]
fn near_the_narrowest_ceiling_the_link_is_the_limit() {
    let usb2 = links::row("usb2-bot");
    let rate = usb2.practical * (LIMITED_AT + 0.05);
    let v = judge(Some(&disk_behind(Some(usb2))), &seq(rate, rate * 0.9));
    assert_eq!(v.kind, VerdictKind::LimitedByLink);
    assert_eq!(v.bottleneck.expect("a bottleneck").link, usb2.name);
    let percent = v.percent_of_ceiling.expect("a percentage");
    assert!(
        (percent - rate / usb2.practical * 100.0).abs() < 1e-9,
        "{percent}"
    );
    assert!(
        v.summary
            .starts_with(&format!("{} is the limit", usb2.name)),
        "{}",
        v.summary
    );
}

#[test]
fn far_below_every_ceiling_the_device_is_the_limit() {
    let sata = links::row("sata3");
    let rate = sata.practical * (LIMITED_AT - 0.5);
    let v = judge(Some(&disk_behind(Some(sata))), &seq(rate, rate));
    assert_eq!(v.kind, VerdictKind::DeviceOrProtocol);
    assert!(
        v.summary.starts_with("The device itself is the limit"),
        "{}",
        v.summary
    );
    assert!(v.cached.is_empty());
}

#[test]
fn above_what_the_narrowest_link_carries_is_a_cache() {
    let usb2 = links::row("usb2-bot");
    let impossible = usb2.practical_max * CACHE_MARGIN * 1.5;
    let v = judge(
        Some(&disk_behind(Some(usb2))),
        &seq(usb2.practical, impossible),
    );
    assert_eq!(v.kind, VerdictKind::Cached);
    assert_eq!(v.cached.len(), 1);
    assert_eq!(v.cached[0].test, "seq-read");
}

#[test]
fn without_a_known_link_the_limit_is_unknown_and_nothing_is_called_a_cache() {
    let v = judge(Some(&disk_behind(None)), &seq(900.0, 5000.0));
    assert_eq!(v.kind, VerdictKind::LinkUnknown);
    assert!(v.cached.is_empty(), "no ceiling, no cache claim");
    assert!(v.bottleneck.is_none());
}

#[test]
fn memory_and_an_unprobed_path_get_no_link() {
    let mut chain = disk_behind(None);
    chain.root = Node::new(NodeKind::Memory, "tmpfs at /mnt/backup");
    assert_eq!(
        judge(Some(&chain), &seq(3000.0, 9000.0)).kind,
        VerdictKind::Memory
    );
    assert_eq!(judge(None, &seq(30.0, 30.0)).kind, VerdictKind::NoChain);
}

#[test]
fn the_large_sequential_figures_are_needed_and_20_100mb_stands_in() {
    let chain = disk_behind(Some(links::row("usb2-bot")));
    let v = judge(
        Some(&chain),
        &[result(TestId::FourKWrite, "RND4K-Q1T1", 1.2)],
    );
    assert_eq!(v.kind, VerdictKind::NeedsSequentialTests);
    let v = judge(Some(&chain), &[result(TestId::SeqWrite, "20-100MB", 30.0)]);
    assert_eq!(v.measured_by.as_deref(), Some("seq-write 20-100MB"));
    assert_eq!(v.measured_mb_s, Some(30.0));
}

/// The first sentence of every kind of verdict in plain words: one sentence of at most 25
/// words, no nested parentheses, no test or variant names, MB/s the only unit.
#[test]
fn every_verdict_begins_with_one_plain_sentence() {
    let usb2 = links::row("usb2-bot");
    let sata = links::row("sata3");
    let mut memory = disk_behind(None);
    memory.root = Node::new(NodeKind::Memory, "tmpfs at /mnt/backup");
    let cases = [
        (Some(disk_behind(Some(usb2))), seq(33.0, 31.0)),
        (Some(disk_behind(Some(sata))), seq(120.0, 130.0)),
        (Some(disk_behind(Some(usb2))), seq(33.0, 900.0)),
        (Some(disk_behind(None)), seq(900.0, 1464.0)),
        (Some(memory), seq(3000.0, 9000.0)),
        (
            Some(disk_behind(Some(usb2))),
            vec![result(TestId::FourKWrite, "RND4K-Q1T1", 1.2)],
        ),
        (None, seq(30.0, 30.0)),
    ];
    let mut kinds = Vec::new();
    for (chain, results) in &cases {
        let v = judge(chain.as_ref(), results);
        kinds.push(v.kind);
        assert_plain(&v.summary, 25);
    }
    kinds.dedup();
    assert_eq!(kinds.len(), cases.len(), "every kind once: {kinds:?}");
}

/// The plain-words rules of a sentence every report shows: one sentence of at most
/// `most_words` words, no nested parentheses, no test or variant names, MB/s the only unit.
pub fn assert_plain(s: &str, most_words: usize) {
    let names: Vec<String> = TestId::ALL
        .iter()
        .map(|t| t.to_string())
        .chain(["SEQ1M", "RND4K", "Q8T1", "Q1T1", "20-100MB"].map(String::from))
        .collect();
    let words = s.split_whitespace().count();
    assert!(words <= most_words, "over {most_words} words: {s}");
    assert!(
        s.ends_with('.') && s.matches(". ").count() == 0,
        "one sentence: {s}"
    );
    assert!(s.starts_with(|c: char| c.is_uppercase()), "{s}");
    let mut depth = 0;
    for c in s.chars() {
        depth += match c {
            '(' => 1,
            ')' => -1,
            _ => 0,
        };
        assert!(depth <= 1, "nested parentheses: {s}");
    }
    for name in &names {
        assert!(!s.contains(name.as_str()), "names {name}: {s}");
    }
    assert!(!s.contains("MiB") && !s.contains("GB/s"), "{s}");
}

/// `disk_behind` a USB 2.0 bus, its disk with `facts` (as SMART gave them).
fn usb_disk_with(facts: Vec<crate::probe::Value>) -> Chain {
    let mut chain = disk_behind(Some(links::row("usb2-bot")));
    for value in facts {
        chain.root.children[0].fact(value, "smartctl --json -a /dev/sdb");
    }
    chain
}

#[test]
fn a_failing_disk_is_said_before_anything_else() {
    use crate::probe::Value;
    use crate::probe::health::Assessment;
    let cases = [
        (
            vec![Value::SmartAssessment(Assessment::Failed)],
            "own SMART check says it is failing",
        ),
        (
            vec![Value::PendingSectors(8)],
            "reports 8 sectors it could not read",
        ),
        (vec![Value::CriticalWarning(4)], "critical warning (0x04)"),
        (
            vec![Value::ReallocatedSectors(3)],
            "replaced 3 failing sectors",
        ),
    ];
    for (facts, said) in cases {
        let v = judge(Some(&usb_disk_with(facts)), &seq(30.0, 30.0));
        let alarm = v.alarm.expect("an alarm");
        assert!(alarm.contains(said), "{alarm}");
    }
    let healthy = vec![Value::PendingSectors(0), Value::ReallocatedSectors(0)];
    assert_eq!(
        judge(Some(&usb_disk_with(healthy)), &seq(30.0, 30.0)).alarm,
        None
    );
}

#[test]
fn link_errors_that_grew_during_the_run_name_the_cable_or_enclosure() {
    let chain = usb_disk_with(vec![crate::probe::Value::LinkErrorsDuringRun(7)]);
    let alarm = judge(Some(&chain), &seq(20.0, 20.0))
        .alarm
        .expect("an alarm");
    assert!(
        alarm.contains("repeated 7 transfers") && alarm.contains("cable"),
        "{alarm}"
    );
    let none_new = usb_disk_with(vec![crate::probe::Value::LinkErrorsDuringRun(0)]);
    assert_eq!(judge(Some(&none_new), &seq(20.0, 20.0)).alarm, None);
}

#[test]
fn no_smart_through_a_bridge_or_on_a_share_is_said_and_never_guessed() {
    use crate::probe::Value;
    use crate::probe::health::SmartGap;
    let gap = SmartGap::Bridge {
        bridge: "USB vendor id 46f4".into(),
    };
    let chain = usb_disk_with(vec![Value::SmartUnread(gap)]);
    let v = judge(Some(&chain), &seq(30.0, 30.0));
    assert_eq!(v.alarm, None, "nothing read, nothing alarmed");
    let text = crate::report::chain::render(&chain);
    assert!(
        text.contains(
            "SMART: not read: the USB bridge (USB vendor id 46f4) does not pass SMART through"
        ),
        "{text}"
    );
    let mut share = Node::new(NodeKind::Server, "server nas");
    share.fact(Value::SmartUnread(SmartGap::Share), "the chain");
    let text = Value::SmartUnread(SmartGap::Share).to_string();
    assert_eq!(
        text,
        "not read: the disks are the server's: read SMART on the server"
    );
    assert_eq!(
        crate::probe::health::alarm(&Chain {
            path: PathBuf::from("/mnt/nas"),
            root: share,
            notes: Vec::new(),
        }),
        None
    );
}

#[test]
fn the_disks_kind_is_a_detail_where_its_cache_decides_the_write_rate() {
    use crate::probe::Value;
    use crate::probe::health::{DriveKind, Recording};
    let kind = |recording| {
        Value::DriveKind(DriveKind {
            recording,
            basis: "a listed model".into(),
            inferred: false,
        })
    };
    let smr = judge(
        Some(&usb_disk_with(vec![kind(Recording::Smr)])),
        &seq(30.0, 30.0),
    );
    let detail = smr.details.iter().find(|d| d.starts_with("an SMR disk"));
    assert!(
        detail.is_some_and(|d| d.contains("past the cache")),
        "{:?}",
        smr.details
    );
    let cmr = judge(
        Some(&usb_disk_with(vec![kind(Recording::Cmr)])),
        &seq(30.0, 30.0),
    );
    assert!(
        !cmr.details.iter().any(|d| d.contains("cache's")),
        "{:?}",
        cmr.details
    );
}

/// A share at /mnt/nas: a mount, its server, the link to it of unknown speed.
fn share() -> Chain {
    let mut link = Node::new(NodeKind::Interface, "interface lo");
    link.bandwidth = Bandwidth::Unknown {
        why: "lo is virtual".into(),
    };
    let mut server = Node::new(NodeKind::Server, "sshfs server 127.0.0.1");
    server.children.push(link);
    let mut mount = Node::new(NodeKind::Mount, "fuse.sshfs at /mnt/nas");
    mount.children.push(server);
    Chain {
        path: PathBuf::from("/mnt/nas"),
        root: mount,
        notes: Vec::new(),
    }
}

/// On a share the block write overwrites one file the server may keep in its memory: the
/// verdict judges its writes by new files, each flushed, and says why; on a disk the block
/// write stands, and a block write near the files' rate is no sign of the server's memory.
#[test]
fn a_shares_writes_are_judged_by_new_files_each_flushed() {
    let results = |block: f64| {
        let mut r = seq(block, 34.4);
        r.push(result(TestId::SeqWrite, "20-100MB", 19.9));
        r
    };
    let v = judge(Some(&share()), &results(87.6));
    assert_eq!(v.write_mb_s, Some(19.9));
    let said = v.details.join("\n");
    assert!(
        said.contains("SEQ1M-Q8T1 wrote 87.6 MB/s, 4.4 times the 19.9 MB/s of new files"),
        "{said}"
    );
    let near = judge(Some(&share()), &results(22.0));
    assert_eq!(near.write_mb_s, Some(19.9));
    assert_eq!(
        near.measured_mb_s,
        Some(34.4),
        "the better of write and read"
    );
    assert!(
        !near.details.join("\n").contains("memory"),
        "{:?}",
        near.details
    );
    let disk = judge(Some(&disk_behind(None)), &results(87.6));
    assert_eq!(disk.write_mb_s, Some(87.6));
    assert!(!disk.details.join("\n").contains("memory"));
}

/// A share whose network carries twice what its durable writes get or more: the server's
/// disks are the limit, said with both figures; where the network carries about what the
/// writes get (a 100 Mbit/s link, a fast server), the link's verdict stands.
#[test]
fn a_share_whose_network_carries_more_than_its_disks_take_names_the_servers_disks() {
    let mut results = seq(87.6, 257.0);
    results.push(result(TestId::SeqWrite, "20-100MB", 21.7));
    let v = judge(Some(&share()), &results);
    assert_eq!(v.kind, VerdictKind::ServerStorage);
    assert_eq!(v.measured_mb_s, Some(21.7));
    assert_eq!(
        v.summary,
        "The server's disks are the limit: the network carries 257 MB/s, writes that must \
         reach its disks 21.7 MB/s."
    );
    assert_plain(&v.summary, 25);
    let said = v.details.join("\n");
    assert!(said.contains("new files each flushed wrote 21.7 MB/s (seq-write 20-100MB), where seq-read SEQ1M-Q8T1 crossed the network at 257 MB/s"), "{said}");
    let mut wire = seq(11.6, 11.5);
    wire.push(result(TestId::SeqWrite, "20-100MB", 10.5));
    let v = judge(Some(&share()), &wire);
    assert_eq!(v.kind, VerdictKind::LinkUnknown, "{v:?}");
    // On a disk there is no server.
    assert_ne!(
        judge(Some(&disk_behind(None)), &results).kind,
        VerdictKind::ServerStorage
    );
}

/// A share far below its gigabit link with encryption on (the mount's `seal`): the first
/// sentence names it beside the server or the protocol, a detail says how to price it; the same
/// share without it says neither, and encryption is not named where the link is the limit.
#[test]
fn a_share_far_below_its_link_names_its_encryption() {
    use crate::probe::Value;
    let gigabit = |facts: &[Value]| {
        let mut chain = share();
        let server = &mut chain.root.children[0];
        for f in facts {
            server.fact(f.clone(), "a test");
        }
        server.children[0].bandwidth =
            Bandwidth::Known(crate::probe::links::row("ethernet").ceiling_of_rate(1000.0));
        chain
    };
    let sealed = gigabit(&[Value::Encryption(true)]);
    let v = judge(Some(&sealed), &seq(31.0, 33.0));
    assert_eq!(v.kind, VerdictKind::DeviceOrProtocol, "{v:?}");
    assert!(
        v.summary
            .starts_with("The server or the protocol is the limit, with encryption on: 33 MB/s"),
        "{}",
        v.summary
    );
    assert_plain(&v.summary, 25);
    assert!(
        v.details
            .iter()
            .any(|d| d.starts_with("encryption is on for this share") && d.contains("compare")),
        "{:?}",
        v.details
    );
    let plain = judge(Some(&gigabit(&[])), &seq(31.0, 33.0));
    assert!(!plain.summary.contains("encryption"), "{}", plain.summary);
    assert!(!plain.details.join("\n").contains("encryption"));
    let signed = judge(Some(&gigabit(&[Value::Signing(true)])), &seq(31.0, 33.0));
    assert!(
        signed.summary.contains("with signing on"),
        "{}",
        signed.summary
    );
    let at_link = judge(Some(&sealed), &seq(110.0, 112.0));
    assert_eq!(at_link.kind, VerdictKind::LimitedByLink);
    assert!(
        !at_link.summary.contains("encryption"),
        "{}",
        at_link.summary
    );
}
