//! The answer in the user's terms against the real thing: a run with `--source` of a real folder
//! of this machine on destinations of known speed prints a first backup's time in its first
//! lines, and a real `cp -a` and `rsync -a` of that folder there each take a time inside the
//! range printed for that tool (a plain copy; rsync, which the run times itself); data on a
//! slow disk is the slower side, and a real cold copy of it takes the time of reading it.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::support::{self, destbench, num};
use crate::testbed::Testbed;

/// Copies `folder` into `dest` with `program`'s archive mode and flushes the destination's
/// filesystem (`sync -f`), as the answer's copies are timed; returns the seconds.
fn timed_copy(program: &str, folder: &Path, dest: &Path) -> f64 {
    let target = dest.join(format!("{program}-copy"));
    let source = if program == "rsync" {
        // rsync copies a folder's contents with a trailing slash, as cp copies the folder.
        format!("{}/", folder.display())
    } else {
        folder.display().to_string()
    };
    let start = Instant::now();
    let status = Command::new(program)
        .arg("-a")
        .arg(&source)
        .arg(&target)
        .status()
        .unwrap();
    let synced = Command::new("sync").arg("-f").arg(dest).status().unwrap();
    let seconds = start.elapsed().as_secs_f64();
    assert!(
        status.success() && synced.success(),
        "{program} -a {source}"
    );
    std::fs::remove_dir_all(&target).unwrap();
    seconds
}

/// The median of three timed copies.
fn median_copy(program: &str, folder: &Path, dest: &Path) -> f64 {
    let mut times: Vec<f64> = (0..3).map(|_| timed_copy(program, folder, dest)).collect();
    times.sort_by(f64::total_cmp);
    times[1]
}

/// Runs destbench on the testbed `kind` with `folder` as the data (what the answer needs: the
/// large sequential write and the one-thread copy of the folder), checks the terminal's first
/// line and that each of `tools`' medians of three (archive mode) lies in the printed range.
fn answer_holds_for(kind: &str, args: &[&str], folder: &str, tools: &[&str]) {
    if !support::require_root_and(tools) {
        return;
    }
    let Some((_alone, tb)) = Testbed::up_alone(kind, args) else {
        return;
    };
    let db = tempfile::tempdir().unwrap();
    let db = db.path().join("history.db");
    let out = destbench()
        .args([
            "run",
            tb.mount().to_str().unwrap(),
            "--db",
            db.to_str().unwrap(),
        ])
        .args([
            "--source",
            folder,
            "--threads",
            "1",
            "--runs",
            "3",
            "--min-time",
            "0",
        ])
        .args(["--size", "64M"])
        .args([
            "--tests",
            "seq-write:SEQ1M-Q8T1,files-copy:source-1t-cache-on,files-copy:source-rsync",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let first_two: Vec<&str> = text.lines().take(2).collect();
    assert!(
        first_two[0].starts_with("A first backup of your data here: about "),
        "{text}"
    );
    assert!(first_two.join(" ").contains(folder), "{text}");
    let shown = destbench()
        .args(["show", "latest", "--json", "--db", db.to_str().unwrap()])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    let answer = &doc["runs"][0]["run"]["answer"];
    for &program in tools {
        let tool = if program == "cp" {
            "plain-copy"
        } else {
            program
        };
        let times = answer["tools"].as_array().unwrap().iter();
        let Some(times) = times.into_iter().find(|t| t["tool"] == tool) else {
            panic!("no {tool} in the answer: {answer}");
        };
        let range = &times["first_seconds"];
        let (low, high) = (num(&range["low"]), num(&range["high"]));
        let real = median_copy(program, Path::new(folder), tb.mount());
        eprintln!(
            "{kind} {args:?}, {folder}: {program} -a median {real:.2} s; printed {low:.2} to {high:.2} s (expected {:.2})",
            num(&range["expected"])
        );
        assert!(
            (low..=high).contains(&real),
            "{kind}: {program} -a took {real:.2} s, outside the printed {low:.2}-{high:.2} s: {answer}"
        );
    }
}

/// A disk held to 35 MB/s (USB 2.0's practical rate) and a folder of 21,000 small files.
#[test]
#[ignore = "long: figures against an emulated device of known speed, which it holds alone"]
fn the_answer_holds_for_cp_and_rsync_on_a_35_mb_s_disk() {
    answer_holds_for(
        "slow-disk",
        &["--rate", "35"],
        "/usr/share/man",
        &["cp", "rsync"],
    );
}

/// A 100 Mbit/s share, where each file costs round trips: a smaller real folder (595 files,
/// no symlinks: sshfs cannot set a symlink's times, which `cp -a` reports as a failure).
#[test]
#[ignore = "long: figures against an emulated device of known speed, which it holds alone"]
fn the_answer_holds_for_cp_and_rsync_on_a_100_mbit_share() {
    answer_holds_for(
        "nas",
        &["--link", "100mbit"],
        "/usr/share/i18n",
        &["cp", "rsync"],
    );
}

/// Data on a disk held to 20 MB/s (/usr/share/man/man1 copied there: here 28 MB in 17,800
/// files), a memory destination: the answer names reading the data as the limit, from a
/// sample read cold in a few seconds, and a real cold `cp -a` of the folder to the
/// destination takes a time inside the printed range.
#[test]
#[ignore = "long: figures against an emulated device of known speed, which it holds alone"]
fn reading_data_from_a_slow_disk_is_the_limit() {
    if !support::require_root_and(&["cp"]) {
        return;
    }
    let Some((_alone, source)) = Testbed::up_alone("slow-disk", &["--rate", "20"]) else {
        return;
    };
    let Some(dest) = Testbed::up("tmpfs", &["--size", "256M"]) else {
        return;
    };
    let data = source.mount().join("man1");
    let copied = Command::new("cp")
        .arg("-a")
        .arg("/usr/share/man/man1")
        .arg(&data)
        .status()
        .unwrap();
    // Written to the disk: pages not yet written cannot be dropped, so could not be read cold.
    let synced = Command::new("sync").arg("-f").arg(&data).status().unwrap();
    assert!(copied.success() && synced.success());
    let start = Instant::now();
    let out = destbench()
        .args([
            "run",
            dest.mount().to_str().unwrap(),
            "--no-history",
            "--json",
        ])
        .args(["--profile", "quick", "--tests", "seq-write:SEQ1M-Q8T1"])
        .arg("--data")
        .arg(&data)
        .output()
        .unwrap();
    let run_s = start.elapsed().as_secs_f64();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let answer = &doc["answer"];
    let reads = &answer["data"]["reads"];
    assert_eq!(answer["limited_by"], "source", "{answer}");
    assert_eq!(reads["cold"], true, "{reads}");
    assert!(num(&reads["files_sampled"]) >= 100.0, "{reads}");
    assert!(num(&reads["sample_seconds"]) < 4.0, "{reads}");
    let words: Vec<&str> = answer["words"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w.as_str())
        .collect();
    assert!(
        words
            .iter()
            .any(|w| w.starts_with("Reading your data is the limit here: ")),
        "{words:?}"
    );
    let range = &answer["tools"][0]["first_seconds"];
    let (low, high) = (num(&range["low"]), num(&range["high"]));
    std::fs::write("/proc/sys/vm/drop_caches", "3").unwrap();
    let real = timed_copy("cp", &data, dest.mount());
    eprintln!(
        "data on a 20 MB/s disk: cp -a {real:.2} s; printed {low:.2} to {high:.2} s (expected \
         {:.2}); the run took {run_s:.1} s, its sample {:.2} s",
        num(&range["expected"]),
        num(&reads["sample_seconds"])
    );
    assert!(
        (low..=high).contains(&real),
        "cp -a took {real:.2} s, outside the printed {low:.2}-{high:.2} s: {answer}"
    );
}

/// `--data DIR`: the answer is for that folder, surveyed before the run (its size, its files),
/// and a folder that is not there is one line and no run.
#[test]
fn data_names_the_folder_the_answer_is_for() {
    let dir = tempfile::tempdir().unwrap();
    let (folder, dest) = (dir.path().join("documents"), dir.path().join("dest"));
    std::fs::create_dir_all(folder.join("2026")).unwrap();
    std::fs::create_dir(&dest).unwrap();
    for i in 0..40 {
        std::fs::write(folder.join(format!("2026/d{i}.txt")), vec![b'x'; 50_000]).unwrap();
    }
    let run_with_data = |data: &Path| {
        destbench()
            .args(["run", dest.to_str().unwrap(), "--no-history"])
            .args(["--engine", "null", "--profile", "quick", "--data"])
            .arg(data)
            .output()
            .unwrap()
    };
    let out = run_with_data(&folder);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let first_two: Vec<&str> = text
        .lines()
        .take(2)
        .flat_map(str::split_whitespace)
        .collect();
    let first_two = first_two.join(" ");
    let named = format!(
        "(2.0 MB in 40 files, {})",
        folder.canonicalize().unwrap().display()
    );
    assert!(first_two.contains(&named), "{text}");
    let out = run_with_data(&dir.path().join("missing"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.lines().count() == 1, "{err}");
    assert!(
        err.contains("--data") && err.contains("does not exist"),
        "{err}"
    );
}
