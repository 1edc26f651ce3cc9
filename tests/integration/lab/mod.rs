//! destbench on real kernel drivers: `scripts/lab` boots Debian's kernel in a qemu guest with the
//! destination on a USB 2.0 (BOT), UAS, SATA or NVMe bus (docs/lab.md).
//!
//! One guest boot per test runs `info`, a truth measured in the same guest (`dd`, `xfs_io`,
//! `cp`) and destbench beside it; the lab script holds a lock, so the guests run one at a time.
//! Each phase lasts 5-10 s at the throttle, past qemu's initial burst.
//!
//! Every test is `#[ignore]`d, and run alone (`cargo test --test integration lab:: --
//! --ignored`): a guest's figures include its emulated CPU, so no other test may share the
//! host's cores with it (docs/lab.md, "The tests").

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

use crate::support::{require_root_and, skip};

mod server;

/// The guest's commands on a disk: sections that `Lab::section` splits again. `$MB` and `$SET_MB`
/// (set by `Lab::run`) are what the phases move, long enough to get past qemu's initial burst.
const GUEST: &str = include_str!("disk.sh");

struct Lab {
    stdout: String,
    /// The guest's stderr, shown when a section cannot be read.
    stderr: String,
}

impl Lab {
    /// Boots a guest on `dest` held to `throttle` MB/s and runs `GUEST` in it: each dd and
    /// block phase moves 10 s of the throttle, and so does the file set up to 400 MB (the
    /// guest's RAM holds it as the source). None when the lab cannot run here (skipped, or a
    /// failure under DESTBENCH_REQUIRE_ALL).
    fn run(dest: &str, throttle: u32) -> Option<Lab> {
        let mb = throttle * 10;
        let set_mb = mb.min(400);
        let rounds = copy_rounds(dest);
        let tm_rounds = if tm_check_is_held(dest) { 3 } else { 0 };
        let guest = format!(
            "MB={mb}\nSET_MB={set_mb}\nTM_ROUNDS={tm_rounds}\nCOPY_ROUNDS={rounds}\n{GUEST}"
        );
        // 2 GiB of RAM hold a 400 MB set in the guest's /tmp; the disk holds dd's file,
        // destbench's block file and the set's copy.
        let options = [
            "--throttle",
            &throttle.to_string(),
            "--memory",
            "2048",
            "--size",
            "2048",
        ];
        Lab::run_script(dest, &options, &guest)
    }

    /// Boots a guest on `dest` with `scripts/lab` options `options` and runs `guest` in it.
    fn run_script(dest: &str, options: &[&str], guest: &str) -> Option<Lab> {
        if !require_root_and(&[
            "qemu-system-x86_64",
            "apt-get",
            "dpkg-deb",
            "cpio",
            "mkfs.ext4",
        ]) {
            return None;
        }
        if std::env::consts::ARCH != "x86_64" {
            skip("the lab boots an amd64 kernel with qemu-system-x86_64");
            return None;
        }
        let dir = tempfile::tempdir().expect("a temporary directory");
        let script = dir.path().join("guest.sh");
        std::fs::write(&script, guest).expect("writing the guest script");
        let console = dir.path().join("console.log");
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let mut cmd = Command::new(root.join("scripts/lab"));
        cmd.arg("--binary")
            .arg(env!("CARGO_BIN_EXE_destbench"))
            .arg("--console")
            .arg(&console)
            .arg("--timeout")
            .arg("600")
            .arg("--script")
            .arg(&script);
        cmd.args(options).arg(dest);
        let mut out = cmd.output().expect("running scripts/lab");
        // The emulated disk itself can stop answering (the guest's kernel reports hung tasks):
        // the emulator, not a figure, so such a guest is booted once more; a second hang fails.
        let console_text = || std::fs::read_to_string(&console).unwrap_or_default();
        if out.status.code() == Some(125) && console_text().contains("blocked for more than") {
            append_row(&format!(
                "{dest:<20} the guest's disk stopped answering (the kernel reported hung tasks); booted again\n"
            ));
            out = cmd.output().expect("running scripts/lab");
        }
        // The table says where the lab's minutes went, guest by guest (scripts/lab's own clock:
        // this test's would count the wait for the lab's lock).
        let stderr = String::from_utf8_lossy(&out.stderr);
        let took = stderr.lines().filter(|l| l.contains(" from the lock on"));
        for line in took {
            append_row(&format!("{dest:<20} {line} ({})\n", out.status));
        }
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success() && stdout.contains("=== end"),
            "lab {dest}: {}\nstdout:\n{stdout}\nstderr:\n{}\nconsole:\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr),
            console_text()
        );
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        Some(Lab { stdout, stderr })
    }

    fn section(&self, name: &str) -> &str {
        let start = format!("=== {name}\n");
        let from = self.stdout.find(&start).expect("the section") + start.len();
        let rest = &self.stdout[from..];
        // A command that printed nothing leaves its section empty, the next marker at once.
        let end = if rest.starts_with("=== ") {
            0
        } else {
            rest.find("\n=== ").map_or(rest.len(), |i| i + 1)
        };
        &rest[..end]
    }

    /// MB/s (10^6 bytes/s) from dd's summary line: "104857600 bytes (...) copied, 5.2 s, ...".
    fn dd(&self, name: &str) -> f64 {
        let (bytes, secs) = self.dd_bytes_and_seconds(name);
        bytes / secs / 1e6
    }

    fn dd_bytes_and_seconds(&self, name: &str) -> (f64, f64) {
        let line = self.section(name).trim();
        let bytes: f64 = line
            .split_whitespace()
            .next()
            .and_then(|b| b.parse().ok())
            .unwrap_or_else(|| panic!("dd's byte count in {line:?}"));
        let secs: f64 = line
            .split_once("copied, ")
            .and_then(|(_, rest)| rest.split(' ').next())
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("dd's seconds in {line:?}"));
        (bytes, secs)
    }

    /// Time Machine's check against its truth, each the median of the three alternating
    /// pairs `xfs-tm<i>` (xfs_io writing a new 50 MB file directly, with its `fsync`) and
    /// `tm<i>`: (destbench, xfs_io) in MB/s.
    fn tm_check_and_truth(&self) -> (f64, f64) {
        let tm = three(|i| self.median_in(&format!("tm{i}"), "tm-check", Some("50MB")));
        let truth = three(|i| self.xfs_io(&format!("xfs-tm{i}")));
        eprintln!("tm-check 50MB runs {tm:.2?} MB/s, xfs_io {truth:.2?} MB/s");
        (destbench::median(&tm), destbench::median(&truth))
    }

    /// The cached copy of large files against its truth, each the median of the `rounds`
    /// alternating pairs `cp<i>` (`cp -r` and `sync`, a line of "bytes start end" in seconds
    /// of uptime) and `copy<i>` (one destbench repetition): (destbench, cp) in MB/s.
    ///
    /// Each side first copies one file of the set and waits: under TCG, whatever runs right
    /// after a destbench process runs cold (docs/lab.md, "A warm-up before each copy").
    fn copy_and_truth(&self, rounds: usize) -> (f64, f64) {
        let copy: Vec<f64> = (1..=rounds)
            .map(|i| self.median_in(&format!("copy{i}"), "files-copy", Some("large-1t-cache-on")))
            .collect();
        let cp: Vec<f64> = (1..=rounds)
            .map(|i| {
                let section = self.section(&format!("cp{i}"));
                let v: Vec<f64> = section
                    .split_whitespace()
                    .map(|x| x.parse().unwrap_or_else(|_| panic!("cp{i}: {section:?}")))
                    .collect();
                assert_eq!(v.len(), 3, "cp{i}: bytes, start and end in {section:?}");
                v[0] / (v[2] - v[1]) / 1e6
            })
            .collect();
        eprintln!("files-copy large runs {copy:.2?} MB/s, cp -r and sync {cp:.2?} MB/s");
        (destbench::median(&copy), destbench::median(&cp))
    }

    /// MB/s (10^6 bytes/s) from xfs_io's summary of a `pwrite` or `pread`:
    /// "100 MiB, 100 ops; 0:00:09.12 (10.955 MiB/sec and 10.9547 ops/sec)".
    fn xfs_io(&self, name: &str) -> f64 {
        let section = self.section(name);
        let rate = section
            .lines()
            .find_map(|line| {
                line.split_once(" ops; ")?
                    .1
                    .split_once('(')?
                    .1
                    .split_once("/sec")
            })
            .map(|(rate, _)| rate)
            .unwrap_or_else(|| panic!("xfs_io's rate in section {name}: {section:?}"));
        let (value, unit) = rate
            .split_once(' ')
            .unwrap_or_else(|| panic!("xfs_io's rate {rate:?}"));
        let value: f64 = value
            .parse()
            .unwrap_or_else(|_| panic!("xfs_io's rate {rate:?}"));
        let unit = match unit {
            "bytes" => 1.0,
            "KiB" => 1024.0,
            "MiB" => 1024.0 * 1024.0,
            "GiB" => 1024.0 * 1024.0 * 1024.0,
            _ => panic!("xfs_io's unit in {rate:?}"),
        };
        value * unit / 1e6
    }

    fn report(&self) -> Value {
        self.report_in("run")
    }

    /// The `run --json` document printed in section `name`.
    fn report_in(&self, name: &str) -> Value {
        let section = self.section(name);
        serde_json::from_str(section).unwrap_or_else(|e| {
            panic!(
                "section {name}: run --json output: {e}\n{section}\nthe guest's stderr:\n{}",
                self.stderr
            )
        })
    }

    fn median(&self, test: &str) -> f64 {
        self.median_of(test, None)
    }

    /// The median of `test`'s result (its `variant`, where given).
    fn median_of(&self, test: &str, variant: Option<&str>) -> f64 {
        self.median_in("run", test, variant)
    }

    /// The median of `test`'s result in the run document of section `name`.
    fn median_in(&self, name: &str, test: &str, variant: Option<&str>) -> f64 {
        let report = self.report_in(name);
        let r = report["results"]
            .as_array()
            .expect("results")
            .iter()
            .find(|r| r["test"] == test && variant.is_none_or(|v| r["variant"] == v))
            .unwrap_or_else(|| panic!("a {test} {variant:?} result in {report}"));
        r["median"].as_f64().expect("a median")
    }
}

/// Runs a lab test; when it fails, boots its guest once more and runs it again, and fails
/// only if that fails too. The first failure's message goes to the table. The host's load
/// moves every figure in a guest; a second, independent guest tells the emulator's bad minute
/// from destbench's error, which misses in both (docs/lab.md, "A second guest").
fn held_on_a_second_guest(test: &str, run: impl Fn() + std::panic::RefUnwindSafe) {
    let Err(failure) = std::panic::catch_unwind(&run) else {
        return;
    };
    let message = failure
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| failure.downcast_ref::<&str>().copied())
        .unwrap_or("a panic without a message");
    let first_line = message.lines().next().unwrap_or_default();
    append_row(&format!(
        "{test}: missed in the first guest ({first_line}); booted a second guest\n"
    ));
    run();
}

/// Whether the cached copy of large files is held to `cp`'s on this disk: only at 5 MB/s,
/// where the emulated CPU's share of the copy is small (see `throttled_disk`).
fn copy_is_held(dest: &str) -> bool {
    dest == "sata"
}

/// Rounds of the cached copy on each side: three where it is held, none elsewhere (each round
/// costs the lab's time).
fn copy_rounds(dest: &str) -> usize {
    if copy_is_held(dest) { 3 } else { 0 }
}

/// Whether Time Machine's 50 MB check is held to xfs_io's on this disk: on NVMe, the fast end
/// of the buses (the testbed holds the same check at 26-100 MB/s, precision_coverage.rs;
/// docs/lab.md says why not on SATA too).
fn tm_check_is_held(dest: &str) -> bool {
    dest == "nvme"
}

/// A figure from each of three rounds, 1 to 3.
fn three(figure: impl Fn(usize) -> f64) -> [f64; 3] {
    [1, 2, 3].map(figure)
}

/// Appends the destination's row to `target/tmp/lab-table.txt` (CI prints it): true speeds
/// as dd measured them, destbench's figures and its verdict.
fn table_row(what: &str, lab: &Lab, tm_check: Option<(f64, f64)>, copy: Option<(f64, f64)>) {
    // A figure this disk does not measure (see `tm_check_is_held`, `copy_is_held`) reads "-".
    let figure = |x: Option<f64>| x.map_or(format!("{:>6}", "-"), |x| format!("{x:6.2}"));
    let (tm, tm_truth) = (figure(tm_check.map(|p| p.0)), figure(tm_check.map(|p| p.1)));
    let (cp, copy) = (figure(copy.map(|p| p.1)), figure(copy.map(|p| p.0)));
    let report = lab.report();
    let row = format!(
        "{what:<20} dd write {:6.2} (new) {:6.2} (rewrite), read {:6.2}; xfs_io 50 MB new {tm_truth}; cp+sync {cp} | destbench write {:6.2}, read {:6.2}, tm-check 50MB {tm}, files-copy large {copy} MB/s | {}\n",
        lab.dd("dd-write"),
        lab.dd("dd-rewrite"),
        lab.dd("dd-read"),
        lab.median("seq-write"),
        lab.median("seq-read"),
        report["verdict"]["summary"]
            .as_str()
            .unwrap_or("no verdict"),
    );
    append_row(&row);
}

/// Appends a line to `target/tmp/lab-table.txt`, which CI prints after the tests.
fn append_row(row: &str) {
    use std::io::Write;
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("lab-table.txt");
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| f.write_all(row.as_bytes()))
        .expect("appending to the lab's table");
}

/// How far a share's figure may be from xfs_io's in the same guest: the 5%. Not dd's:
/// dd fills every block from /dev/zero on the emulated CPU while the link idles (docs/lab.md,
/// "dd pays for its own buffer on a share").
const SHARE_TOLERANCE: f64 = 0.05;

fn assert_within(what: &str, got: f64, truth: f64, tolerance: f64) {
    let off = (got - truth).abs() / truth;
    assert!(
        off <= tolerance,
        "{what}: {got:.2} MB/s vs {truth:.2} MB/s, {:.1}% off (allowed {:.0}%)",
        off * 100.0,
        tolerance * 100.0
    );
}

/// The chain names the bus and its driver; the figures are the dd-measured rate within 5% and
/// the throttle within 5%; the verdict names the right limit (the device, or USB 2.0 when the
/// throttle is near its ceiling) and its percentage is that rate over the link's ceiling.
fn throttled_disk(dest: &str, throttle: u32, chain: &[&str], narrowest: &str) {
    let Some(lab) = Lab::run(dest, throttle) else {
        return;
    };
    let tm_check = tm_check_is_held(dest).then(|| lab.tm_check_and_truth());
    let copy = copy_is_held(dest).then(|| lab.copy_and_truth(copy_rounds(dest)));
    table_row(&format!("{dest} at {throttle} MB/s"), &lab, tm_check, copy);
    let info = lab.section("info");
    for want in chain {
        assert!(info.contains(want), "{dest}: {want:?} not in\n{info}");
    }
    // Without smartctl in the guest, the disk says how to install it and `info` goes on; with it
    // (`chain` above), the guest's own smartctl reads qemu's disk or names the bridge.
    let without = lab.section("info-without-smartctl");
    assert!(
        without.contains("SMART: not read: smartctl is not installed (install the smartmontools"),
        "{dest}: {without}"
    );
    // The write truth is dd overwriting its file in place: a new file also pays for ext4's
    // allocation and journal. The block tests last 10 s, as dd's phases: 2 s take in qemu's
    // burst (docs/lab.md, "A 2 s sample includes the throttle's burst").
    for (dd, test) in [("dd-rewrite", "seq-write"), ("dd-read", "seq-read")] {
        let truth = lab.dd(dd);
        assert_within(
            &format!("{dest} {dd} vs throttle"),
            truth,
            throttle as f64,
            0.05,
        );
        assert_within(&format!("{dest} {test}"), lab.median(test), truth, 0.05);
    }
    // Time Machine's check writes one new 50 MB file; its truth is xfs_io writing a new 50 MB
    // file directly with its fsync, each side the median of three, alternating, each after a
    // warm-up write (docs/lab.md, "Time Machine's truth").
    if let Some((tm, truth)) = tm_check {
        assert_within(&format!("{dest} tm-check 50MB"), tm, truth, 0.05);
    }
    // A copy of large files through the page cache, timed to the end of a sync: its truth is
    // `cp -r` and `sync` of a set as large in the same guest, the two alternating, within 7%
    // (the bound). Held on SATA at 5 MB/s only: elsewhere the truth itself does not
    // hold still (docs/lab.md, "Where the cached copy is held").
    if let Some((copy, cp)) = copy {
        assert_within(
            &format!("{dest} files-copy large-1t-cache-on vs cp -r and sync"),
            copy,
            cp,
            0.07,
        );
    }
    let report = lab.report();
    let v = &report["verdict"];
    let summary = v["summary"].as_str().expect("a summary");
    // The link is the limit at 85% of its practical rate or more, the device below that.
    if rate_near_ceiling(&lab, v) {
        assert_eq!(v["kind"], "limited-by-link", "{dest}: {v}");
        assert!(
            summary.starts_with(&format!("{narrowest} is the limit")),
            "{summary}"
        );
    } else {
        assert_eq!(v["kind"], "device-or-protocol", "{dest}: {v}");
        assert!(
            summary.starts_with("The device itself is the limit"),
            "{summary}"
        );
    }
    assert!(!info.contains("driver unknown"), "{info}");
    // The answer comes first, with a what-if only where the link limits: a faster port does
    // nothing for a disk that is slower than the link it is on.
    let answer = &report["answer"];
    let first = answer["words"][0].as_str().unwrap_or_default();
    assert!(
        first.starts_with("A first backup of your data here"),
        "{dest}: {answer}"
    );
    assert_eq!(
        answer["what_if"].is_null(),
        v["kind"] != "limited-by-link",
        "{dest}: {answer}"
    );
    assert_eq!(v["bottleneck"]["link"], narrowest, "{dest}: {v}");
    let ceiling = v["bottleneck"]["practical_mb_s"]
        .as_f64()
        .expect("a ceiling");
    let rate = lab.median("seq-write").max(lab.median("seq-read"));
    let percent = format!("{:.0}%", rate / ceiling * 100.0);
    assert!(summary.contains(&percent), "{percent} not in {summary}");
}

/// True when the better sequential figure is at least 85% of the narrowest link's practical
/// rate: the verdict then names the link as the limit.
fn rate_near_ceiling(lab: &Lab, v: &Value) -> bool {
    let ceiling = v["bottleneck"]["practical_mb_s"]
        .as_f64()
        .expect("a ceiling");
    lab.median("seq-write").max(lab.median("seq-read")) >= 0.85 * ceiling
}

/// USB 2.0 (BOT) held to 8 MB/s: the verdict measures it against USB 2.0 (BOT), as the limit
/// or as how far below its ceiling the disk ran. The throttle leaves the emulated bus room: it
/// falls behind on a loaded machine (docs/lab.md, "USB 2.0's throttle").
#[test]
#[ignore = "the lab: qemu guests, about 25 minutes (docs/lab.md)"]
fn lab_usb2_bot_is_measured_against_usb2() {
    held_on_a_second_guest("lab_usb2_bot_is_measured_against_usb2", || {
        throttled_disk(
            "usb2",
            8,
            &[
                "USB 2.0 (BOT)",
                "speed: 480 Mbit/s",
                "driver: usb-storage",
                "device queue depth: 1",
                "SMART: not read: the USB bridge (USB vendor id 46f4) does not pass SMART through",
            ],
            "USB 2.0 (BOT)",
        );
    });
}

#[test]
#[ignore = "the lab: qemu guests, about 25 minutes (docs/lab.md)"]
fn lab_uas_throttled_is_the_device() {
    held_on_a_second_guest("lab_uas_throttled_is_the_device", || {
        // 20, not 40: the emulated xHCI falls behind on a loaded machine (docs/lab.md).
        throttled_disk(
            "uas",
            20,
            &[
                "USB 3.x Gen 1 (UAS)",
                "speed: 5000 Mbit/s",
                "driver: uas",
                "SMART: not read: the USB bridge (USB vendor id 46f4) does not pass SMART through",
            ],
            "PCIe Gen1",
        );
    });
}

/// The slow end: a SATA disk held to 5 MB/s (50 MB phases, 10 s each).
#[test]
#[ignore = "the lab: qemu guests, about 25 minutes (docs/lab.md)"]
fn lab_sata_at_5_mb_s_is_the_device() {
    held_on_a_second_guest("lab_sata_at_5_mb_s_is_the_device", || {
        throttled_disk(
            "sata",
            5,
            &[
                "SATA I (1.5 Gbps)",
                "device queue depth: 32",
                // qemu answers SMART on an AHCI disk; the lab's disk spins and has no TRIM.
                "SMART assessment: passed",
                "reallocated sectors: 0",
                "power-on hours: ",
                "rotation: 7200 rpm",
                "TRIM: not supported",
                "recording: not known: no published list names QEMU",
            ],
            "SATA I",
        );
    });
}

#[test]
#[ignore = "the lab: qemu guests, about 25 minutes (docs/lab.md)"]
fn lab_nvme_throttled_is_the_device() {
    held_on_a_second_guest("lab_nvme_throttled_is_the_device", || {
        throttled_disk(
            "nvme",
            40,
            &[
                "NVMe over pcie",
                "PCIe Gen1 x1",
                // qemu's NVMe answers the health log.
                "SMART assessment: passed",
                "critical warning: none",
                "endurance used: 0%",
                "media errors: 0",
                "rotation: solid state",
                "recording: not known: no published list names QEMU",
            ],
            "PCIe Gen1",
        );
    });
}

/// The facts every share's chain names: the server, and the NIC as an Ethernet link with its
/// speed and driver (qemu's e1000e reports 1000 Mbit/s as real hardware does); SMART is the
/// server's.
const SHARE_CHAIN: [&str; 5] = [
    "server: 10.0.2.2",
    "interface eth0 (Ethernet, 1000 Mbit/s)",
    "speed: 1000 Mbit/s",
    "driver: e1000e",
    "SMART: not read: the disks are the server's: read SMART on the server",
];

fn share_info(dest: &str, options: &[&str], guest: &str, chain: &[&str]) -> Option<Lab> {
    let lab = Lab::run_script(dest, options, guest)?;
    let info = lab.section("info");
    for want in SHARE_CHAIN.iter().chain(chain) {
        assert!(info.contains(want), "{dest}: {want:?} not in\n{info}");
    }
    Some(lab)
}

/// How much of a share's measurement is held.
#[derive(Clone, Copy)]
enum Held {
    /// Three alternating rounds, destbench held within [`SHARE_TOLERANCE`] of xfs_io.
    Figures,
    /// The same, and buffered writes with fsync (`--buffered`) too, both tools, held as well.
    FiguresAndFsync,
}

/// A share over a 100 Mbit/s link both ways (netem in the guest shapes what it sends, htb on
/// the host what the server sends back), declared with --link-speed 100mbit: the chain names
/// the mount (`chain`, with the server and NIC), the queue-depth-1 write and read figures are
/// xfs_io's (also one 1 MiB direct transfer at a time, see [`SHARE_TOLERANCE`]) in the same
/// guest within 5%, each the median of three, and the verdict names the declared link as the
/// limit. Like with like: at depth 1 the link idles while each reply comes back, where
/// SEQ1M-Q8T1 keeps it full.
///
/// The two sides alternate (xfs_io's rewrite and read, then one destbench repetition of each
/// variant, three times), each after `sync` and the same 5 s pause, as the host's load moves
/// every figure and the share's disk discards (docs/lab.md, "What the lab found"). One dd
/// rewrite is printed beside them, not held.
fn shaped_share(dest: &str, options: &[&str], chain: &[&str], held: Held) {
    const GUEST: &str = include_str!("share.sh");
    let rounds = [1, 2, 3];
    let fsync_too = matches!(held, Held::FiguresAndFsync);
    let guest = format!(
        "ROUNDS={}\nFSYNC_TOO={}\n{GUEST}",
        rounds.len(),
        u8::from(fsync_too),
    );
    let options: Vec<&str> = options
        .iter()
        .copied()
        .chain(["--netem", "rate 100mbit", "--rate-in", "100mbit"])
        .collect();
    let Some(lab) = share_info(dest, &options, &guest, chain) else {
        return;
    };
    let lab = &lab;
    let medians = |figure: &dyn Fn(usize) -> f64| {
        let figures: Vec<f64> = rounds.iter().map(|&i| figure(i)).collect();
        (destbench::median(&figures), figures)
    };
    // SEQ1M writes go over a file laid down before; so does xfs_io's rewrite (its first write,
    // into a new file, is printed too).
    let run = |section: &'static str, test: &'static str| {
        move |i: usize| lab.median_in(&format!("{section}-{i}"), test, Some("SEQ1M-Q1T1"))
    };
    let xfs_io = |section: &'static str| move |i: usize| lab.xfs_io(&format!("{section}-{i}"));
    let (truth, rewrites) = medians(&xfs_io("write"));
    let (read_truth, reads) = medians(&xfs_io("read"));
    let (figure, figures) = medians(&run("run", "seq-write"));
    let (read, read_figures) = medians(&run("run", "seq-read"));
    let (queued, _) =
        medians(&|i| lab.median_in(&format!("run-{i}"), "seq-write", Some("SEQ1M-Q8T1")));
    let mut row = format!(
        "{:<20} xfs_io write {:6.2} (new) {truth:6.2} (rewrite, median of {rewrites:.2?}), read {read_truth:6.2} (median of {reads:.2?}), 100 MB direct; dd rewrite {:6.2} | destbench write Q1 {figure:6.2} (median of {figures:.2?}), Q8 {queued:6.2}, read Q1 {read:6.2} (median of {read_figures:.2?}) MB/s, {} x 5 s, alternating with xfs_io",
        format!("{dest} netem 100mbit"),
        lab.xfs_io("write-new"),
        lab.dd("dd-rewrite"),
        rounds.len(),
    );
    let mut within = vec![
        ("seq-write SEQ1M-Q1T1 vs xfs_io", figure, truth),
        ("seq-read SEQ1M-Q1T1 vs xfs_io", read, read_truth),
    ];
    if fsync_too {
        let (fsync_truth, _) = medians(&xfs_io("fsync"));
        let (fsync, _) = medians(&run("run-fsync", "seq-write"));
        for i in &rounds {
            let method = &lab.report_in(&format!("run-fsync-{i}"))["results"][0]["method"];
            assert_eq!(method, "fsync", "{dest} --buffered");
        }
        row +=
            &format!("; fsync'd buffered writes: xfs_io {fsync_truth:6.2}, destbench {fsync:6.2}");
        within.push(("seq-write fsync vs xfs_io the same way", fsync, fsync_truth));
        within.push(("seq-write fsync vs direct", fsync, figure));
    }
    // The verdict of the repetition whose judged rate is the middle one.
    let mut reports: Vec<Value> = rounds
        .iter()
        .map(|i| lab.report_in(&format!("run-{i}")))
        .collect();
    reports.sort_by(|a, b| {
        let judged = |r: &Value| r["verdict"]["measured_mb_s"].as_f64().unwrap_or(0.0);
        judged(a).total_cmp(&judged(b))
    });
    let v = &reports[rounds.len() / 2]["verdict"];
    let summary = v["summary"].as_str().expect("a summary");
    append_row(&format!("{row} | {summary}\n"));
    for (what, got, want) in within {
        assert_within(&format!("{dest} {what}"), got, want, SHARE_TOLERANCE);
    }
    // The shape holds what the guest receives, too: no faster than the wire's 12.5 MB/s,
    // and not far below it.
    assert!(
        (10.0..=12.5 * 1.02).contains(&read_truth),
        "{dest}: xfs_io read {read_truth:.2} MB/s over a 100 Mbit/s shape"
    );
    assert_eq!(v["kind"], "limited-by-link", "{v}");
    assert_eq!(v["bottleneck"]["declared"], true, "{v}");
    assert!(summary.starts_with("The declared link"), "{summary}");
    // The answer's what-if: the next Ethernet rate above the declared 100 Mbit/s.
    let answer = &reports[rounds.len() / 2]["answer"];
    assert_eq!(answer["what_if"]["instead"], "a 1 Gbit/s link", "{answer}");
}

#[test]
#[ignore = "the lab: qemu guests, about 25 minutes (docs/lab.md)"]
fn lab_nfs4_netem_is_limited_by_the_declared_link() {
    held_on_a_second_guest("lab_nfs4_netem_is_limited_by_the_declared_link", || {
        shaped_share(
            "nfs4",
            &[],
            &["filesystem: nfs4", "vers: 4.1", "proto: tcp", "hard: yes"],
            Held::Figures,
        );
    });
}

/// SMB 3.0 with `cache=none` (every read and write goes to the server, as O_DIRECT does). O_DIRECT
/// against buffered writes with fsync, as users ask: both ways, each tool, each held within 5%
/// of xfs_io writing the same way and of each other, and every figure says how it was measured.
/// (`cache=strict` varies from run to run through its page cache: docs/lab.md.)
#[test]
#[ignore = "the lab: qemu guests, about 25 minutes (docs/lab.md)"]
fn lab_cifs_netem_is_limited_by_the_declared_link() {
    held_on_a_second_guest("lab_cifs_netem_is_limited_by_the_declared_link", || {
        shaped_share(
            "cifs",
            &["--cifs-cache", "none"],
            &[
                "cifs at /mnt/dest from //10.0.2.2/share",
                "vers: 3.0",
                "cache: none",
                "rsize: 4194304",
                "wsize: 4194304",
            ],
            Held::FiguresAndFsync,
        );
    });
}
