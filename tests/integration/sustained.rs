//! `sustained` and `throttled` on the testbed: a disk whose rate drops mid-run, and a device
//! whose scheduler does or does not honour I/O priorities.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use crate::support::{num, result, run_on};
use crate::testbed::Testbed;

/// The size of the sustained test's file, wherever destbench's scratch directory is.
fn written(mount: &Path) -> Option<u64> {
    std::fs::read_dir(mount).ok()?.flatten().find_map(|e| {
        let file: PathBuf = e.path().join("sustained.dat");
        std::fs::metadata(file).ok().map(|m| m.len())
    })
}

/// A disk that writes at 150 MB/s and drops to 40 MB/s after 300 MB (as an SSD whose cache
/// filled): the cliff is found within 10% of where the rate was changed, with the rates either
/// side of it.
#[test]
#[ignore = "long: figures against an emulated device of known speed, which it holds alone"]
fn sustained_finds_the_cliff_where_the_rate_dropped() {
    let Some((_alone, tb)) = Testbed::up_alone("slow-disk", &["--rate", "150", "--size", "2G"])
    else {
        return;
    };
    const CLIFF: u64 = 300_000_000;
    let switched_at = AtomicU64::new(0);
    let done = AtomicBool::new(false);
    let doc = std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                if let Some(n) = written(tb.mount())
                    && n >= CLIFF
                {
                    tb.set_rate(40.0);
                    // Where the drop really took effect: what was written when it applied.
                    switched_at.store(written(tb.mount()).unwrap_or(n), Ordering::Relaxed);
                    return;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        });
        let doc = run_on(
            tb.mount(),
            "--no-history --tests sustained --time 40 --size 1500MB",
        );
        done.store(true, Ordering::Relaxed);
        doc
    });
    let switched = switched_at.load(Ordering::Relaxed);
    assert!(
        switched > 0,
        "the sustained write never reached {CLIFF} bytes"
    );
    let d = &result(&doc, "sustained", "SEQ1M-Q8T1")["details"];
    let cliff = &d["cliff"];
    assert!(cliff.is_object(), "no cliff found: {d}");
    let at = num(&cliff["bytes_before"]);
    let error = at / switched as f64 - 1.0;
    eprintln!(
        "sustained: cliff found after {at:.0} B, rate dropped at {switched} B: error {:+.1}%; {:.1} -> {:.1} MB/s, stopped at {}",
        error * 100.0,
        num(&cliff["before_mb_s"]),
        num(&cliff["after_mb_s"]),
        d["stopped"]
    );
    assert!(error.abs() <= 0.10, "cliff at {at} B, set at {switched} B");
    assert!(
        (num(&cliff["after_mb_s"]) - 40.0).abs() / 40.0 <= 0.10,
        "{cliff}"
    );
    assert!(num(&cliff["before_mb_s"]) > 100.0, "{cliff}");
    assert_eq!(d["stopped"], "steady", "{d}");
}

fn loop_scheduler(tb: &Testbed) -> PathBuf {
    let name = std::fs::read_to_string(tb.dir().join("loopdev")).expect("testbed loopdev");
    let name = Path::new(name.trim()).file_name().unwrap().to_owned();
    Path::new("/sys/block").join(name).join("queue/scheduler")
}

fn throttled(tb: &Testbed) -> serde_json::Value {
    let doc = run_on(
        tb.mount(),
        "--no-history --tests throttled --size 64MiB --duration 3",
    );
    let row = result(&doc, "throttled", "1M-write-vs-read");
    // The row shows what was measured: the background writer's rate and its requests.
    assert!(num(&row["ops_per_s_median"]) > 0.0, "{row}");
    let d = row["details"].clone();
    // The conclusion follows from the reader's slowdowns, whichever way they went.
    let (normal, background) = (
        num(&d["slowdown_normal"]["read"]),
        num(&d["slowdown_background"]["read"]),
    );
    let conclusion = d["conclusion"].as_str().unwrap();
    match d["idle_class_helped"].as_bool() {
        Some(true) => assert!(background <= normal - 0.05, "{d}"),
        Some(false) => assert!(
            background > normal - 0.05 && conclusion.contains("made no difference"),
            "{d}"
        ),
        None => assert!(d["priority_effective"] == false || normal < 0.05, "{d}"),
    }
    d
}

/// On the testbed's loop device, whose scheduler is `none`, the test explains that background
/// priority cannot act instead of presenting a figure; with `mq-deadline` set through sysfs it
/// reports both cases' slowdowns.
#[test]
#[ignore = "long: figures against an emulated device of known speed, which it holds alone"]
fn throttled_explains_a_scheduler_that_ignores_priorities_and_measures_one_that_does() {
    let Some((_alone, tb)) = Testbed::up_alone("slow-disk", &["--rate", "40"]) else {
        return;
    };
    let sched = loop_scheduler(&tb);
    std::fs::write(&sched, "none").expect("setting the loop device's scheduler");
    let d = throttled(&tb);
    eprintln!("throttled with none: {d}");
    assert_eq!(d["scheduler"], "none");
    assert_eq!(d["priority_effective"], false);
    assert!(
        d["note"]
            .as_str()
            .unwrap()
            .contains("ignores I/O priorities"),
        "{d}"
    );
    // And indeed it made no difference there.
    let diff = num(&d["slowdown_background"]["write"]) - num(&d["slowdown_normal"]["write"]);
    assert!(diff.abs() < 0.2, "{d}");

    std::fs::write(&sched, "mq-deadline").expect("setting the loop device's scheduler");
    let d = throttled(&tb);
    eprintln!("throttled with mq-deadline: {d}");
    assert_eq!(d["scheduler"], "mq-deadline");
    assert_eq!(d["priority_effective"], true);
    for case in ["alone", "normal", "background"] {
        assert!(
            num(&d[case]["write_mb_s"]) > 0.0 && num(&d[case]["read_mb_s"]) > 0.0,
            "{d}"
        );
    }
    // The idle-class writer yields to the reader where the scheduler honours it: it slows far
    // more than at normal priority.
    assert!(
        num(&d["slowdown_background"]["write"]) > num(&d["slowdown_normal"]["write"]) + 0.2,
        "{d}"
    );
}
