//! `destbench export ID --format fio`: an fio job file that reproduces each block variant of the
//! stored runs (engine, direct or buffered, block size, queue depth, file size, duration), so a
//! user can check destbench's figures against fio's in one command (`bench/vs-fio.sh` runs it).
//! Each job is named `TEST.VARIANT`, which `destbench import-fio` reads back, so `compare` pairs
//! fio's result with destbench's.
//!
//! What a job reproduces comes from the suite table (direction and pattern) and from the result
//! (block size, depth, engine, method): nothing is guessed from the variant's name.

use std::fmt::Write as _;

use crate::engine::EngineKind;
use crate::history::RunRecord;
use crate::report::export::Exporter;
use crate::results::fio::LAY_DOWN_JOB;
use crate::results::{Method, TestResult};
use crate::workload::{Direction, Pattern, Workload};

/// The file every job works on, in the destination; one file, as destbench's block tests share
/// one test file.
pub const FIO_FILE: &str = "destbench-fio.dat";

/// `export --format fio`.
pub struct FioJobs;

impl Exporter for FioJobs {
    fn serialize(&self, records: &[RunRecord]) -> String {
        let mut out = String::new();
        for r in records {
            run_jobs(&mut out, r);
        }
        out
    }
}

/// The direction and pattern of a block variant.
fn block_shape(res: &TestResult) -> Option<(Direction, Pattern)> {
    match res.workload.as_ref()? {
        Workload::Block {
            direction, pattern, ..
        } => Some((*direction, *pattern)),
        _ => None,
    }
}

fn run_jobs(out: &mut String, r: &RunRecord) {
    let run = &r.run;
    let s = &run.settings;
    let _ = writeln!(
        out,
        "; destbench run {} ({}): its block variants as fio jobs, one after another.\n\
         ; Run: fio --output-format=json --output=fio.json THIS_FILE\n\
         ; then: destbench import-fio fio.json, and destbench compare {} ID.\n\
         ; The first job, {LAY_DOWN_JOB}, writes {FIO_FILE} in the directory below as destbench\n\
         ; lays its test file down (import-fio leaves it out); the last job deletes it.\n\
         ; destbench's large buffers are in 2 MiB pages; for fio's to match, reserve huge pages\n\
         ; (as root: echo 64 > /proc/sys/vm/nr_hugepages) and add --iomem=shmhuge\n\
         ; --hugepage-size=2m to fio's command line.",
        r.id,
        r.name(),
        r.id
    );
    let _ = writeln!(
        out,
        "[global]\ndirectory={}\nfilename={FIO_FILE}\nsize={}\ntime_based=1\nruntime={}\n\
         randrepeat=0\nthread=1\ngroup_reporting=1\n",
        run.destination.path.display(),
        s.file_size_bytes,
        // fio takes whole seconds by default; milliseconds keep a fractional duration.
        format_args!("{}ms", (s.block_duration_s * 1000.0).round() as u64)
    );
    let block_results: Vec<(&TestResult, Direction, Pattern)> = run
        .results
        .iter()
        .filter_map(|res| block_shape(res).map(|(d, p)| (res, d, p)))
        .collect();
    let mut jobs: Vec<String> = block_results
        .iter()
        .map(|&(res, direction, pattern)| job(res, direction, pattern, s.file_size_bytes))
        .collect();
    if !jobs.is_empty() {
        let direct = block_results
            .iter()
            .any(|(res, ..)| res.method == Method::Direct);
        let uring = block_results
            .iter()
            .any(|(res, ..)| res.engine == EngineKind::Uring);
        jobs.insert(0, lay_down_job(direct, uring));
    }
    for (i, job) in jobs.iter().enumerate() {
        out.push_str(job);
        if i + 1 == jobs.len() {
            // Only after the last job: the jobs share the file, as destbench's block tests do.
            out.push_str("unlink=1\n");
        }
        out.push('\n');
    }
    if jobs.is_empty() {
        let _ = writeln!(
            out,
            "; this run has no block variants (seq-*, 4k-* at SEQ/RND), nothing for fio to repeat\n"
        );
    }
}

/// Writes the whole file, untimed by destbench's measure, as `runner::block` lays its test file
/// down: sequential 1 MiB requests, 8 in flight with io_uring where the run used it (else one at
/// a time: what shapes the file is direct or not, not how many requests wrote it), direct where
/// the run was, flushed at the end. Not time-based, whatever the global section says, and no
/// fallocate (destbench writes the file's extents as it goes).
fn lay_down_job(direct: bool, uring: bool) -> String {
    let mut out = format!(
        "[{LAY_DOWN_JOB}]\nstonewall\nrw=write\nbs=1m\ndirect={}\ntime_based=0\nfallocate=none\nend_fsync=1\n",
        u8::from(direct)
    );
    if uring {
        out.push_str("ioengine=io_uring\niodepth=8\nfixedbufs=1\n");
    } else {
        out.push_str("ioengine=psync\niodepth=1\n");
    }
    out
}

/// One job's section, without its closing blank line.
fn job(res: &TestResult, direction: Direction, pattern: Pattern, size: u64) -> String {
    let mut out = String::new();
    let rw = match (direction, pattern) {
        (Direction::Read, Pattern::Sequential) => "read",
        (Direction::Write, Pattern::Sequential) => "write",
        (Direction::Read, Pattern::Random) => "randread",
        (Direction::Write, Pattern::Random) => "randwrite",
    };
    let depth = res.queue_depth.max(1);
    let _ = writeln!(
        out,
        "[{}.{}]\nstonewall\nrw={rw}\nbs={}\ndirect={}",
        res.test,
        res.variant,
        res.block_size_bytes,
        u8::from(res.method == Method::Direct)
    );
    match res.engine {
        EngineKind::Uring => {
            // destbench registers its buffers with io_uring.
            let _ = writeln!(out, "ioengine=io_uring\niodepth={depth}\nfixedbufs=1");
        }
        _ if depth == 1 => {
            let _ = writeln!(out, "ioengine=psync\niodepth=1");
        }
        _ => {
            // The sync engine keeps a depth above 1 in flight with that many threads; in order,
            // each thread takes its own slice of the file.
            let _ = writeln!(out, "ioengine=psync\nnumjobs={depth}");
            if pattern == Pattern::Sequential {
                let slice = size / depth as u64;
                let _ = writeln!(out, "size={slice}\noffset_increment={slice}");
            }
        }
    }
    if direction == Direction::Write {
        // destbench's write figures include the flush to stable storage.
        let _ = writeln!(out, "end_fsync=1");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::RunDocument;

    #[test]
    fn block_variants_become_jobs_and_the_rest_is_left_out() {
        let run: RunDocument = serde_json::from_value(serde_json::json!({
            "destination": { "path": "/mnt/nas" },
            "settings": { "file_size_bytes": 16777216, "block_duration_s": 0.5 },
            "results": [
                { "test": "seq-read", "variant": "SEQ1M-Q8T1", "method": "direct",
                  "engine": "uring", "block_size_bytes": 1048576, "queue_depth": 8 },
                { "test": "4k-write", "variant": "RND4K-Q1T1", "method": "fsync",
                  "engine": "sync", "block_size_bytes": 4096, "queue_depth": 1 },
                { "test": "seq-write", "variant": "SEQ1M-Q8T1", "method": "direct",
                  "engine": "sync", "block_size_bytes": 1048576, "queue_depth": 8 },
                { "test": "tm-check", "variant": "500x4KB", "method": "direct",
                  "engine": "sync" },
            ],
        }))
        .unwrap();
        let record = RunRecord {
            id: 7,
            stored_unix_s: 0,
            environment: Default::default(),
            document: serde_json::Value::Null,
            run,
        };
        let text = FioJobs.serialize(&[record]);
        assert!(text.contains("directory=/mnt/nas\n") && text.contains("runtime=500ms\n"));
        // The file is laid down first, direct as the run's direct results were, with io_uring
        // as the run used it, and not time-based.
        let lay_down = text.find("[lay-down]\nstonewall\nrw=write\nbs=1m\ndirect=1\ntime_based=0\nfallocate=none\nend_fsync=1\nioengine=io_uring\niodepth=8\n");
        assert!(lay_down.is_some(), "{text}");
        assert!(lay_down < text.find("[seq-read.SEQ1M-Q8T1]"), "{text}");
        assert!(!text.contains("\noverwrite=1\n"), "{text}");
        assert!(text.contains(
            "[seq-read.SEQ1M-Q8T1]\nstonewall\nrw=read\nbs=1048576\ndirect=1\nioengine=io_uring\niodepth=8\n"
        ), "{text}");
        assert!(text.contains(
            "[4k-write.RND4K-Q1T1]\nstonewall\nrw=randwrite\nbs=4096\ndirect=0\nioengine=psync\niodepth=1\nend_fsync=1\n"
        ), "{text}");
        assert!(
            text.contains(
                "numjobs=8\nsize=2097152\noffset_increment=2097152\nend_fsync=1\nunlink=1\n"
            ),
            "{text}"
        );
        assert!(!text.contains("tm-check"), "{text}");
    }
}
