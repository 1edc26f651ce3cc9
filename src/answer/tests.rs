//! The answer over run documents built in code: copies of file sets with known costs, a chain
//! from the verdict's tests, and the data's size given.

use super::*;
use crate::probe::links;
use crate::results::DataKind;
use crate::verdict::tests::{disk_behind, seq};

mod rsync;

/// Seconds a copy of `files` files of `bytes` takes at 2 ms a file and 35 MB/s.
fn cost(files: u64, bytes: u64) -> f64 {
    files as f64 * 0.002 + bytes as f64 / 35e6
}

/// A copy of the generated `set` (one thread, cache on) whose two repetitions took `cost`'s
/// time, 1% apart.
fn copy(set: &str, files: u64, bytes: u64) -> serde_json::Value {
    let s = cost(files, bytes);
    serde_json::json!({ "test": "files-copy", "variant": format!("{set}-1t-cache-on"),
        "threads": 1, "method": "syncfs", "engine": "sync",
        "file_set": { "name": set, "files": files, "bytes": bytes },
        "repetitions": [ { "elapsed_s": s * 0.995 }, { "elapsed_s": s * 1.005 } ] })
}

/// A run with the backup profile's two sets copied, behind `row` (None: a link of unknown
/// speed), writing sequentially at `write` MB/s; judged.
pub(super) fn run(row: Option<&str>, write: f64, results: Vec<serde_json::Value>) -> RunDocument {
    let mut run: RunDocument = serde_json::from_value(serde_json::json!({
        "schema": "destbench.run/2", "destination": { "path": "/mnt/backup" },
        "results": results }))
    .unwrap();
    run.results.extend(seq(write, write * 1.1));
    run.chain = Some(disk_behind(row.map(links::row)));
    run.verdict = Some(crate::verdict::of(&run));
    run
}

pub(super) fn sets() -> Vec<serde_json::Value> {
    vec![
        copy("small", 3000, 30_000_000),
        copy("mixed", 500, 100_000_000),
    ]
}

pub(super) fn home(bytes: u64, files: Option<u64>) -> YourData {
    YourData {
        kind: DataKind::HomeVolume,
        path: "/home/u".into(),
        bytes,
        files,
        reads: None,
    }
}

/// 100 GB in 500,000 files at the sets' 2 ms a file and 35 MB/s: the fit gives the time the
/// costs do, and the first sentence says it with the data and the whole volume's label.
#[test]
fn the_first_backup_is_the_fitted_cost_of_the_data() {
    let run = run(Some("usb2-bot"), 33.0, sets());
    let answer = of(&run, home(100_000_000_000, Some(500_000))).unwrap();
    let t = &answer.tools[0];
    assert_eq!(t.tool, AnswerTool::PlainCopy);
    let truth = cost(500_000, 100_000_000_000);
    let r = t.first_seconds;
    assert!(
        (r.expected / truth - 1.0).abs() < 0.02,
        "{r:?} against {truth}"
    );
    assert!(r.low <= r.expected && r.expected <= r.high, "{r:?}");
    assert!(!t.bytes_only);
    // A GB of the data is 5,000 of its files.
    let routine = crate::units::human_duration(cost(5_000, 1_000_000_000));
    assert_eq!(
        answer.words[0],
        format!(
            "A first backup of your data here: about 1 h 04 min (100 GB in 500,000 files, the \
             whole home volume); then about {routine} for each GB that changes."
        )
    );
    // The table: the data (100 GB here as well), then 100 GB and 1 TB.
    let expected: Vec<f64> = answer.table.iter().map(|r| r.seconds[0].expected).collect();
    assert_eq!(answer.table.len(), 3);
    assert_eq!(expected[0], r.expected);
    assert!(expected[1] < expected[2], "{expected:?}");
}

/// Limited by USB 2.0: on a USB 3 port the data's bytes move at that link's ceiling, the
/// per-file cost as measured; the sentence names the port.
#[test]
fn a_limiting_usb_2_link_gives_the_time_on_a_usb_3_port() {
    let run = run(Some("usb2-bot"), 33.0, sets());
    let answer = of(&run, home(100_000_000_000, Some(500_000))).unwrap();
    let w = answer.what_if.as_ref().expect("a what-if");
    assert_eq!(w.instead, "a USB 3 port");
    assert_eq!(w.ceiling_mb_s, links::row("usb3g1-bot").practical);
    let first = answer.tools[0].first_seconds.expected;
    let expected = first - 100_000.0 / 33.0 + 100_000.0 / w.ceiling_mb_s;
    assert!((w.first_seconds - expected).abs() < 1e-6);
    assert!(
        answer.words[2].contains("On a USB 3 port"),
        "{:?}",
        answer.words
    );
}

/// Where the chain knows no link, or the device is the limit, there is no what-if.
#[test]
fn no_what_if_without_a_known_limiting_link() {
    for (row, write) in [(None, 33.0), (Some("sata3"), 120.0)] {
        let run = run(row, write, sets());
        let answer = of(&run, home(1_000_000_000, Some(5_000))).unwrap();
        assert!(answer.what_if.is_none(), "{row:?}: {:?}", answer.what_if);
    }
}

/// Without file sets, the sequential write alone gives a lower bound, said as one, and the
/// answer names the test that would count each file.
#[test]
fn without_file_sets_the_time_is_a_lower_bound() {
    let run = run(Some("usb2-bot"), 33.0, Vec::new());
    let answer = of(&run, home(33_000_000_000, Some(100_000))).unwrap();
    let t = &answer.tools[0];
    assert!(t.bytes_only);
    assert!((t.first_seconds.expected - 1000.0).abs() < 1e-6);
    assert!(
        answer.words[0].contains("at least 17 min"),
        "{}",
        answer.words[0]
    );
    assert!(
        answer.missing.iter().any(|m| m.contains("files-copy")),
        "{:?}",
        answer.missing
    );
}

/// The user's folder copied by the run is its own measure: its median copy, in proportion for
/// the table's larger amounts; the range reaches as far as another tool's copy strays.
#[test]
fn a_copied_folder_is_timed_by_its_own_copies() {
    let source = serde_json::json!({ "test": "files-copy", "variant": "source-1t-cache-on",
        "threads": 1, "method": "syncfs", "engine": "sync",
        "file_set": { "name": "source", "files": 12000, "bytes": 500_000_000,
                      "source_path": "/usr/share", "generated": false },
        "repetitions": [ { "elapsed_s": 40.0 }, { "elapsed_s": 42.0 }, { "elapsed_s": 41.0 } ] });
    let run = run(Some("usb2-bot"), 33.0, vec![source]);
    let data = folder_of_run(&run).expect("the folder");
    assert_eq!((data.kind, data.files), (DataKind::Folder, Some(12000)));
    let answer = of(&run, data).unwrap();
    let r = answer.tools[0].first_seconds;
    // The median, with the range other tools' plain copies fall in (wider than 40-42 s).
    assert_eq!(r.expected, 41.0);
    assert!((r.low - 41.0 * 0.85).abs() < 1e-9 && (r.high - 41.0 * 1.3).abs() < 1e-9);
    assert_eq!(answer.table[1].seconds[0].expected, 41.0 * 200.0);
    assert!(
        answer.words[0].contains("/usr/share"),
        "{}",
        answer.words[0]
    );
}

/// A run with nothing to time a backup by has no answer.
#[test]
fn no_answer_without_a_write_or_a_copy() {
    let mut run = run(None, 33.0, Vec::new());
    run.results.clear();
    assert!(of(&run, home(1, Some(1))).is_none());
}

#[test]
fn sizes_and_counts_read_as_people_write_them() {
    assert_eq!(crate::units::decimal_bytes(212_000_000_000), "212 GB");
    assert_eq!(crate::units::decimal_bytes(4_200_000_000), "4.2 GB");
    assert_eq!(crate::units::decimal_bytes(520_000_000), "520 MB");
    assert_eq!(crate::units::thousands(480_000), "480,000");
    assert_eq!(crate::units::thousands(999), "999");
}

/// Copies no per-file cost and rate explain (the set of small files copied faster per byte
/// than the set of large ones) give the pace of the set nearest the data's mean file size.
#[test]
fn copies_that_do_not_fit_give_the_nearest_sets_pace() {
    let mut small = copy("small", 3000, 30_000_000);
    small["repetitions"] = serde_json::json!([{ "elapsed_s": 0.3 }, { "elapsed_s": 0.31 }]);
    let run = run(
        Some("usb2-bot"),
        33.0,
        vec![small, copy("mixed", 500, 100_000_000)],
    );
    // 10 KB a file: the small set (10 KB a file) is nearest.
    let answer = of(&run, home(10_000_000_000, Some(1_000_000))).unwrap();
    let t = &answer.tools[0];
    assert!(
        (t.first_seconds.expected - 0.305 * 1000.0 / 3.0).abs() < 1e-6,
        "{t:?}"
    );
    assert!(t.basis.contains("small set"), "{}", t.basis);
}

/// Time Machine's hourly backup: the replay's incremental, slowed by the throttled test's
/// factor while throttling is on, at full speed where the Mac turned it off.
#[test]
fn the_hourly_backup_is_throttled_unless_throttling_is_off() {
    let tm = serde_json::json!({ "test": "tm-backup", "variant": "sparsebundle",
        "method": "fsync", "engine": "sync", "workload": { "kind": "tm-backup" },
        "details": { "kind": "tm-backup",
            "first": { "seconds": 100.0, "user_bytes": 1_000_000_000, "bytes_written": 1_100_000_000 },
            "incremental": { "seconds": 10.0, "user_bytes": 40_000_000, "bytes_written": 50_000_000 } } });
    let throttled = serde_json::json!({ "test": "throttled", "variant": "background",
        "method": "direct", "engine": "sync",
        "details": { "kind": "throttled", "priority_effective": true,
            "alone": { "write_mb_s": 30.0, "read_mb_s": 30.0 },
            "background": { "write_mb_s": 10.0, "read_mb_s": 28.0 } } });
    let mut run = run(Some("usb2-bot"), 33.0, vec![tm, throttled]);
    let answer = |run: &RunDocument| of(run, home(10_000_000_000, Some(50_000))).unwrap();
    let on = answer(&run);
    assert_eq!(on.tools[0].tool, AnswerTool::TimeMachine);
    let hourly = |a: &Answer| a.tools[0].routine.as_ref().unwrap().seconds.expected;
    let root = &mut run.chain.as_mut().unwrap().root;
    root.fact(Value::LowPriorityThrottling(false), "sysctl debug");
    let off = answer(&run);
    assert!((hourly(&on) / hourly(&off) - 3.0).abs() < 1e-9, "{on:?}");
    let assumed = &off.tools[0].routine.as_ref().unwrap().assumed;
    assert!(
        assumed.contains("throttling of low-priority I/O is off"),
        "{assumed}"
    );
}

/// Over a network share another run of a copy strays further (its speed follows the CPU at both
/// ends), so the range reaches 1.6 times the expected time there, 1.3 on a disk.
#[test]
fn a_share_widens_a_copys_range() {
    let data = home(10_000_000_000, Some(100_000));
    let on_disk = of(&run(None, 33.0, sets()), data.clone()).unwrap();
    let mut share = run(None, 33.0, sets());
    let chain = share.chain.as_mut().unwrap();
    chain.root.children[0].kind = crate::probe::NodeKind::Server;
    assert!(chain.is_network());
    let on_share = of(&share, data).unwrap();
    let high = |a: &Answer| a.tools[0].first_seconds.high / a.tools[0].first_seconds.expected;
    assert!((high(&on_disk) - 1.3).abs() < 1e-9, "{}", high(&on_disk));
    assert!((high(&on_share) - 1.6).abs() < 1e-9, "{}", high(&on_share));
}

/// An SMR disk (a listed model) says what its cache does to a first backup; a failing one says
/// so before the time; a CMR disk adds nothing.
#[test]
fn the_disks_kind_and_health_come_into_the_answer() {
    use crate::probe::Value;
    use crate::probe::health::{Assessment, DriveKind, Recording};
    let with = |facts: Vec<Value>| {
        let mut run = run(Some("usb2-bot"), 33.0, sets());
        let chain = run.chain.as_mut().unwrap();
        for value in facts {
            chain.root.children[0].fact(value, "smartctl");
        }
        run.verdict = Some(crate::verdict::of(&run));
        of(&run, home(500_000_000_000, Some(400_000)))
            .unwrap()
            .words
    };
    let kind = |recording| DriveKind {
        recording,
        basis: "WD Red 3.5 (EFAX) in data/drive_kinds.csv".into(),
        inferred: false,
    };
    let smr = with(vec![Value::DriveKind(kind(Recording::Smr))]);
    let line = smr.iter().find(|w| w.contains("this disk records by SMR"));
    let line = line.unwrap_or_else(|| panic!("no SMR sentence in {smr:?}"));
    assert!(line.contains("500 GB"), "{line}");
    assert!(
        smr.iter().any(|w| w.contains("--tests sustained")),
        "no test named to find the cache: {smr:?}"
    );
    let cmr = with(vec![Value::DriveKind(kind(Recording::Cmr))]);
    assert!(
        !cmr.iter().any(|w| w.contains("SMR") || w.contains("CMR")),
        "{cmr:?}"
    );
    let failing = with(vec![Value::SmartAssessment(Assessment::Failed)]);
    assert!(
        failing[0].starts_with("This disk's own SMART check"),
        "{failing:?}"
    );
    assert!(failing[1].starts_with("A first backup"), "{failing:?}");
}

/// The sustained write's result: `written` bytes in `seconds`, with a drop after `cliff`'s
/// bytes from its first rate to its second (MB/s), or none.
fn sustained(written: u64, seconds: f64, cliff: Option<(u64, f64, f64)>) -> serde_json::Value {
    let final_mb_s = cliff.map_or(written as f64 / 1e6 / seconds, |c| c.2);
    let cliff = cliff.map(|(bytes_before, before_mb_s, after_mb_s)| {
        serde_json::json!({ "bytes_before": bytes_before, "before_mb_s": before_mb_s,
            "after_mb_s": after_mb_s })
    });
    serde_json::json!({ "test": "sustained", "variant": "SEQ1M-Q8T1", "engine": "sync",
        "method": "direct",
        "repetitions": [ { "elapsed_s": seconds, "bytes": written } ],
        "details": { "kind": "sustained", "bytes_written": written, "seconds": seconds,
            "stopped": "time cap", "final_mb_s": final_mb_s, "cliff": cliff } })
}

/// The sets copied at 35 MB/s (in the cache) on a disk that drops from 120 to 20 MB/s after
/// 1 GB: the first backup of 3 GB charges the 2 GB past the cache at 20 MB/s, and says so.
#[test]
fn bytes_past_a_found_cache_go_at_the_rate_after_it() {
    let mut results = sets();
    results.push(sustained(
        1_500_000_000,
        15.0,
        Some((1_000_000_000, 120.0, 20.0)),
    ));
    let run = run(None, 20.0, results);
    let answer = of(&run, home(3_000_000_000, Some(10_000))).unwrap();
    assert!(matches!(answer.cache, Some(WriteCache::Found { .. })));
    let r = answer.tools[0].first_seconds;
    let truth = cost(10_000, 3_000_000_000) + 2000.0 * (1.0 / 20.0 - 1.0 / 35.0);
    assert!(
        (r.expected / truth - 1.0).abs() < 0.02,
        "{r:?} against {truth}"
    );
    assert!(r.low <= r.expected && r.expected <= r.high, "{r:?}");
    let line = answer
        .words
        .iter()
        .find(|w| w.starts_with("After its first 1.0 GB"));
    let line = line.unwrap_or_else(|| panic!("no cache sentence in {:?}", answer.words));
    assert!(
        line.contains("20.0 MB/s") && line.contains("2.0 GB"),
        "{line}"
    );
    // Data the cache holds is not charged, and nothing is said of the cache.
    let small = of(&run, home(500_000_000, Some(2_000))).unwrap();
    let truth = cost(2_000, 500_000_000);
    let r = small.tools[0].first_seconds;
    assert!(
        (r.expected / truth - 1.0).abs() < 0.02,
        "{r:?} against {truth}"
    );
    assert!(!small.words.iter().any(|w| w.contains("After its first")));
}

/// Copies made past the cache (at about its after rate) move the bytes before the drop as
/// much faster as the disk did; the high end keeps them as measured. A copy slower than the
/// disk past its cache is bound elsewhere: unchanged.
#[test]
fn a_pace_measured_past_the_cache_is_faster_inside_it_and_a_slower_one_unchanged() {
    let found = WriteCache::Found {
        bytes_before: 1_000_000_000,
        before_mb_s: 100.0,
        after_mb_s: 35.0,
    };
    let plain = Range {
        low: 90.0,
        expected: 100.0,
        high: 110.0,
    };
    let past = cache::charge(plain, 3_500_000_000, 35.0, Some(&found));
    let saved = 1000.0 / 35.0 - 1000.0 / 100.0;
    assert!(
        (plain.expected - past.expected - saved).abs() < 1e-9,
        "{past:?}"
    );
    assert_eq!(past.high, plain.high);
    let elsewhere = cache::charge(plain, 3_500_000_000, 10.0, Some(&found));
    assert_eq!(elsewhere, plain);
    let none = cache::charge(plain, 3_500_000_000, 35.0, None);
    assert_eq!(none, plain);
}

/// A write that never slowed: the times stand, and the answer says how much it wrote, that a
/// larger first backup writes past any larger cache, and the command that writes on.
#[test]
fn a_cache_out_of_reach_is_said_with_what_was_written_and_how_to_write_on() {
    let mut results = sets();
    results.push(sustained(2_100_000_000, 15.0, None));
    let steady = run(None, 140.0, results);
    let answer = of(&steady, home(500_000_000_000, Some(400_000))).unwrap();
    assert!(matches!(answer.cache, Some(WriteCache::OutOfReach { .. })));
    let truth = cost(400_000, 500_000_000_000);
    let r = answer.tools[0].first_seconds;
    assert!(
        (r.expected / truth - 1.0).abs() < 0.02,
        "{r:?} against {truth}"
    );
    let line = answer.words.iter().find(|w| w.contains("without slowing"));
    let line = line.unwrap_or_else(|| panic!("no cache sentence in {:?}", answer.words));
    assert!(
        line.starts_with("This disk took 2.1 GB in 15 s at 140.0 MB/s"),
        "{line}"
    );
    assert!(
        line.contains("500 GB writes past any cache larger"),
        "{line}"
    );
    // 500 GB at 140 MB/s is an hour's writing at most: 504 GB, capped at the data's 500.
    assert!(
        line.contains("--tests sustained --time 3600 --size 500GB") && line.contains("1 h"),
        "{line}"
    );
    assert!(!answer.missing.iter().any(|m| m.contains("sustained")));
    // A drop in the write's first tens of MB is its start, not a cache.
    let mut results = sets();
    results.push(sustained(
        1_000_000_000,
        15.0,
        Some((26_000_000, 43.0, 34.6)),
    ));
    let start = run(None, 35.0, results);
    let answer = of(&start, home(3_300_000_000, Some(118_000))).unwrap();
    assert!(
        matches!(answer.cache, Some(WriteCache::OutOfReach { mb_s, .. }) if mb_s == 34.6),
        "{:?}",
        answer.cache
    );
}
