//! destbench against the testbed's emulated destinations: a disk with a known true speed, and
//! the read-only, unwritable and full destinations.

use crate::support::{
    destbench, destbench_setpriv, entries, exits, num, result, run_on, test_variants,
};
use crate::testbed::{Exclusive, Testbed};
#[cfg(target_os = "linux")]
use crate::testbed_checks::dd_write;

/// A run on the testbed's slow disk, the machine to this test alone (the testbed stays up, and
/// the machine taken, as long as this value lives).
struct SlowDiskRun {
    testbed: Testbed,
    /// Bound by every user (a field left to `..` would be dropped at once, ending exclusivity).
    _alone: Exclusive,
    /// The disk's true rate, MB/s.
    rate: f64,
    doc: serde_json::Value,
}

/// `destbench run --json FLAGS` on a slow disk held to `rate` MB/s.
fn run_on_slow_disk(rate: &str, flags: &str) -> Option<SlowDiskRun> {
    let (alone, testbed) = Testbed::up_alone("slow-disk", &["--rate", rate])?;
    let rate = testbed
        .ceiling_mb_s()
        .expect("slow-disk has a known ceiling");
    let doc = run_on(testbed.mount(), flags);
    Some(SlowDiskRun {
        _alone: alone,
        testbed,
        rate,
        doc,
    })
}

/// On a disk held to 37 MB/s (a USB 2.0 disk), the sequential medians are within 5% of the true
/// rate, and no figure at all is above it.
#[test]
#[ignore = "long: figures against an emulated device of known speed, which it holds alone"]
fn sequential_figures_match_a_disk_of_known_speed() {
    let flags = "--tests seq-write,seq-read --size 64MiB --runs 2 --duration 2";
    let Some(SlowDiskRun {
        testbed: tb,
        rate,
        doc,
        ..
    }) = run_on_slow_disk("37", flags)
    else {
        return;
    };
    assert!(
        doc["failures"].as_array().unwrap().is_empty(),
        "{}",
        doc["failures"]
    );
    // The testbed's token bucket starts full with 0.05 s of traffic (BURSTINESS in
    // scripts/testbed): a transfer of B bytes can finish as if B - burst had been moved at the
    // rate. That much, and no more, is allowed above the true rate.
    let burst = 0.05 * rate * 1e6;
    let allowance = |bytes: f64| bytes / (bytes - burst);
    let mut seen = Vec::new();
    for r in doc["results"].as_array().unwrap() {
        let name = format!(
            "{} {}",
            r["test"].as_str().unwrap(),
            r["variant"].as_str().unwrap()
        );
        assert_eq!(r["method"], "direct", "{name}");
        let median = num(&r["median"]);
        let deviation = (median - rate).abs() / rate;
        seen.push(format!(
            "{name}: median {median:.2} MB/s ({:+.1}%)",
            (median / rate - 1.0) * 100.0
        ));
        assert!(
            deviation <= 0.05,
            "{name}: median {median:.2} MB/s vs true {rate} MB/s"
        );
        for rep in r["repetitions"].as_array().unwrap() {
            let limit = if r["variant"] == "20-100MB" {
                // The mean of five files' rates, each file with its own full bucket at most.
                [20e6, 40e6, 60e6, 80e6, 100e6]
                    .iter()
                    .map(|&s| allowance(s))
                    .sum::<f64>()
                    / 5.0
            } else {
                allowance(num(&rep["bytes"]))
            };
            let figure = num(&rep["rate"]);
            assert!(
                figure <= rate * limit,
                "{name}: {figure:.2} MB/s is above the true rate {rate} (x{limit:.4} for the burst)"
            );
        }
    }
    assert_eq!(seen.len(), 6, "{seen:?}");
    eprintln!("slow-disk at {rate} MB/s: {}", seen.join("; "));
    assert!(entries(tb.mount()).iter().all(|e| e == "lost+found"));
}

/// Runs destbench on a testbed destination expecting a one-line runtime error.
fn refuses(tb: &Testbed, user: Option<&str>, needle: &str) {
    let mut cmd = match user {
        Some(user) => {
            let mut c = destbench_setpriv(&["--reuid", user, "--regid", user, "--clear-groups"]);
            // Not root's own history, which this user could not open anyway: one in a folder
            // of this test's that does not exist (a fixed path such as /nonexistent might).
            let absent = crate::support::test_tmpdir().join("absent");
            c.env("DESTBENCH_DB", absent.join("destbench-history.sqlite"));
            c
        }
        None => destbench(),
    };
    let before = entries(tb.mount());
    let output = cmd
        .args(["run", tb.mount().to_str().unwrap(), "--profile", "quick"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{}: {stderr}", tb.kind());
    assert!(
        stderr.contains(needle),
        "{}: expected '{needle}' in {stderr}",
        tb.kind()
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert_eq!(
        entries(tb.mount()),
        before,
        "{}: the destination changed",
        tb.kind()
    );
}

/// A read-only and a full destination: the run is refused, naming why, and nothing changes.
#[test]
fn read_only_and_full_destinations() {
    for (kind, needle) in [("readonly", "read-only"), ("full", "not enough free space")] {
        if let Some(tb) = Testbed::up(kind, &[]) {
            refuses(&tb, None, needle);
        }
    }
}

/// A `--source` folder larger than the destination's free space is refused before anything is
/// written, as `run` and the page's "What do you back up?" give it; one that fits is copied.
#[test]
fn a_source_folder_that_does_not_fit_is_refused() {
    let Some(tb) = Testbed::up("full", &[]) else {
        return;
    };
    let run = |source: &std::path::Path| {
        destbench()
            .args([
                "run",
                "--profile",
                "quick",
                "--tests",
                "files-copy",
                "--no-history",
            ])
            .arg("--source")
            .arg(source)
            .arg(tb.mount())
            .output()
            .unwrap()
    };
    let big = tempfile::tempdir().unwrap();
    for i in 0..12 {
        std::fs::write(big.path().join(format!("f{i}")), vec![1u8; 1 << 20]).unwrap();
    }
    let before = entries(tb.mount());
    let refused = run(big.path());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("not enough free space"), "{stderr}");
    assert_eq!(entries(tb.mount()), before, "the destination changed");
    let small = tempfile::tempdir().unwrap();
    std::fs::write(small.path().join("f"), vec![1u8; 1 << 20]).unwrap();
    let copied = run(small.path());
    assert!(copied.status.success(), "{copied:?}");
}

#[test]
fn destination_without_permission() {
    let Some(tb) = Testbed::up("noperm", &[]) else {
        return;
    };
    // As root (immutable directory) and as an ordinary user (mode 0555).
    refuses(&tb, None, "no permission to write");
    refuses(&tb, Some("65534"), "no permission to write");
}

/// When the disk fills up during a test, that test fails with "destination full", the others
/// still run, and the scratch directory is gone.
#[test]
fn filling_up_mid_run_fails_that_test_only() {
    let Some(tb) = Testbed::up("full", &[]) else {
        return;
    };
    // The 500 small files fit in the 8 MB filesystem; the 16 MiB block-test file and the 50 MB
    // file do not. --no-space-check lets the run start as if the filesystem had misreported.
    let mut run = destbench();
    run.arg("run").arg(tb.mount()).arg("--json");
    run.args(
        "--runs 1 --no-space-check --tests seq-write:SEQ1M-Q1T1,tm-check --size 16MiB".split(' '),
    );
    let (output, _) = exits(&mut run, 1);
    let doc: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    let failures = &doc["failures"];
    assert_eq!(
        test_variants(failures),
        ["seq-write SEQ1M-Q1T1", "tm-check 50MB"],
        "{failures}"
    );
    for f in failures.as_array().unwrap() {
        assert!(
            f["error"].as_str().unwrap().contains("destination full"),
            "{f}"
        );
    }
    assert!(num(&result(&doc, "tm-check", "500x4KB")["median"]) > 0.0);
    assert!(
        entries(tb.mount()).iter().all(|e| e == "lost+found"),
        "{:?}",
        entries(tb.mount())
    );
}

/// Copying the large set (1 thread and 4, write cache on) to a disk held to 40 MB/s lands within
/// 7% of the rate.
#[test]
#[ignore = "long: figures against an emulated device of known speed, which it holds alone"]
fn large_set_copy_matches_a_disk_of_known_speed() {
    let flags = "--runs 2 --sets large --set-size 120MB --size 40MiB --threads 1,4 \
                 --tests files-copy:large-1t-cache-on,files-copy:large-4t-cache-on";
    let Some(SlowDiskRun {
        testbed: _tb,
        rate,
        doc,
        _alone,
    }) = run_on_slow_disk("40", flags)
    else {
        return;
    };
    for variant in ["large-1t-cache-on", "large-4t-cache-on"] {
        let median = num(&result(&doc, "files-copy", variant)["median"]);
        eprintln!("slow-disk at {rate} MB/s: files-copy {variant} {median:.2} MB/s");
        assert!(
            (median - rate).abs() / rate <= 0.07,
            "{variant}: {median:.2} MB/s vs {rate}"
        );
    }
}

/// Over a 100 Mbit/s share: the large set copies within 8% of what TCP carries (11.7 MB/s), and
/// the small set pays a round trip per file: fewer files per second than the large-file rate
/// would allow for files of their size.
#[test]
#[ignore = "long: figures against an emulated device of known speed, which it holds alone"]
fn nas_copy_rates_and_the_per_file_cost() {
    let Some((_alone, tb)) = Testbed::up_alone("nas", &["--link", "100mbit"]) else {
        return;
    };
    let ceiling: f64 = tb
        .info("payload_ceiling_mb_s")
        .expect("payload ceiling")
        .parse()
        .unwrap();
    let doc = run_on(
        tb.mount(),
        "--runs 1 --sets large,small --set-size 40MB --size 20MiB --threads 1 \
         --tests files-copy:large-1t-cache-on,files-copy:small-1t-cache-off",
    );
    let large = num(&result(&doc, "files-copy", "large-1t-cache-on")["median"]);
    assert!(
        (large - ceiling).abs() / ceiling <= 0.08,
        "large set {large:.2} MB/s vs {ceiling}"
    );
    let small = result(&doc, "files-copy", "small-1t-cache-off");
    let files_per_s = num(&small["ops_per_s_median"]);
    let mean_size = num(&small["file_set"]["bytes"]) / num(&small["file_set"]["files"]);
    let bandwidth_bound = large * 1e6 / mean_size;
    eprintln!(
        "nas 100mbit: large {large:.2} MB/s; small {files_per_s:.0} files/s of {mean_size:.0} B \
         against {bandwidth_bound:.0} files/s if only bandwidth counted"
    );
    // What each small file costs beyond moving its bytes at the large-file rate: the SFTP round
    // trips of create, write, fsync and close. Seen here: 0.27-0.66 ms per file.
    let per_file_ms = (1.0 / files_per_s - 1.0 / bandwidth_bound) * 1e3;
    eprintln!("nas 100mbit: {per_file_ms:.2} ms per file beyond the bandwidth");
    assert!(
        per_file_ms > 0.1,
        "{files_per_s} files/s vs {bandwidth_bound}: only {per_file_ms:.3} ms per file"
    );
}

/// A server whose disk is slower than its link: sshfs over 1 Gbit/s, its export on a disk held
/// to 25 MB/s (the scenario of the lab's cifs and nfs3 guests, lab::server, here over SFTP).
/// The verdict names the server's disks; the write it judges by lies between dd's `conv=fsync`
/// through the share (less 5%) and the disk's own (more 5%): the server takes each file into
/// its memory and writes it at the flush, so the share's durable write runs a little under the
/// disk's; the read of what the server just received carries at least three times that.
#[cfg(target_os = "linux")]
#[test]
#[ignore = "long: figures against an emulated device of known speed, which it holds alone"]
fn a_slow_disk_behind_sshfs_is_the_servers_disks() {
    let Some((_alone, disk)) = Testbed::up_alone("slow-disk", &["--rate", "25"]) else {
        return;
    };
    let export = disk.mount().to_str().expect("a UTF-8 path");
    // Declared after the disk, so dropped (brought down) before it.
    let Some(share) = Testbed::up("nas", &["--link", "1gbit", "--export", export]) else {
        return;
    };
    let durable_dd = |dir: &std::path::Path| {
        let file = dir.join("dd-truth");
        let rate = dd_write(&file, 100, "conv=fsync");
        std::fs::remove_file(&file).expect("removing dd's file");
        rate
    };
    let disk_dd = durable_dd(disk.mount());
    let share_dd = durable_dd(share.mount());
    let doc = run_on(
        share.mount(),
        "--tests seq-write:20-100MB,seq-read:SEQ1M-Q8T1 --size 50M --runs 1 --no-history",
    );
    let v = &doc["verdict"];
    let s = &doc["share"];
    let (durable, wire) = (num(&s["durable_write_mb_s"]), num(&s["wire_mb_s"]));
    eprintln!(
        "sshfs, export at 25 MB/s: dd conv=fsync {disk_dd:.2} on the disk, {share_dd:.2} through \
         the share; destbench durable {durable:.2}, read {wire:.2} MB/s; {}",
        v["summary"]
    );
    assert_eq!(v["kind"], "server-storage", "{v}");
    assert_eq!(s["limit"], "server-disks", "{s}");
    assert_eq!(num(&v["measured_mb_s"]), durable, "{v}");
    assert!(
        (share_dd * 0.95..=disk_dd * 1.05).contains(&durable),
        "the durable write {durable:.2} MB/s outside {share_dd:.2} (through the share) less 5% \
         to {disk_dd:.2} (the disk) more 5%"
    );
    assert!(
        wire >= 3.0 * durable,
        "read {wire:.2} vs write {durable:.2}"
    );
    let summary = v["summary"].as_str().expect("a summary");
    assert!(
        summary.starts_with("The server's disks are the limit"),
        "{summary}"
    );
}
