//! The disk's health end to end on this machine's own chain, with a smartctl that answers from
//! the real outputs in tests/fixtures/smart/ (`DESTBENCH_SMARTCTL`): `info` and `run` show the
//! facts, a failing disk is said first, link errors that grew during a run name the cable, and a
//! missing smartctl says how to install it. (The lab reads qemu's disks with a real smartctl.)

use std::path::{Path, PathBuf};

use crate::support::{assert_success, destbench};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/smart/{name}.json"))
}

/// A smartctl that prints `json`'s file for any device; with `grow`, the file's CRC error count
/// (attribute 199) is the number of calls so far, so it grows from one call to the next.
fn fake_smartctl(dir: &Path, json: &Path, grow: bool) -> PathBuf {
    let script = dir.join("smartctl");
    let calls = dir.join("calls");
    let body = if grow {
        format!(
            "n=$(cat {calls} 2>/dev/null || echo 0); echo $((n + 5)) > {calls}\n\
             python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); \
             [a[\"raw\"].__setitem__(\"value\", int(sys.argv[2])) for a in d[\"ata_smart_attributes\"][\"table\"] if a[\"id\"] == 199]; \
             print(json.dumps(d))' {} \"$n\"\n",
            json.display(),
            calls = calls.display()
        )
    } else {
        format!("cat {}\n", json.display())
    };
    std::fs::write(&script, format!("#!/bin/sh\n{body}")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    script
}

/// `destbench info` of `dir` with `smartctl` as the smartctl to run; None (the test skipped,
/// saying why) where the temp directory's chain has no whole disk for it to read.
fn info_with(dir: &Path, smartctl: &Path) -> Option<String> {
    let out = destbench()
        .args(["info", dir.to_str().unwrap()])
        .env("DESTBENCH_SMARTCTL", smartctl)
        .output()
        .unwrap();
    assert_success(&out);
    let info = String::from_utf8_lossy(&out.stdout).into_owned();
    if !info.contains("device: /dev/") {
        crate::support::skip("the temp directory's chain has no whole disk here");
        return None;
    }
    Some(info)
}

#[test]
fn info_says_a_failing_disk_first_and_shows_its_facts() {
    let dir = tempfile::tempdir_in(crate::support::test_tmpdir()).unwrap();
    let smartctl = fake_smartctl(dir.path(), &fixture("failing-pending"), false);
    let Some(info) = info_with(dir.path(), &smartctl) else {
        return;
    };
    assert!(
        info.starts_with("This disk's own SMART check says it is failing"),
        "{info}"
    );
    for fact in [
        "SMART assessment: FAILED",
        "reallocated sectors: 535",
        "pending sectors: 1",
        "power-on hours: 16402",
    ] {
        assert!(info.contains(fact), "{fact} not in\n{info}");
    }
}

#[test]
fn without_smartctl_the_disk_says_how_to_install_it_and_the_run_goes_on() {
    let dir = tempfile::tempdir_in(crate::support::test_tmpdir()).unwrap();
    let Some(info) = info_with(dir.path(), &dir.path().join("no-smartctl-here")) else {
        return;
    };
    assert!(
        info.contains(
            "SMART: not read: smartctl is not installed (install the smartmontools package"
        ),
        "{info}"
    );
}

#[test]
fn link_errors_that_grow_during_a_run_are_said_first_and_stored() {
    let dir = tempfile::tempdir_in(crate::support::test_tmpdir()).unwrap();
    let smartctl = fake_smartctl(dir.path(), &fixture("sata-hdd"), true);
    let dest = dir.path().join("dest");
    std::fs::create_dir(&dest).unwrap();
    let out = destbench()
        .args([
            "run",
            dest.to_str().unwrap(),
            "--tests",
            "seq-write:SEQ1M-Q1T1",
            "--runs",
            "1",
        ])
        .args([
            "--size",
            "4M",
            "--duration",
            "0.2",
            "--no-history",
            "--json",
        ])
        .env("DESTBENCH_SMARTCTL", &smartctl)
        .output()
        .unwrap();
    assert_success(&out);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let facts = all_facts(&doc["chain"]["root"]);
    if !facts.iter().any(|f| f["key"] == "device") {
        crate::support::skip("the temp directory's chain has no whole disk here");
        return;
    }
    let grown = facts.iter().find(|f| f["key"] == "link-errors-during-run");
    assert_eq!(
        grown.map(|f| &f["value"]),
        Some(&serde_json::json!(5)),
        "{facts:?}"
    );
    let alarm = doc["verdict"]["alarm"].as_str().unwrap_or_default();
    assert!(alarm.contains("repeated 5 transfers"), "{}", doc["verdict"]);
}

/// Every fact of `node` and the nodes below it.
fn all_facts(node: &serde_json::Value) -> Vec<&serde_json::Value> {
    let mut out: Vec<&serde_json::Value> = node["facts"].as_array().into_iter().flatten().collect();
    for child in node["children"].as_array().into_iter().flatten() {
        out.extend(all_facts(child));
    }
    out
}
