//! rsync's row in the answer: its first backup from its own copies, its routine backup from
//! its walk over the files that did not change.

use super::*;

/// rsync's copy of `set` (`files` files of `bytes` in all) at 5 ms a file and 35 MB/s.
fn rsync(set: &str, files: u64, bytes: u64) -> serde_json::Value {
    let s = files as f64 * 0.005 + bytes as f64 / 35e6;
    serde_json::json!({ "test": "files-copy", "variant": format!("{set}-rsync"),
        "threads": 1, "method": "syncfs", "engine": "program",
        "workload": { "kind": "file-set", "op": "copy-with-rsync", "set": set, "threads": 1 },
        "file_set": { "name": set, "files": files, "bytes": bytes },
        "repetitions": [ { "elapsed_s": s * 0.99 }, { "elapsed_s": s * 1.01 } ] })
}

/// rsync again onto its copy of the small set (3,000 files) at 10,000 files/s, with `details`.
fn rsync_update(details: serde_json::Value) -> serde_json::Value {
    serde_json::json!({ "test": "files-copy", "variant": "small-rsync-update",
        "threads": 1, "method": "syncfs", "engine": "program", "unit": "files/s",
        "median": 10_000.0, "min": 9_000.0, "max": 11_000.0,
        "workload": { "kind": "file-set", "op": "update-with-rsync", "set": "small", "threads": 1 },
        "file_set": { "name": "small", "files": 3000, "bytes": 30_000_000 },
        "details": details })
}

/// rsync's copies of the same sets at 5 ms a file: the answer gives rsync its own row from
/// them, fitted like the plain copy's, and no longer says rsync is missing.
#[test]
fn rsync_gets_its_own_time_from_its_own_copies() {
    let data = home(10_000_000_000, Some(100_000));
    let without = of(&run(None, 33.0, sets()), data.clone()).unwrap();
    assert_eq!(without.tools.len(), 1);
    let says_rsync = without.missing.iter().any(|m| m.contains("rsync"));
    assert_eq!(says_rsync, cfg!(unix), "{:?}", without.missing);
    let mut results = sets();
    results.extend([
        rsync("small", 3000, 30_000_000),
        rsync("mixed", 500, 100_000_000),
    ]);
    // rsync again onto its copy of the small set, its start-up not timed apart (older runs).
    results.push(rsync_update(serde_json::Value::Null));
    let r = run(None, 33.0, results.clone());
    let answer = of(&run(None, 33.0, results), data).unwrap();
    for x in &r.results {
        eprintln!("{} {} {:?} {}", x.test, x.variant, x.workload, x.median);
    }
    let tools: Vec<AnswerTool> = answer.tools.iter().map(|t| t.tool).collect();
    assert_eq!(tools, [AnswerTool::PlainCopy, AnswerTool::Rsync]);
    let truth = 100_000.0 * 0.005 + 10_000.0 / 35.0;
    let r = answer.tools[1].first_seconds;
    assert!(
        (r.expected / truth - 1.0).abs() < 0.02,
        "{r:?} against {truth}"
    );
    assert!(
        answer.tools[1].basis.contains("rsync -a"),
        "{}",
        answer.tools[1].basis
    );
    assert!(
        answer
            .words
            .iter()
            .any(|w| w.starts_with("With rsync: about ")),
        "{:?}",
        answer.words
    );
    assert!(!answer.missing.iter().any(|m| m.contains("rsync")));
    assert_eq!(answer.table[0].seconds.len(), 2);
    // Its routine backup: a GB's 10,000 files copied, then the walk over all 100,000 files.
    let routine = answer.tools[1].routine.as_ref().unwrap().seconds;
    let copied = 10_000.0 * 0.005 + 1000.0 / 35.0;
    assert!(
        (routine.expected - copied - 10.0).abs() < 0.5,
        "{routine:?}"
    );
    assert!(routine.low < routine.expected && routine.expected < routine.high);
    assert!(
        answer
            .words
            .iter()
            .any(|w| w.starts_with("With rsync: about ")
                && w.contains("; then about 1.5 min for each GB that changes.")),
        "{:?}",
        answer.words
    );
}

/// rsync starts once for a folder however many files it holds: where the run timed its
/// start-up apart, only the rest of an update's pass scales with the files.
#[test]
fn rsyncs_walk_scales_without_its_start_up() {
    let mut results = sets();
    results.extend([
        rsync("small", 3000, 30_000_000),
        rsync("mixed", 500, 100_000_000),
    ]);
    // 3,000 files at 10,000 files/s: 0.3 s a pass, 0.2 s of it the start-up.
    results.push(rsync_update(serde_json::json!(
        { "kind": "program-start", "start_s": 0.2, "samples_s": [0.19, 0.2, 0.21] }
    )));
    let answer = of(
        &run(None, 33.0, results),
        home(10_000_000_000, Some(100_000)),
    )
    .unwrap();
    let with_rsync = &answer.tools[1];
    assert_eq!(with_rsync.tool, AnswerTool::Rsync);
    // A GB's 10,000 files copied, then 0.2 s and 100,000 files at 30,000 files/s walked.
    let routine = with_rsync.routine.as_ref().unwrap();
    let copied = 10_000.0 * 0.005 + 1000.0 / 35.0;
    let walk = 0.2 + 100_000.0 / 30_000.0;
    assert!(
        (routine.seconds.expected - copied - walk).abs() < 0.05,
        "{routine:?}"
    );
    assert!(routine.seconds.low < routine.seconds.expected);
    assert!(
        routine
            .assumed
            .contains("30000 files/s walked, rsync's start-up of 200 ms apart"),
        "{}",
        routine.assumed
    );
}
