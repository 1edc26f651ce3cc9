//! The terminal report's first screen: the verdict, the four CrystalDiskMark-style headline
//! figures (read and write), and the backup-shaped figures (small files, the mixed set, Time
//! Machine's check). Every figure is a stored result's median; nothing is computed here.

use std::fmt::Write as _;

use super::table::{MISSING, Table};
use crate::results::{RunReport, TestResult};
use crate::workload::TestId;

/// The headline variants, in CrystalDiskMark's order: (read test, write test, variant).
const HEADLINE: [(TestId, TestId, &str); 4] = [
    (TestId::SeqRead, TestId::SeqWrite, "SEQ1M-Q8T1"),
    (TestId::SeqRead, TestId::SeqWrite, "SEQ1M-Q1T1"),
    (TestId::FourKRead, TestId::FourKWrite, "RND4K-Q32T1"),
    (TestId::FourKRead, TestId::FourKWrite, "RND4K-Q1T1"),
];

fn find<'a>(report: &'a RunReport, test: TestId, variant: &str) -> Option<&'a TestResult> {
    report
        .results
        .iter()
        .find(|r| r.test == test && r.variant == variant)
}

/// The first of `variants` that `test` measured.
fn first_of<'a>(report: &'a RunReport, test: TestId, variants: &[&str]) -> Option<&'a TestResult> {
    variants.iter().find_map(|v| find(report, test, v))
}

fn mb_s(r: Option<&TestResult>) -> String {
    r.map_or(MISSING.to_string(), |r| format!("{:.1}", r.median))
}

/// The headline table, or nothing when the run measured none of its figures.
pub fn headline(report: &RunReport) -> Option<String> {
    let mut table = Table::text_then_figures(&["MB/s"], &["read", "write"]);
    let mut any = false;
    for (read, write, variant) in HEADLINE {
        let (r, w) = (find(report, read, variant), find(report, write, variant));
        any |= r.is_some() || w.is_some();
        table.push([variant.to_string(), mb_s(r), mb_s(w)]);
    }
    any.then(|| table.text(&|h: &str| h.to_string()))
}

/// The backup-shaped figures, one line each: what a backup of many small files, of a desktop's
/// mix, and Time Machine's own check achieve. The 1-thread, write-cache-off copy is the shape of
/// most backup tools (one file at a time, each made durable).
pub fn backup_figures(report: &RunReport) -> Vec<String> {
    let mut lines = Vec::new();
    let copy = |set: &str| {
        first_of(
            report,
            TestId::FilesCopy,
            &[
                &format!("{set}-1t-cache-off"),
                &format!("{set}-1t-cache-on"),
            ],
        )
    };
    if let Some(r) = copy("small") {
        lines.push(format!(
            "small files   {:.0} files/s ({:.1} MB/s), files-copy {}",
            r.ops_per_s_median, r.median, r.variant
        ));
    }
    if let Some(r) = copy("mixed") {
        lines.push(format!(
            "mixed set     {:.1} MB/s ({:.0} files/s), files-copy {}",
            r.median, r.ops_per_s_median, r.variant
        ));
    }
    let big = find(report, TestId::TmCheck, "50MB");
    let small = find(report, TestId::TmCheck, "500x4KB");
    if big.is_some() || small.is_some() {
        let mut line = String::from("Time Machine  check:");
        if let Some(r) = big {
            let _ = write!(line, " 50 MB file at {:.1} MB/s", r.median);
        }
        if let Some(r) = small {
            let _ = write!(
                line,
                "{} 500 4 KB files at {:.0} files/s",
                if big.is_some() { ";" } else { "" },
                r.ops_per_s_median
            );
        }
        lines.push(line);
    }
    lines
}
