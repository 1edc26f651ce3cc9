//! `estimate --tool timemachine`: a first backup and an hourly incremental of a source with
//! Time Machine, from a stored run's `tm-backup` replay on the destination. Pure.
//!
//! ```text
//! first       = (bytes + files × per_file) × first.seconds / first.user_bytes
//! incremental = share × first's bytes written × incremental.seconds / incremental.bytes_written
//! ```
//!
//! The replay's time per user byte carries its metadata writes, flushes and barriers. Time
//! Machine also writes APFS metadata per file, which the replay (whose metadata follows bytes)
//! does not: `per_file` is the trace's 82 MiB beyond the data for 22,511 files (3.7 KiB each),
//! and the range runs from none to twice that. An hourly incremental is taken as the trace's
//! were, a share of the first backup's bytes: 4.4% (their mean), from 1.0% to 10.2% (the
//! smallest and the largest); the changes of a real hour set it, which the estimate cannot know.
//! The replay's rates are the destination's, as measured; the source's reads are not in it.

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
    let first_seconds = Range {
        low: with_files(0.0),
        expected: with_files(PER_FILE_BYTES),
        high: with_files(2.0 * PER_FILE_BYTES),
    };
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
    })
}

#[cfg(test)]
mod tests {
    use super::*;
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
        assert!((files.first_seconds.expected - (100.0 + per_file)).abs() < 1e-9);
        assert!((files.first_seconds.high - (100.0 + 2.0 * per_file)).abs() < 1e-9);
        let none = run_with(TmPhaseFigures::default(), inc);
        assert_eq!(estimate(&none, 1, 1), Err(NoTimeMachine::Empty));
    }
}
