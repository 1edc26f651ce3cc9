//! The parser on real smartctl JSON (tests/fixtures/smart/, whose README says where each came
//! from), the bridge retries, the kinds table, and the alarm.

use std::cell::RefCell;

use super::kind;
use super::smart::parse;
use super::*;
use crate::probe::{Chain, Fact, Node, NodeKind};

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/smart/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn facts_of(name: &str) -> Vec<Value> {
    parse(&fixture(name))
        .unwrap_or_else(|gap| panic!("{name}: {gap}"))
        .facts
}

#[test]
fn a_sata_hard_disk_reads_as_its_counts_hours_and_rotation() {
    let facts = facts_of("sata-hdd");
    for expected in [
        Value::SmartAssessment(Assessment::Passed),
        Value::ReallocatedSectors(0),
        Value::PendingSectors(0),
        Value::UncorrectableSectors(0),
        Value::LinkErrors(0),
        Value::PowerOnHours(8244),
        Value::PowerCycles(12),
        Value::Temperature(49),
        Value::Rotation(Rotation::Rpm(7200)),
        Value::FormFactor("3.5 inches".into()),
        Value::Trim(false),
    ] {
        assert!(facts.contains(&expected), "{expected:?} not in {facts:?}");
    }
}

#[test]
fn a_sata_ssd_is_solid_state_with_trim() {
    let facts = facts_of("sata-ssd");
    assert!(
        facts.contains(&Value::Rotation(Rotation::SolidState)),
        "{facts:?}"
    );
    assert!(facts.contains(&Value::Trim(true)), "{facts:?}");
    let reading = parse(&fixture("sata-ssd")).unwrap();
    assert_eq!(reading.model.as_deref(), Some("WDC  WDS400T1R0A-68A4W0"));
}

#[test]
fn nvme_reads_its_health_log() {
    let facts = facts_of("nvme");
    for expected in [
        Value::CriticalWarning(0),
        Value::EnduranceUsed(0),
        Value::MediaErrors(0),
        Value::UnsafeShutdowns(1),
        Value::PowerOnHours(3113),
        Value::Temperature(39),
        Value::Rotation(Rotation::SolidState),
    ] {
        assert!(facts.contains(&expected), "{expected:?} not in {facts:?}");
    }
}

#[test]
fn a_failing_disk_through_a_usb_bridge_says_so_first() {
    let facts = facts_of("failing-pending");
    assert!(facts.contains(&Value::SmartAssessment(Assessment::Failed)));
    assert!(facts.contains(&Value::ReallocatedSectors(535)));
    assert!(facts.contains(&Value::PendingSectors(1)));
    let chain = chain_with(facts);
    let alarm = alarm(&chain).expect("an alarm");
    assert!(
        alarm.starts_with("This disk's own SMART check says it is failing"),
        "{alarm}"
    );
}

#[test]
fn a_usb_bridge_that_passes_smart_reads_like_any_disk() {
    let facts = facts_of("usb-bridge-jmicron");
    assert!(facts.contains(&Value::PowerOnHours(4374)), "{facts:?}");
    assert!(facts.contains(&Value::Temperature(26)), "{facts:?}");
}

#[test]
fn what_smartctl_could_not_read_is_said_in_words_a_person_can_act_on() {
    assert_eq!(
        parse(&fixture("permission-denied")),
        Err(SmartGap::NeedsAdmin)
    );
    assert_eq!(
        parse(&fixture("open-failed-windows")),
        Err(SmartGap::NeedsAdmin)
    );
    assert_eq!(
        parse(&fixture("usb-unknown-bridge")),
        Err(SmartGap::Bridge {
            bridge: "0x1e91:0xa3a5 (0x100)".into()
        })
    );
    assert!(matches!(parse("not json"), Err(SmartGap::Failed { .. })));
}

/// Canned answers by device type; records what was asked.
struct Canned {
    answers: Vec<(Option<&'static str>, String)>,
    asked: RefCell<Vec<Option<String>>>,
}

impl Smartctl for Canned {
    fn json(&self, _device: &str, device_type: Option<&str>) -> Result<String, SmartGap> {
        self.asked
            .borrow_mut()
            .push(device_type.map(str::to_string));
        self.answers
            .iter()
            .find(|(t, _)| *t == device_type)
            .map(|(_, json)| json.clone())
            .ok_or(SmartGap::Failed {
                message: "no such type".into(),
            })
    }
}

#[test]
fn behind_an_unknown_bridge_the_makers_pass_through_types_are_tried() {
    let canned = Canned {
        answers: vec![
            (None, fixture("usb-unknown-bridge")),
            (Some("sntjmicron"), fixture("nvme")),
        ],
        asked: RefCell::new(Vec::new()),
    };
    let reading =
        smartctl::read(&canned, "/dev/sdg", Some("152d")).expect("read through sntjmicron");
    assert!(reading.facts.contains(&Value::UnsafeShutdowns(1)));
    let asked = canned.asked.borrow().clone();
    assert_eq!(asked, [None, Some("sat".into()), Some("sntjmicron".into())]);

    let nothing = Canned {
        answers: vec![(None, fixture("usb-unknown-bridge"))],
        asked: RefCell::new(Vec::new()),
    };
    let gap = smartctl::read(&nothing, "/dev/sdg", Some("1e91")).unwrap_err();
    assert_eq!(
        gap,
        SmartGap::Bridge {
            bridge: "USB vendor id 1e91".into()
        }
    );
}

#[test]
fn the_kinds_table_parses_and_names_models_by_their_prefix() {
    let rows = kind::parse(include_str!("../../../data/drive_kinds.csv")).unwrap();
    assert!(rows.len() >= 30, "{} rows", rows.len());
    let smr = kind::of(Some("WDC WD40EFAX-68JH4N0"), &[]).expect("a listed SMR model");
    assert_eq!((smr.recording, smr.inferred), (Recording::Smr, false));
    let qlc = kind::of(Some("INTEL SSDPEKNW010T8"), &[]).expect("the 660p");
    assert_eq!(qlc.recording, Recording::Qlc);
    assert_eq!(
        kind::of(Some("WDC WD181KRYZ-01AGBB0"), &[]),
        None,
        "not listed: no guess"
    );
    assert!(kind::parse("model_prefix,kind,vendor,family,source\nX,SMR,v,f,\n").is_err());
    assert!(kind::parse("model_prefix,kind,vendor,family,source\nX,MLC,v,f,s\n").is_err());
}

#[test]
fn a_hard_disk_that_accepts_trim_is_likely_smr_and_said_to_be_a_sign() {
    let facts: Vec<Fact> = [Value::Rotation(Rotation::Rpm(5400)), Value::Trim(true)]
        .into_iter()
        .map(|value| Fact {
            value,
            origin: "test".into(),
        })
        .collect();
    let kind = kind::of(Some("ACME HDD 9000"), &facts).expect("a sign");
    assert_eq!((kind.recording, kind.inferred), (Recording::Smr, true));
    assert!(kind.to_string().starts_with("SMR (likely: "), "{kind}");
}

fn chain_with(facts: Vec<Value>) -> Chain {
    let mut disk = Node::new(NodeKind::Disk, "disk sda");
    for value in facts {
        disk.fact(value, "test");
    }
    let mut mount = Node::new(NodeKind::Mount, "/mnt");
    mount.children.push(disk);
    Chain::with_declared(std::path::Path::new("/mnt"), mount, Vec::new(), None)
}

#[test]
fn the_chain_gets_the_disks_facts_and_a_share_says_whose_disks_they_are() {
    let canned = Canned {
        answers: vec![(None, fixture("sata-hdd"))],
        asked: RefCell::new(Vec::new()),
    };
    let mut chain = chain_with(vec![Value::Device("/dev/sda".into())]);
    chain
        .root
        .children
        .push(Node::new(NodeKind::Server, "server nas"));
    read(&mut chain, &canned);
    let disk = &chain.root.children[0];
    assert_eq!(
        disk.get(Key::PowerOnHours),
        Some(&Value::PowerOnHours(8244))
    );
    assert_eq!(
        disk.said("recording").as_deref(),
        Some("not known: no published list names WDC WD181KRYZ-01AGBB0 (data/drive_kinds.csv)")
    );
    assert_eq!(
        chain.root.children[1].get(Key::SmartUnread),
        Some(&Value::SmartUnread(SmartGap::Share))
    );
    assert_eq!(alarm(&chain), None, "a healthy disk raises no alarm");
}

#[test]
fn link_errors_that_grew_during_the_run_name_the_cable() {
    let before = fixture("sata-hdd");
    let grown = grow_raw(&before, 199, 12);
    let canned = |json: String| Canned {
        answers: vec![(None, json)],
        asked: RefCell::new(Vec::new()),
    };
    let mut chain = chain_with(vec![Value::Device("/dev/sda".into())]);
    read(&mut chain, &canned(before));
    reread_link_errors(&mut chain, &canned(grown));
    let disk = &chain.root.children[0];
    assert_eq!(
        disk.get(Key::LinkErrorsDuringRun),
        Some(&Value::LinkErrorsDuringRun(12))
    );
    let alarm = alarm(&chain).expect("an alarm");
    assert!(
        alarm.contains("repeated 12 transfers") && alarm.contains("cable"),
        "{alarm}"
    );
}

/// `json` with ATA attribute `id`'s raw value set to `raw`.
fn grow_raw(json: &str, id: u64, raw: u64) -> String {
    let mut doc: serde_json::Value = serde_json::from_str(json).unwrap();
    let table = doc["ata_smart_attributes"]["table"].as_array_mut().unwrap();
    let attr = table.iter_mut().find(|a| a["id"] == id).unwrap();
    attr["raw"]["value"] = raw.into();
    doc.to_string()
}

#[test]
fn a_disks_health_reads_in_one_line_and_a_node_without_it_says_nothing() {
    let chain = chain_with(facts_of("failing-pending"));
    let disk = &chain.root.children[0];
    let line = in_one_line(disk).expect("a line");
    assert!(
        line.starts_with("SMART assessment: FAILED; pending sectors: 1; uncorrectable sectors: 0; reallocated sectors: 535"),
        "{line}"
    );
    assert_eq!(in_one_line(&chain.root), None);
}
