//! A stored run as the estimate's input (`estimate --run`): its write-cache-on copies of file
//! sets with the asked number of threads. Its file sets are files in one directory level, with
//! no slack recorded.

use crate::results::{RunDocument, TestResult};
use crate::workload::{FileOp, SetName, Workload};

use super::model::CopyMeasurement;

/// The copy the estimate takes from a stored run: destbench's own, with the write cache on.
const CACHED_COPY: FileOp = FileOp::Copy { cache_on: true };

/// Whether `r` is a copy of any set made by `op` on `threads` threads.
fn is_copy(r: &TestResult, op: FileOp, threads: usize) -> bool {
    matches!(r.workload, Some(Workload::FileSet { op: o, threads: t, .. }) if o == op && t == threads)
}

/// The write-cache-on copies of `run` with `threads` threads, one measurement per file set.
pub fn copy_measurements(run: &RunDocument, threads: usize) -> Vec<CopyMeasurement> {
    run_copies(run, CACHED_COPY, threads)
        .into_iter()
        .map(|(_, m)| m)
        .collect()
}

/// The copies of `run` made by `op` on `threads` threads, with the set each copied: the
/// answer tells the user's own folder (`--source`) from the generated sets, and destbench's
/// copy from rsync's.
pub fn run_copies(
    run: &RunDocument,
    op: FileOp,
    threads: usize,
) -> Vec<(SetName, CopyMeasurement)> {
    run.results
        .iter()
        .filter(|r| is_copy(r, op, threads))
        .filter_map(|r| {
            let set = r.file_set.as_ref()?;
            let Some(Workload::FileSet { set: name, .. }) = &r.workload else {
                return None;
            };
            let m = CopyMeasurement {
                variant: r.variant.clone(),
                dirs: 0,
                files: set.files,
                bytes: set.bytes,
                block_bytes: set.bytes,
                sizes: None,
                // A repetition may have copied the set several times to last --min-time.
                seconds: r
                    .repetitions
                    .iter()
                    .map(|rep| rep.elapsed_s / rep.passes.unwrap_or(1).max(1) as f64)
                    .collect(),
            };
            Some((*name, m))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A repetition that copied the set 4 times to last --min-time is 4 copies, not one.
    #[test]
    fn a_repetition_of_several_passes_is_one_copy_per_pass() {
        let run: RunDocument = serde_json::from_value(serde_json::json!({
            "schema": "destbench.run/1",
            "destination": { "path": "/mnt" },
            "results": [ { "test": "files-copy", "variant": "small-1t-cache-on", "threads": 1,
                "method": "syncfs", "engine": "sync",
                "file_set": { "name": "small", "files": 100, "bytes": 1_000_000 },
                "repetitions": [ { "elapsed_s": 1.2, "passes": 4 }, { "elapsed_s": 0.5 } ] } ]
        }))
        .unwrap();
        let m = copy_measurements(&run, 1);
        assert_eq!((m[0].files, m[0].bytes), (100, 1_000_000));
        assert_eq!(m[0].seconds, vec![0.3, 0.5]);
    }
}
