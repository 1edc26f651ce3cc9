//! Fidelity of tm-backup's replay to the trace it was built from: the replay's own system calls,
//! recorded by strace on a real run, held against the tables of the SMB trace of macOS 15.7.9's
//! first backup (repository `djosh34/s3-smb`: `research-tm-mac-trace.md`, "mac-trace", and
//! `research-tm-hotspots.md`, "hotspots"). Each check prints the replay's figure beside the
//! trace's, with its tolerance and where the tolerance comes from (docs/tm-backup.md).

use std::collections::HashMap;

use crate::support::{assert_success, destbench, disk_tempdir, have_program, skip};

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;
/// The quick profile's user data.
const USER_BYTES: u64 = 64 * MIB;

/// One system call on a file of the bundle.
#[derive(Debug)]
struct Call {
    name: String,
    /// The path below the bundle (`bands/6`, `Info.plist`).
    file: String,
    len: u64,
    offset: u64,
    /// What an `openat` opened, below the bundle.
    opened: Option<String>,
}

/// `PID  name(FD</path>, ...) = RESULT` as `strace -f -y -s 0` writes it; None for calls on
/// other files.
fn parse(line: &str) -> Option<Call> {
    let rest = line.split_once(' ')?.1.trim_start();
    let (name, args) = rest.split_once('(')?;
    let below = |s: &str| -> Option<String> {
        let path = s.split_once('<')?.1.split_once('>')?.0;
        // The first bundle only: the replay beside a reader makes another (`tm-beside-N`).
        let (bundle, below) = path.split_once(".sparsebundle/")?;
        bundle.contains("/tm-backup-").then(|| below.to_string())
    };
    let (call_args, result) = args.rsplit_once(") = ")?;
    let numbers: Vec<u64> = call_args
        .rsplit(", ")
        .take(2)
        .map_while(|n| n.parse().ok())
        .collect();
    let opened = (name == "openat").then(|| below(result)).flatten();
    let file = below(call_args).or_else(|| opened.clone())?;
    let (offset, len) = match (name, numbers.as_slice()) {
        ("pwrite64", [offset, len]) => (*offset, *len),
        _ => (0, 0),
    };
    Some(Call {
        name: name.to_string(),
        file,
        len,
        offset,
        opened,
    })
}

/// The replay's calls on its bundle, from a quick run at the trace's band size (256 MiB).
fn record() -> Option<Vec<Call>> {
    if !have_program("strace") {
        skip("needs strace (apt-get install strace)");
        return None;
    }
    let dest = disk_tempdir("tm-fidelity");
    let log = dest.path().join("strace.log");
    let run = destbench();
    let out = std::process::Command::new("strace")
        .args(["-f", "-y", "-qq", "-s", "0", "-o"])
        .arg(&log)
        .args([
            "-e",
            "trace=openat,pwrite64,fdatasync,fsync,ftruncate,close",
        ])
        .arg(run.get_program())
        .args(["run", dest.path().to_str().unwrap(), "--tests", "tm-backup"])
        .args([
            "--profile",
            "quick",
            "--engine",
            "sync",
            "--band-size",
            "256M",
        ])
        .args(["--seed", "1", "--no-history", "--json"])
        .envs(run.get_envs().filter_map(|(k, v)| Some((k, v?))))
        .output()
        .unwrap();
    assert_success(&out);
    let text = std::fs::read_to_string(&log).unwrap();
    Some(text.lines().filter_map(parse).collect())
}

/// The first backup's calls: up to the barrier after the last of its 64 MiB of user data.
fn first_backup(calls: &[Call]) -> &[Call] {
    let mut data = 0;
    for (i, c) in calls.iter().enumerate() {
        if c.name == "pwrite64" && c.file.starts_with("bands/") && c.len == 256 * KIB {
            data += c.len;
        }
        if data >= USER_BYTES && c.name == "fsync" && c.file == "Info.plist" {
            return &calls[..=i];
        }
    }
    panic!("the first backup never wrote its {USER_BYTES} bytes of user data")
}

fn writes<'a>(calls: &'a [Call], dir: &'a str) -> impl Iterator<Item = &'a Call> + 'a {
    calls
        .iter()
        .filter(move |c| c.name == "pwrite64" && c.file.starts_with(dir))
}

/// Prints one figure beside the trace's and checks it against its tolerance.
fn compare(what: &str, replay: f64, trace: &str, (low, high): (f64, f64), why: &str) {
    let ok = (low..=high).contains(&replay);
    println!(
        "{what:<44} replay {replay:>9.3}   trace {trace:<24} accepted {low:.3}..{high:.3} ({why}){}",
        if ok { "" } else { "   <-- OUT" }
    );
    assert!(ok, "{what}: {replay} outside {low}..{high}");
}

#[test]
fn the_replay_writes_and_flushes_as_the_trace_shows() {
    let Some(calls) = record() else { return };
    let first = first_backup(&calls);
    let bands: Vec<&Call> = writes(first, "bands/").collect();
    let bytes: u64 = bands.iter().map(|c| c.len).sum();
    let big: u64 = bands
        .iter()
        .filter(|c| c.len == 256 * KIB)
        .map(|c| c.len)
        .sum();
    let small = bands
        .iter()
        .filter(|c| (4 * KIB..=40 * KIB).contains(&c.len))
        .count() as f64;
    let n = bands.len() as f64;
    println!("tm-backup's replay (strace, quick profile, 256 MiB bands) beside the trace:");
    // mac-trace "Bands": 238 writes of 256 KiB of the 66.6 MB of non-zero band writes.
    compare(
        "share of band bytes in 256 KiB writes",
        big as f64 / bytes as f64,
        "0.937 (238 x 256 KiB / 66.6 MB)",
        (0.917, 0.957),
        "+-2 points: 3 standard deviations of the drawn metadata sizes at 240 writes",
    );
    // mac-trace "Bands": 4, 12 and 16 KiB writes (188) and some of the 35 of 24-140 KiB, of 461.
    let sd = (0.45 * 0.55 / n).sqrt();
    compare(
        "share of band writes of 4-40 KiB",
        small / n,
        "0.408..0.484 (188..223 / 461)",
        (0.408 - 2.0 * sd, 0.484 + 2.0 * sd),
        "the trace's range +- 2 binomial standard deviations of this count",
    );
    // mac-trace "FLUSH": bands/6 took 46.5 MB of data in 9 data flushes.
    let data_bands: Vec<&str> = data_band_names(first);
    let flushes = |file: &str| {
        first
            .iter()
            .filter(|c| c.name == "fdatasync" && c.file == file)
            .count()
    };
    let data_flushes: usize = data_bands.iter().map(|b| flushes(b)).sum();
    compare(
        "user data per data flush of a data band, MB",
        USER_BYTES as f64 / data_flushes as f64 / 1e6,
        "5.17 (46.5 MB / 9, bands/6)",
        (5.17 * 0.8, 5.17 * 1.2),
        "+-20%: one band's 9 flushes in the trace, rounds split at band ends here",
    );
    // mac-trace "FLUSH": bands/5 26 and mapped/5 25, bands/6 9 and mapped/6 9.
    for band in bands_written(first) {
        let mapped = band.replacen("bands/", "mapped/", 1);
        assert_eq!(flushes(&band), flushes(&mapped), "{band} and {mapped}");
    }
    let barriers = first
        .iter()
        .filter(|c| c.name == "fsync" && c.file == "Info.plist")
        .count();
    // At the trace's copy rate (bands/6: 46.5 MB in the 4 s of the copy, 11.6 MB/s), a fixed
    // share of barriers per byte gives barriers per second: the comparable figure.
    compare(
        "barriers/s at the trace's 11.6 MB/s",
        11.6e6 * barriers as f64 / bytes as f64,
        "2.25 (9 rounds in 4 s)",
        (2.25 * 0.75, 2.25 * 1.25),
        "+-25%: the trace's copy lasted about 4 s, read to the second",
    );
    let between = bytes as f64 / barriers as f64 / 1e6;
    println!(
        "{:<44} replay {between:>9.3}   (band bytes between barriers, MB)",
        ""
    );
    check_shape(first, barriers as f64);
    check_incremental(&calls, first);
}

/// The band files that took user data.
fn data_band_names(calls: &[Call]) -> Vec<&str> {
    let mut names: Vec<&str> = writes(calls, "bands/")
        .filter(|c| c.len == 256 * KIB)
        .map(|c| c.file.as_str())
        .collect();
    names.sort();
    names.dedup();
    names
}

fn bands_written(calls: &[Call]) -> Vec<String> {
    let mut names: Vec<String> = writes(calls, "bands/").map(|c| c.file.clone()).collect();
    names.sort();
    names.dedup();
    names
}

/// What the trace shows without exception: 4 KiB alignment, 8 KiB bitmaps at offset 0, the full
/// flush only on Info.plist and right after its data flush, Info.plist cut before its one
/// write, at most five band handles open, and hot metadata blocks rewritten.
fn check_shape(first: &[Call], barriers: f64) {
    for c in writes(first, "bands/") {
        assert_eq!((c.offset % 4096, c.len % 4096), (0, 0), "{c:?}");
    }
    for c in writes(first, "mapped/") {
        assert_eq!((c.offset, c.len), (0, 8 * KIB), "{c:?}");
    }
    for (i, c) in first.iter().enumerate() {
        if c.name == "fsync" {
            assert_eq!(c.file, "Info.plist", "{c:?}");
            let before = &first[i - 1];
            assert_eq!(
                (before.name.as_str(), before.file.as_str()),
                ("fdatasync", "Info.plist")
            );
        }
        if c.name == "pwrite64" && c.file == "Info.plist" {
            assert_eq!(first[i - 1].name, "ftruncate", "Info.plist is cut first");
        }
    }
    let mut open: i64 = 0;
    let mut most = 0;
    for c in first {
        let band = |f: &str| f.starts_with("bands/");
        if c.opened.as_deref().is_some_and(band) {
            open += 1;
        } else if c.name == "close" && band(&c.file) {
            open -= 1;
        }
        most = most.max(open);
    }
    println!(
        "{:<44} replay {most:>9}   trace 5 (mac-trace, \"Open handles\")",
        "most band files open"
    );
    assert!(most <= 5);
    let mut versions: HashMap<(&str, u64), u64> = HashMap::new();
    for c in writes(first, "bands/").filter(|c| c.len < 256 * KIB) {
        for block in (c.offset..c.offset + c.len).step_by(4096) {
            *versions.entry((c.file.as_str(), block)).or_default() += 1;
        }
    }
    let hottest = versions.values().copied().max().unwrap_or(0) as f64;
    // mac-trace: one block written 68 times over the 80 barriers of the first backup.
    compare(
        "writes of the hottest metadata block / barrier",
        hottest / barriers,
        "0.85 (68 / 80)",
        (0.85 / 2.0, 0.85 * 2.0),
        "a factor of 2: one block of one trace",
    );
}

/// hotspots "Writes per backup": incrementals wrote 55-570 MiB against the first backup's
/// 5,581 MiB of non-zero writes, 1.0%-10.2%; the replay writes their mean, 4.4%.
fn check_incremental(all: &[Call], first: &[Call]) {
    let sum = |calls: &[Call]| writes(calls, "bands/").map(|c| c.len).sum::<u64>() as f64;
    let later = &all[first.len()..];
    let share = sum(later) / sum(first);
    compare(
        "incremental bytes / first backup's",
        share,
        "0.044 (mean), 0.010..0.102",
        (0.010, 0.102),
        "the trace's smallest and largest incremental",
    );
    let data = writes(later, "bands/")
        .filter(|c| c.len == 256 * KIB)
        .count() as f64;
    let n = writes(later, "bands/").count() as f64;
    println!(
        "{:<44} replay {:>9.3}   (mostly metadata)",
        "incremental: share of writes that are data",
        data / n
    );
    assert!(data / n < 0.5);
}

/// On the null engine (100 µs a request, 1 ms a data or full flush, free opens and truncates)
/// every figure of tm-backup is known from its counts: its time is its accounting.
#[test]
fn the_null_engine_times_the_replay_by_its_own_counts() {
    let dir = tempfile::tempdir().unwrap();
    let doc = crate::support::run_json(&[
        "run",
        dir.path().to_str().unwrap(),
        "--engine",
        "null",
        "--json",
        "--profile",
        "quick",
        "--tests",
        "tm-backup",
        "--band-size",
        "256M",
        "--seed",
        "1",
    ]);
    let d = &doc["results"][0]["details"];
    let n = |v: &serde_json::Value| v.as_f64().expect("a number");
    for phase in ["first", "incremental"] {
        let p = &d[phase];
        let expected =
            n(&p["writes"]) * 100e-6 + (n(&p["data_flushes"]) + n(&p["barriers"])) * 1e-3;
        assert!((n(&p["seconds"]) - expected).abs() < 1e-9, "{phase}: {p}");
    }
    assert_eq!(n(&d["first"]["user_bytes"]), USER_BYTES as f64);
    assert_eq!(d["full_flush"], "none (null engine)");
    assert!(
        d["beside_reader"].is_null(),
        "no reader beside a replay without I/O"
    );
    // The plain copy: 8 files of 8 MiB, each 8 writes of 1 MiB and one flush.
    let copy_s = 8.0 * (8.0 * 100e-6 + 1e-3);
    assert!(
        (n(&d["copy"]["seconds"]) - copy_s).abs() < 1e-9,
        "{}",
        d["copy"]
    );
    let user = USER_BYTES as f64 / n(&d["first"]["seconds"]) / 1e6;
    assert!((n(&d["user_data_mb_s"]) - user).abs() < 1e-9 * user);
    let ratio = user / (USER_BYTES as f64 / copy_s / 1e6);
    assert!((n(&d["ratio_to_copy"]) - ratio).abs() < 1e-9);
    assert_eq!(n(&d["band_size_bytes"]), 256.0 * MIB as f64);
    assert_eq!(d["band_size_from"], "flag");
}
