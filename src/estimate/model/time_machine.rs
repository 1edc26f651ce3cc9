//! `estimate --tool timemachine`: a first backup and an hourly incremental of a source with
//! Time Machine, from a stored run's `tm-backup` replay on the destination. Pure.
//!
//! ```text
//! first       = (bytes + files × per_file) × first.seconds / first.user_bytes + files × per_item
//! incremental = share × first's bytes written × incremental.seconds / incremental.bytes_written
//! ```
//!
//! The replay's time per user byte carries its metadata writes, flushes and barriers. Time
//! Machine also writes APFS metadata per file, which the replay (whose metadata follows bytes)
//! does not: `per_file` is the trace's 82 MiB beyond the data for 22,511 files (3.7 KiB each),
//! and the range runs from none to twice that. And it works on the Mac for each item (its
//! snapshot and scan, its bookkeeping), which no destination shows: `per_item`, from this Mac's
//! own logged backups where the run read them, else the range published first backups show
//! ([`PUBLISHED_PER_ITEM_S`]). An hourly incremental is taken as the trace's were, a share of the
//! first backup's bytes: 4.4% (their mean), from 1.0% to 10.2% (the smallest and the largest);
//! the changes of a real hour set it, which the estimate cannot know. The replay's rates are the
//! destination's, as measured; the source's reads are not in it.

use serde::Serialize;

use crate::results::{Details, RunDocument, TestResult, TmBackupDetails};
use crate::workload::TestId;

use super::Range;

/// APFS metadata per file in a first backup: the trace's baseline wrote 5,581 MiB of non-zero
/// data for 22,511 files of 5,499 MiB (hotspots, "Writes per backup").
pub const PER_FILE_BYTES: f64 = 82.0 * 1048576.0 / 22511.0;
/// An incremental's bytes against the first backup's: mean, smallest, largest of inc1-inc5
/// (hotspots, "Writes per backup").
pub const INCREMENTAL_SHARE: Range = Range {
    low: 0.010,
    expected: 0.044,
    high: 0.102,
};

/// Time Machine's own work per item on the Mac beyond the destination's time, in seconds, where
/// this Mac's log gives none: from nothing, through a published first backup's time beyond its
/// bytes at a Finder copy's rate over the same link (405,718 items and 91.8 GB in 11,558 s at
/// 11.9 MB/s: 9.5 ms an item), to another's whole time over its items (1,041,141 items in over
/// 5 hours: 17.3 ms, its bytes free). Sources in docs/tm-backup.md.
pub const PUBLISHED_PER_ITEM_S: Range = Range {
    low: 0.0,
    expected: 0.0095,
    high: 0.0173,
};
/// A logged backup of fewer items says little of the time per item: its snapshots and scan,
/// paid once, are most of it.
pub const LOGGED_MIN_ITEMS: u64 = 10_000;
/// The logged figures' range reaches at least this far either side of their median: each
/// backup's time also holds its own once-paid work.
pub const LOGGED_SPREAD: f64 = 0.25;

/// Where the time per item comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PerItemFrom {
    /// Published first backups: not this Mac.
    Published,
    /// This Mac's own backups to the destination's volume, from Time Machine's log.
    Logged,
}

/// Time Machine's own work per item on the Mac.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PerItem {
    pub seconds: Range,
    pub from: PerItemFrom,
    /// The logged backups it was drawn from (none where published).
    pub backups: usize,
}

impl PerItem {
    /// "9.5 ms an item (0.0-17.3 ms), from published first backups, not this Mac's"
    pub fn describe(&self) -> String {
        let ms = |s: f64| s * 1e3;
        let from = match self.from {
            PerItemFrom::Published => "from published first backups, not this Mac's".to_string(),
            PerItemFrom::Logged => format!(
                "from {} of this Mac's own backups in Time Machine's log",
                self.backups
            ),
        };
        format!(
            "{:.1} ms an item ({:.1}-{:.1} ms), {from}",
            ms(self.seconds.expected),
            ms(self.seconds.low),
            ms(self.seconds.high)
        )
    }
}

/// The time per item of `run`'s logged backups of [`LOGGED_MIN_ITEMS`] or more, each its time
/// beyond its bytes at the replay's `per_user_byte`; the published range without them.
pub fn per_item(run: &RunDocument, per_user_byte: f64) -> PerItem {
    let each: Vec<f64> = (run.destination.time_machine_backups.iter())
        .filter(|b| b.items >= LOGGED_MIN_ITEMS && b.seconds > 0.0)
        .map(|b| (b.seconds - b.bytes as f64 * per_user_byte).max(0.0) / b.items as f64)
        .collect();
    let Some(s) = crate::stats::summarize(&each) else {
        return PerItem {
            seconds: PUBLISHED_PER_ITEM_S,
            from: PerItemFrom::Published,
            backups: 0,
        };
    };
    PerItem {
        seconds: Range {
            low: s.min.min(s.median * (1.0 - LOGGED_SPREAD)),
            expected: s.median,
            high: s.max.max(s.median * (1.0 + LOGGED_SPREAD)),
        },
        from: PerItemFrom::Logged,
        backups: each.len(),
    }
}

/// The Time Machine estimate for one destination.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TimeMachineEstimate {
    pub first_seconds: Range,
    pub incremental_seconds: Range,
    /// The replay's figures it rests on.
    pub user_data_mb_s: f64,
    pub incremental_mb_s: f64,
    pub barriers_per_s: f64,
    pub band_size_bytes: u64,
    pub per_file_bytes: f64,
    /// Time Machine's own work per item, in the first backup.
    pub per_item: PerItem,
}

/// Why a stored run gives no Time Machine estimate.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NoTimeMachine {
    #[error(
        "the run has no tm-backup result: measure with `destbench run DEST {tests} tm-backup` and pass its {run} ID",
        tests = crate::settings::defs::TESTS,
        run = crate::settings::defs::RUN
    )]
    NoReplay,
    #[error("the run's tm-backup result has no time or no user data")]
    Empty,
}

/// The tm-backup figures of `run`, if it has them.
fn replay(run: &RunDocument) -> Option<&TmBackupDetails> {
    run.results
        .iter()
        .filter(|r: &&TestResult| r.test == TestId::TmBackup)
        .find_map(|r| match &r.details {
            Some(Details::TmBackup(d)) => Some(d),
            _ => None,
        })
}

/// The estimate for a source of `bytes` in `files` files on the destination of `run`.
pub fn estimate(
    run: &RunDocument,
    bytes: u64,
    files: u64,
) -> Result<TimeMachineEstimate, NoTimeMachine> {
    let d = replay(run).ok_or(NoTimeMachine::NoReplay)?;
    let (first, inc) = (&d.first, &d.incremental);
    if first.user_bytes == 0 || first.seconds <= 0.0 || inc.bytes_written == 0 {
        return Err(NoTimeMachine::Empty);
    }
    let per_user_byte = first.seconds / first.user_bytes as f64;
    let with_files = |per_file: f64| (bytes as f64 + files as f64 * per_file) * per_user_byte;
    let per_item = per_item(run, per_user_byte);
    let first_seconds = Range {
        low: with_files(0.0),
        expected: with_files(PER_FILE_BYTES),
        high: with_files(2.0 * PER_FILE_BYTES),
    } + per_item.seconds.times(files as f64);
    // The first backup's bytes written, as the replay wrote them per user byte.
    let written = (bytes as f64 + files as f64 * PER_FILE_BYTES) * first.bytes_written as f64
        / first.user_bytes as f64;
    let per_inc_byte = inc.seconds / inc.bytes_written as f64;
    let incremental = |share: f64| share * written * per_inc_byte;
    Ok(TimeMachineEstimate {
        first_seconds,
        incremental_seconds: Range {
            low: incremental(INCREMENTAL_SHARE.low),
            expected: incremental(INCREMENTAL_SHARE.expected),
            high: incremental(INCREMENTAL_SHARE.high),
        },
        user_data_mb_s: d.user_data_mb_s,
        incremental_mb_s: inc.bytes_written as f64 / inc.seconds / 1e6,
        barriers_per_s: d.barriers_per_s,
        band_size_bytes: d.band_size_bytes,
        per_file_bytes: PER_FILE_BYTES,
        per_item,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::TimeMachineBackup;
    use crate::results::TmPhaseFigures;

    fn run_with(first: TmPhaseFigures, incremental: TmPhaseFigures) -> RunDocument {
        let mut run: RunDocument = serde_json::from_value(serde_json::json!({
            "schema": "destbench.run/2", "destination": { "path": "/mnt" },
            "results": [ { "test": "tm-backup", "variant": "sparsebundle", "method": "fsync",
                "engine": "sync", "workload": { "kind": "tm-backup" } } ]
        }))
        .unwrap();
        run.results[0].details = Some(Details::TmBackup(TmBackupDetails {
            first,
            incremental,
            ..Default::default()
        }));
        run
    }

    /// 100 MB of user data in 10 s; an incremental of 1 MB in 2 s. A source of 1 GB in no
    /// files takes 100 s; each file adds its metadata at the same cost per byte.
    #[test]
    fn the_first_backup_scales_the_replays_time_per_user_byte() {
        let first = TmPhaseFigures {
            seconds: 10.0,
            user_bytes: 100_000_000,
            bytes_written: 110_000_000,
            ..Default::default()
        };
        let inc = TmPhaseFigures {
            seconds: 2.0,
            bytes_written: 1_000_000,
            ..Default::default()
        };
        let e = estimate(&run_with(first, inc), 1_000_000_000, 0).unwrap();
        assert_eq!(e.first_seconds.low, 100.0);
        assert_eq!(e.first_seconds.expected, 100.0);
        // 4.4% of the 1.1 GB written, at 2 s per MB.
        assert!((e.incremental_seconds.expected - 0.044 * 1100.0 * 2.0).abs() < 1e-6);
        let files = estimate(&run_with(first, inc), 1_000_000_000, 10_000).unwrap();
        let per_file = PER_FILE_BYTES * 10_000.0 / 1e7;
        // Time Machine's own work per item, as published first backups show it: none at best.
        let own = PUBLISHED_PER_ITEM_S.times(10_000.0);
        assert_eq!(files.per_item.from, PerItemFrom::Published);
        assert!((files.first_seconds.low - 100.0).abs() < 1e-9);
        assert!((files.first_seconds.expected - (100.0 + per_file + own.expected)).abs() < 1e-9);
        assert!((files.first_seconds.high - (100.0 + 2.0 * per_file + own.high)).abs() < 1e-9);
        let none = run_with(TmPhaseFigures::default(), inc);
        assert_eq!(estimate(&none, 1, 1), Err(NoTimeMachine::Empty));
    }

    fn logged(items: u64, bytes: u64, seconds: f64) -> TimeMachineBackup {
        TimeMachineBackup {
            when: String::new(),
            destination: None,
            checked: None,
            seconds,
            items,
            bytes,
        }
    }

    /// This Mac's logged backups give the time per item: each one's time beyond its bytes at
    /// the replay's rate, over its items; a backup of few items says nothing of it.
    #[test]
    fn the_time_per_item_comes_from_the_macs_own_backups_where_logged() {
        let first = TmPhaseFigures {
            seconds: 10.0,
            user_bytes: 100_000_000,
            bytes_written: 100_000_000,
            ..Default::default()
        };
        let inc = TmPhaseFigures {
            seconds: 1.0,
            bytes_written: 1_000_000,
            ..Default::default()
        };
        let mut run = run_with(first, inc);
        // 10 MB/s: 20,000 items and 1 GB in 100 s + 20,000 × 4 ms; 50,000 items and 2 GB in
        // 200 s + 50,000 × 6 ms; 500 items in 60 s (left out).
        run.destination.time_machine_backups = vec![
            logged(20_000, 1_000_000_000, 180.0),
            logged(50_000, 2_000_000_000, 500.0),
            logged(500, 1_000, 60.0),
        ];
        let e = estimate(&run, 1_000_000_000, 100_000).unwrap();
        assert_eq!(e.per_item.from, PerItemFrom::Logged);
        assert_eq!(e.per_item.backups, 2);
        let s = e.per_item.seconds;
        assert!((s.expected - 0.005).abs() < 1e-12, "{s:?}");
        // The two backups' 4 and 6 ms lie within LOGGED_SPREAD of their median.
        let spread = (0.005 * (1.0 - LOGGED_SPREAD), 0.005 * (1.0 + LOGGED_SPREAD));
        assert!((s.low - spread.0).abs() < 1e-12 && (s.high - spread.1).abs() < 1e-12);
        let bytes = 100.0 + 100_000.0 * PER_FILE_BYTES / 1e7;
        assert!((e.first_seconds.expected - (bytes + 500.0)).abs() < 1e-9);
        assert!(
            e.per_item
                .describe()
                .contains("2 of this Mac's own backups")
        );
        // One backup: its figure, at least LOGGED_SPREAD either side.
        run.destination.time_machine_backups = vec![logged(20_000, 1_000_000_000, 180.0)];
        let one = per_item(&run, 1e-7);
        assert!((one.seconds.low - 0.004 * (1.0 - LOGGED_SPREAD)).abs() < 1e-12);
        assert!((one.seconds.high - 0.004 * (1.0 + LOGGED_SPREAD)).abs() < 1e-12);
        // A backup faster than the replay's rate does its items for nothing, not in less.
        run.destination.time_machine_backups = vec![logged(20_000, 1_000_000_000, 50.0)];
        assert_eq!(per_item(&run, 1e-7).seconds.expected, 0.0);
    }
}
