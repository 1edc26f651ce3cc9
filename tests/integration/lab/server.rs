//! A share whose server keeps its export on a slow disk (`scripts/lab --server-disk 20`, the
//! testbed's slow disk on the host) over an unshaped link: the verdict must name the server's
//! disks, judge by a write between two truths, and find the wire several times faster. The
//! truths: xfs_io's new files through the share, each flushed, one 1 MiB write at a time (5%
//! under it at least: destbench keeps four in flight); the disk's own durable rate, `dd
//! conv=fsync` on the host (5% over it at most: nothing crosses a share faster than its disk
//! takes it). On nfs3 the two are 1% apart; on cifs the server takes a file into its memory
//! and then flushes it, so a file costs its sending and its flush one after the other, and
//! the share's new files run 15% under the disk (docs/lab.md, "A share's parts"). On cifs the same guest then adds `netem delay 20ms`:
//! a round trip's cost in each small file, in the estimate, and in the round trip the verdict
//! times (a 4 KiB block read directly at depth 1).

use serde_json::Value;

use super::{Lab, SHARE_TOLERANCE, append_row, held_on_a_second_guest};

const GUEST: &str = include_str!("server.sh");
/// The host's disk under the export, MB/s.
const SERVER_DISK: &str = "20";
/// netem's added delay on the cifs guest's NIC, ms.
const ROUND_TRIP_MS: f64 = 20.0;
/// How far a round trip with the delay may be from the delay plus one without.
const REQUEST_TOLERANCE: f64 = 0.10;
/// The wire is "several times" the durable write: the in-memory read at least this many times.
const WIRE_OVER_DISK: f64 = 3.0;

/// Bytes and seconds summed over every xfs_io `pwrite`/`pread` in a section: "wrote
/// 10485760/10485760 bytes at offset 0" then "10 MiB, 10 ops; 0:00:01.60 (6.2 MiB/sec ...)",
/// or under a second "100 MiB, 100 ops; 0.9051 sec (110.479 MiB/sec ...)".
fn xfs_io_total(lab: &Lab, name: &str) -> (f64, f64) {
    let section = lab.section(name);
    let mut bytes = 0.0;
    let mut secs = 0.0;
    for line in section.lines() {
        if let Some(rest) = line
            .strip_prefix("wrote ")
            .or_else(|| line.strip_prefix("read "))
        {
            let done = rest.split('/').next().and_then(|b| b.parse::<f64>().ok());
            bytes += done.unwrap_or_else(|| panic!("xfs_io's bytes in {line:?}"));
        } else if let Some((_, rest)) = line.split_once(" ops; ") {
            let clock = rest.split(' ').next().unwrap_or_default();
            let parts: Vec<f64> = clock.split(':').filter_map(|p| p.parse().ok()).collect();
            secs += match parts[..] {
                [h, m, s] => h * 3600.0 + m * 60.0 + s,
                [s] if rest.starts_with(&format!("{clock} sec")) => s,
                _ => panic!("xfs_io's time in {line:?}"),
            };
        }
    }
    assert!(bytes > 0.0 && secs > 0.0, "xfs_io's totals in {section:?}");
    (bytes, secs)
}

fn xfs_io_mb_s(lab: &Lab, name: &str) -> f64 {
    let (bytes, secs) = xfs_io_total(lab, name);
    bytes / secs / 1e6
}

/// Boots `dest` on the slow server disk, runs the guest (with the delay where `delay`), and
/// holds the server-disk part; returns the lab for the delay's checks.
fn slow_server_disk(dest: &str, options: &[&str], chain: &[&str], delay: bool) -> Option<Lab> {
    let options: Vec<&str> = options
        .iter()
        .copied()
        .chain(["--server-disk", SERVER_DISK])
        .collect();
    let guest = format!("DELAY={}\n{GUEST}", u8::from(delay));
    let lab = super::share_info(dest, &options, &guest, chain)?;
    let disk = lab.dd("server-disk");
    let files = xfs_io_mb_s(&lab, "files");
    let read = xfs_io_mb_s(&lab, "read");
    let report = lab.report_in("plain");
    let v = &report["verdict"];
    let judged = v["measured_mb_s"].as_f64().unwrap_or(f64::NAN);
    let network = v["network_mb_s"].as_f64().unwrap_or(f64::NAN);
    let summary = v["summary"].as_str().unwrap_or("no verdict");
    append_row(&format!(
        "{:<20} the server's disk: dd conv=fsync on the host {disk:6.2}; through the share: xfs_io new files 20-100 MB each flushed {files:6.2}, read {read:6.2} | destbench judged write {judged:6.2} ({}), network {network:6.2} MB/s | {summary}\n",
        format!("{dest} server disk {SERVER_DISK}"),
        v["measured_by"].as_str().unwrap_or("?"),
    ));
    assert_eq!(v["kind"], "server-storage", "{dest}: {v}");
    let (low, high) = (
        files * (1.0 - SHARE_TOLERANCE),
        disk * (1.0 + SHARE_TOLERANCE),
    );
    assert!(
        (low..=high).contains(&judged),
        "{dest}: the judged write {judged:.2} MB/s is not between xfs_io's new files through the share ({files:.2}, less 5%) and the server's disk ({disk:.2}, and 5%)"
    );
    assert!(
        read >= WIRE_OVER_DISK * disk && network >= WIRE_OVER_DISK * judged,
        "{dest}: the wire (xfs_io {read:.2}, destbench {network:.2} MB/s) is not several times the disk ({disk:.2}, {judged:.2})"
    );
    let share = &report["share"];
    assert_eq!(share["limit"], "server-disks", "{dest}: {share}");
    Some(lab)
}

#[test]
#[ignore = "the lab: qemu guests, about 25 minutes (docs/lab.md)"]
fn lab_nfs3_slow_server_disk_is_the_limit() {
    held_on_a_second_guest("lab_nfs3_slow_server_disk_is_the_limit", || {
        slow_server_disk(
            "nfs3",
            &[],
            &[
                "filesystem: nfs ",
                "vers: 3",
                "proto: tcp",
                "hard: yes",
                "rsize: 1048576",
                "wsize: 1048576",
            ],
            false,
        );
    });
}

/// SMB 3.0 on the slow server disk, then what a round trip costs a backup of small files: the
/// guest copies a small and a large file set, one thread, with and without every file fsync'd,
/// as it is and then with `netem delay 20ms` on its NIC (into a history of its own), and
/// estimates from each run the backup of a folder of 200 small files and one of 5 MB. Copied
/// one after another, every file waits for the server several times (create, write, flush,
/// close), so each must cost at least one round trip, 20 ms, more; the verdict must name the
/// cost as round trips, not bandwidth; the estimate must take the delay in as a per-file cost,
/// at least 20 ms a file more; and the round trip the verdict times (`request_ms`, a 4 KiB block
/// read directly at depth 1) must be the delay more, within 10%. The cost is taken from the copy of one file after another:
/// with many in flight, the queue hides the wire (docs/lab.md, "A round trip's cost").
#[test]
#[ignore = "the lab: qemu guests, about 25 minutes (docs/lab.md)"]
fn lab_cifs_slow_server_disk_and_a_round_trips_cost() {
    held_on_a_second_guest("lab_cifs_slow_server_disk_and_a_round_trips_cost", || {
        let chain = ["cifs at /mnt/dest from //10.0.2.2/share", "vers: 3.0"];
        if let Some(lab) = slow_server_disk("cifs", &[], &chain, true) {
            encryption(&lab);
            round_trips(&lab);
        }
    });
}

/// The read through a second mount with `seal`: the chain shows encryption, the share says so,
/// destbench compare prices it as a ratio to the plain mount's read (printed, with its
/// significance), and the verdict, the read far below the link, names encryption.
fn encryption(lab: &Lab) {
    let info = lab.section("sealed-info");
    assert!(
        info.contains("encryption: on"),
        "the sealed mount's chain:\n{info}"
    );
    let sealed = lab.report_in("sealed");
    assert_eq!(sealed["share"]["encryption"], true, "{}", sealed["share"]);
    let compare = lab.report_in("sealed-compare");
    let cell = compare["groups"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|g| g["test"] == "seq-read")
        .flat_map(|g| g["rows"].as_array().into_iter().flatten())
        .find(|r| r["variant"] == "SEQ1M-Q8T1")
        .map(|r| r["cells"][1].clone())
        .unwrap_or_else(|| panic!("seq-read SEQ1M-Q8T1 in the comparison: {compare}"));
    let ratio = cell["ratio"].as_f64().expect("the sealed read's ratio");
    let v = &sealed["verdict"];
    let summary = v["summary"].as_str().unwrap_or_default();
    append_row(&format!(
        "{:<20} seq-read SEQ1M-Q8T1 with seal / without: {ratio:.3} ({}) | {summary}\n",
        "cifs seal",
        cell["verdict"].as_str().unwrap_or("?"),
    ));
    assert!(ratio > 0.0, "{cell}");
    // Under TCG the guest's AES is emulated: the sealed read runs far below the link (17 MB/s
    // where the plain mount read 116), so the verdict must name the encryption.
    assert_eq!(v["kind"], "device-or-protocol", "{v}");
    assert!(summary.contains("with encryption on"), "{summary}");
}

fn round_trips(lab: &Lab) {
    let per_file_ms = |section: &str| -> (f64, f64, Value) {
        let report = lab.report_in(section);
        let v = &report["verdict"];
        let ms = v["per_file_ms"]
            .as_f64()
            .unwrap_or_else(|| panic!("{section}: no per-file cost in {v}"));
        let request = v["request_ms"]
            .as_f64()
            .unwrap_or_else(|| panic!("{section}: no request's time in {v}"));
        (ms, request, report)
    };
    let (plain, plain_request, _) = per_file_ms("plain");
    let (delayed, delayed_request, report) = per_file_ms("delayed");
    let details = report["verdict"]["details"].to_string();
    let want_request = plain_request + ROUND_TRIP_MS;
    append_row(&format!(
        "{:<20} a small file copied one after another, fsync'd: {plain:.1} ms, with netem delay 20ms {delayed:.1} ms; a round trip {plain_request:.2} ms, then {delayed_request:.2} ms (want {want_request:.2}); requests per file {}\n",
        "cifs per-file cost", report["share"]["requests_per_file"],
    ));
    assert!(
        delayed - plain >= ROUND_TRIP_MS,
        "20 ms more per round trip, but a file went from {plain:.1} to {delayed:.1} ms"
    );
    assert!(
        (delayed_request - want_request).abs() <= REQUEST_TOLERANCE * want_request,
        "a round trip took {delayed_request:.2} ms with the delay, {plain_request:.2} ms without: not the delay more within 10%"
    );
    assert!(
        details.contains("round trips, not bandwidth")
            && details.contains("files-copy small-1t-cache-off")
            && details.contains("a request and its reply take"),
        "the delayed run's verdict: {details}"
    );
    // The share's parts count the requests a file costs (the big files' limit, the server's
    // disks, stays its limit).
    let requests = report["share"]["requests_per_file"].as_f64().unwrap_or(0.0);
    assert!(requests >= 1.0, "requests per file: {}", report["share"]);
    // The estimate: its per-file cost and the time it predicts for the folder's 201 files.
    let estimate = |section: &str| -> (f64, f64) {
        let doc = lab.report_in(section);
        let e = &doc["estimates"][0];
        let per_file = e["costs"]["per_file_s"].as_f64();
        let expected = e["predicted_seconds"]["expected"].as_f64();
        match (per_file, expected) {
            (Some(p), Some(x)) => (p * 1e3, x),
            _ => panic!("{section}: no estimate in {doc}"),
        }
    };
    let (plain_ms, plain_s) = estimate("plain-estimate");
    let (delayed_ms, delayed_s) = estimate("delayed-estimate");
    append_row(&format!(
        "{:<20} a folder of 201 files: per file {plain_ms:.1} ms, predicted {plain_s:.1} s; with netem delay 20ms {delayed_ms:.1} ms, {delayed_s:.1} s\n",
        "cifs estimate",
    ));
    assert!(
        delayed_ms - plain_ms >= ROUND_TRIP_MS,
        "the estimate's per-file cost went from {plain_ms:.1} to {delayed_ms:.1} ms"
    );
    assert!(
        delayed_s - plain_s >= 201.0 * ROUND_TRIP_MS / 1e3,
        "201 files at 20 ms more each, but the estimate went from {plain_s:.1} to {delayed_s:.1} s"
    );
}
