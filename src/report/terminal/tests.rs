//! The terminal report: its Time Machine section, a share's parts under the verdict.

use super::*;
use crate::probe::TimeMachineCheck;
use crate::results::tests::share;

#[test]
fn time_machines_own_checks_follow_destbenchs_lines() {
    let mut report = RunDocument {
        time_machine_log: vec![
            "Wrote 1 50 MB file at 80.00 MB/s to \"/b\" in 0.625 seconds".into(),
        ],
        ..RunDocument::default()
    };
    report.destination.time_machine_checks = vec![TimeMachineCheck {
        concurrent: false,
        files: 1,
        file_size: "50 MB".into(),
        mb_s: 71.8,
        destination: Some("/b".into()),
        seconds: Some(0.696),
        when: "2026-11-25 02:13:55".into(),
    }];
    let text = render(&report, Style { color: false }, Layout::default());
    let ours = text.find("as backupd would log it").unwrap();
    let theirs = text
        .find("Time Machine's own checks of this volume")
        .unwrap();
    assert!(ours < theirs, "{text}");
    assert!(
        text.contains("2026-11-25 02:13:55: Wrote 1 50 MB file at 71.80 MB/s in 0.696 seconds")
    );
}

/// A share's parts are one block under the verdict, before the headline.
#[test]
fn a_shares_parts_follow_the_verdict() {
    let report = RunDocument {
        verdict: Some(Verdict {
            summary: "The server's disks are the limit.".into(),
            ..Verdict::default()
        }),
        share: Some(share()),
        ..RunDocument::default()
    };
    // Wide enough that the block is one line.
    let wide = Layout {
        width: 400,
        ..Layout::default()
    };
    let text = render(&report, Style { color: false }, wide);
    let verdict = text.find("verdict: The server's").expect("the verdict");
    let line = format!("\nshare: {}\n", crate::report::share::words(&share()));
    let parts = text.find(&line).expect("the share");
    assert!(verdict < parts, "{text}");
    let off_a_share = RunDocument {
        share: None,
        ..report
    };
    let text = render(&off_a_share, Style { color: false }, Layout::default());
    assert!(!text.contains("share:"), "{text}");
}
