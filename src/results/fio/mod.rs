//! An fio result (`fio --output-format=json`) read as a run document, so that `destbench
//! import-fio` can keep a user's fio figures in the history and `compare` can set them beside
//! destbench's. Each job side that moved data (read, write) becomes one result with one
//! repetition; the method comes from `direct`, the engine from `ioengine`.
//!
//! A job named `TEST.VARIANT` (as `export --format fio` names them) keeps that name, so it pairs
//! with the destbench result it reproduces; any other job is named from its options the way the
//! suite names its variants (`RND4K-Q32T1`: pattern, block size, iodepth, numjobs).

mod output;

use super::{Destination, Method, OpKind, RepetitionRecord, RunDocument, RunSettings, TestResult};
use super::{RUN_SCHEMA, Unit, Warning, WarningKind};
use crate::engine::EngineKind;
use crate::stats::LatencySummary;
use crate::workload::{Direction, Pattern, TestId, Workload, size_label};
use output::{FioJob, FioSide, JobOptions, Options, fio_document, fio_size};

/// The job of an exported job file (`export --format fio`) that writes the test file before the
/// measured jobs, as destbench lays its own down: not a measurement, so not imported.
pub const LAY_DOWN_JOB: &str = "lay-down";

/// fio's completion-latency percentiles (ns) as destbench's summary (µs).
fn latency(side: &FioSide) -> Option<LatencySummary> {
    let clat = side.clat_ns.as_ref()?;
    let pct = |p: Option<f64>| p.map(|ns| ns / 1e3);
    Some(LatencySummary {
        p50: pct(clat.percentile.p50)?,
        p99: pct(clat.percentile.p99)?,
        p999: pct(clat.percentile.p999)?,
        mean: clat.mean / 1e3,
        max: clat.max / 1e3,
    })
}

/// The test and variant of a job `export --format fio` named `TEST.VARIANT`, for its side
/// of the same direction.
fn exported_name(o: &Options<'_>, side: Direction) -> Option<(TestId, String)> {
    o.job
        .name()
        .and_then(|n| n.split_once('.'))
        .and_then(|(t, v)| Some((t.parse::<TestId>().ok()?, v.to_string())))
        .filter(|(t, _)| t.block_direction() == Some(side))
}

/// How a side reached the device, warning of buffered writes fio never flushed.
fn method(o: &Options<'_>, read: bool, warnings: &mut Vec<Warning>) -> Method {
    let direct = o.get("direct").is_some_and(|d| d.trim() == "1");
    let synced = ["end_fsync", "fsync", "fdatasync", "sync"]
        .iter()
        .any(|k| o.get(k).is_some_and(|v| v.trim() != "0"));
    match (direct, read) {
        (true, _) => Method::Direct,
        // fio drops a job's file from the page cache before it starts (invalidate=1).
        (false, true) => Method::Evict,
        (false, false) => {
            if !synced {
                warnings.push(Warning::new(
                    WarningKind::PageCache,
                    "buffered writes without end_fsync or fsync: fio's figure may be the page cache's",
                ));
            }
            Method::Fsync
        }
    }
}

/// The I/O shape of one side of one job, from its options.
struct SideShape {
    direction: Direction,
    random: bool,
    block: u64,
    depth: usize,
    jobs: usize,
}

impl SideShape {
    fn of(o: &Options<'_>, read: bool) -> SideShape {
        let rw = o.get("rw").or_else(|| o.get("readwrite")).unwrap_or("read");
        // `bs=4k,64k` sets reads and writes apart.
        let sizes: Vec<u64> = o
            .get("bs")
            .map(|b| b.split(',').filter_map(fio_size).collect())
            .unwrap_or_default();
        SideShape {
            direction: if read {
                Direction::Read
            } else {
                Direction::Write
            },
            random: rw.starts_with("rand"),
            block: sizes
                .get(usize::from(!read))
                .or(sizes.first())
                .copied()
                .unwrap_or(4096),
            depth: o.number("iodepth", 1) as usize,
            jobs: o.number("numjobs", 1) as usize,
        }
    }

    /// The destbench workload of this shape: a block variant issues from one thread, so
    /// fio's numjobs above 1 has none.
    fn workload(&self) -> Option<Workload> {
        (self.jobs == 1).then_some(Workload::Block {
            direction: self.direction,
            pattern: if self.random {
                Pattern::Random
            } else {
                Pattern::Sequential
            },
            block: self.block as usize,
            depth: self.depth,
        })
    }

    /// The test and variant a job of this shape not exported by destbench is filed under.
    fn named(&self, workload: Option<&Workload>) -> (TestId, String) {
        let test = match (self.block == 4096, self.direction) {
            (true, Direction::Read) => TestId::FourKRead,
            (true, Direction::Write) => TestId::FourKWrite,
            (false, Direction::Read) => TestId::SeqRead,
            (false, Direction::Write) => TestId::SeqWrite,
        };
        let variant = workload.map_or_else(
            || {
                let pattern = if self.random { "RND" } else { "SEQ" };
                let size = size_label(self.block as usize);
                format!("{pattern}{size}-Q{}T{}", self.depth, self.jobs)
            },
            Workload::name,
        );
        (test, variant)
    }
}

/// The one repetition an fio side is: its rate, bytes, requests, time and the job's CPU.
fn repetition(job: &FioJob, side: &FioSide, bytes: u64, rate: f64) -> RepetitionRecord {
    let cpu_share = (job.usr_cpu + job.sys_cpu) / 100.0;
    RepetitionRecord {
        rate,
        bytes,
        ops: side.total_ios,
        elapsed_s: side.runtime / 1e3,
        cpu_s: cpu_share * job.job_runtime / 1e3,
        series_mb_s: Vec::new(),
        series_last_partial: false,
        passes: None,
    }
}

/// The result of one side of one job, or None when that side moved no data.
fn side_result(o: &Options<'_>, read: bool) -> Option<TestResult> {
    let side = if read { &o.job.read } else { &o.job.write };
    let bytes = side.io_bytes;
    if bytes == 0 {
        return None;
    }
    let shape = SideShape::of(o, read);
    let workload = shape.workload();
    let (test, variant) =
        exported_name(o, shape.direction).unwrap_or_else(|| shape.named(workload.as_ref()));
    let mut warnings = vec![Warning::new(
        WarningKind::Imported,
        format!(
            "imported from fio ({}): one run, no spread",
            o.job.name().unwrap_or("unnamed job")
        ),
    )];
    let method = method(o, read, &mut warnings);
    let engine = match o.get("ioengine") {
        Some("io_uring") => EngineKind::Uring,
        _ => EngineKind::Sync,
    };
    let rate = side.bw_bytes / 1e6;
    Some(TestResult {
        test,
        variant,
        workload,
        unit: Unit::MegabytesPerSecond,
        median: rate,
        min: rate,
        max: rate,
        mean: rate,
        cv: 0.0,
        samples: vec![rate],
        precision: None,
        precision_method: None,
        stopped: None,
        ops_per_s_median: side.iops,
        op_kind: OpKind::Io,
        latency_us: latency(side),
        method,
        engine,
        block_size_bytes: shape.block,
        queue_depth: shape.depth,
        series_interval_s: 0.0,
        threads: shape.jobs,
        file_set: None,
        repetitions: vec![repetition(o.job, side, bytes, rate)],
        warnings,
        details: None,
    })
}

/// What the jobs of one fio result gave: their results, the engines they named, their summed
/// run time, and the warnings (jobs that failed are left out with one).
struct Imported {
    results: Vec<TestResult>,
    engines: Vec<String>,
    duration_s: f64,
    warnings: Vec<Warning>,
}

fn import_jobs(jobs: &[&FioJob], global: &JobOptions, version: &str) -> Imported {
    let mut imported = Imported {
        results: Vec::new(),
        engines: Vec::new(),
        duration_s: 0.0,
        warnings: vec![Warning::new(
            WarningKind::Imported,
            format!(
                "imported from {version} JSON: its figures are fio's, each job measured once; latencies are fio's completion latencies (clat)"
            ),
        )],
    };
    for &job in jobs {
        let o = Options { job, global };
        // A job that failed measured nothing worth keeping.
        if job.error != 0 {
            imported.warnings.push(Warning::new(
                WarningKind::Failures,
                format!(
                    "fio job {} failed (error {}): left out",
                    job.name().unwrap_or("unnamed"),
                    job.error
                ),
            ));
            continue;
        }
        if let Some(e) = o.get("ioengine").map(str::to_string)
            && !imported.engines.contains(&e)
        {
            imported.engines.push(e);
        }
        imported.duration_s += job.job_runtime / 1e3;
        let sides = [true, false].into_iter().filter_map(|r| side_result(&o, r));
        imported.results.extend(sides);
    }
    imported
}

/// The run document of an fio JSON result; `Err` says in a few words what is wrong with it.
pub fn from_fio_json(text: &str, label: Option<String>) -> Result<RunDocument, String> {
    let doc = fio_document(text)?;
    let version = doc
        .version
        .as_deref()
        .ok_or("not fio JSON output: no \"fio version\" field")?;
    let jobs: Vec<&FioJob> = doc
        .jobs
        .as_ref()
        .ok_or("not fio JSON output: no \"jobs\" list")?
        .iter()
        .filter(|job| job.name() != Some(LAY_DOWN_JOB))
        .collect();
    let global = &doc.global;
    let imported = import_jobs(&jobs, global, version);
    if imported.results.is_empty() {
        return Err("the fio result has no job that read or wrote anything".into());
    }
    let first = Options {
        job: jobs[0],
        global,
    };
    let engine = if imported.engines.is_empty() {
        version.to_string()
    } else {
        format!("{version} {}", imported.engines.join(","))
    };
    Ok(RunDocument {
        schema: RUN_SCHEMA.into(),
        destbench_version: crate::version::VERSION.into(),
        destination: Destination {
            path: first.get("directory").unwrap_or_default().into(),
            ..Destination::default()
        },
        settings: RunSettings {
            runs: 1,
            file_size_bytes: first.number("size", 0),
            block_duration_s: jobs[0].job_runtime / 1e3,
            engine,
            label: label.or_else(|| Some(version.to_string())),
            imported_from: Some(version.to_string()),
            ..RunSettings::default()
        },
        started_unix_s: doc.timestamp,
        duration_s: imported.duration_s,
        results: imported.results,
        warnings: imported.warnings,
        ..RunDocument::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIO: &str = r#"{
      "fio version": "fio-3.33", "timestamp": 1700000000,
      "global options": { "directory": "/mnt/nas", "size": "16777216", "runtime": "500ms" },
      "jobs": [
        { "jobname": "lay-down", "job_runtime": 900,
          "job options": { "rw": "write", "bs": "1m", "direct": "1", "ioengine": "io_uring" },
          "read": { "io_bytes": 0 },
          "write": { "io_bytes": 16777216, "bw_bytes": 18641351, "iops": 17.7, "runtime": 900,
                     "total_ios": 16 } },
        { "jobname": "seq-read.SEQ1M-Q8T1", "job_runtime": 500, "usr_cpu": 1.0, "sys_cpu": 3.0,
          "job options": { "rw": "read", "bs": "1048576", "direct": "1", "ioengine": "io_uring",
                           "iodepth": "8" },
          "read": { "io_bytes": 52428800, "bw_bytes": 104857600, "iops": 100.0, "runtime": 500,
                    "total_ios": 50, "clat_ns": { "mean": 80000.0, "max": 200000,
                    "percentile": { "50.000000": 75776, "99.000000": 150528, "99.900000": 199680 } } },
          "write": { "io_bytes": 0, "bw_bytes": 0, "iops": 0.0, "runtime": 0, "total_ios": 0 } },
        { "jobname": "mine", "job_runtime": 1000,
          "job options": { "rw": "randwrite", "bs": "4k", "iodepth": "32", "numjobs": "2" },
          "read": { "io_bytes": 0 },
          "write": { "io_bytes": 4096000, "bw_bytes": 4096000, "iops": 1000.0, "runtime": 1000,
                     "total_ios": 1000 } }
      ]
    }"#;

    #[test]
    fn jobs_become_results_named_for_comparison() {
        let run = from_fio_json(FIO, None).unwrap();
        assert_eq!(run.settings.label.as_deref(), Some("fio-3.33"));
        assert_eq!(run.settings.imported_from.as_deref(), Some("fio-3.33"));
        assert_eq!(run.destination.path, std::path::PathBuf::from("/mnt/nas"));
        // The exported file's lay-down job is not a measurement.
        assert_eq!(run.results.len(), 2, "{:?}", run.results);
        let seq = &run.results[0];
        assert_eq!(
            (seq.test, seq.variant.as_str()),
            (TestId::SeqRead, "SEQ1M-Q8T1")
        );
        assert_eq!(
            (seq.method, seq.engine),
            (Method::Direct, EngineKind::Uring)
        );
        assert!((seq.median - 104.8576).abs() < 1e-9);
        assert_eq!(seq.latency_us.unwrap().p99, 150.528);
        assert!((seq.repetitions[0].cpu_s - 0.02).abs() < 1e-9);
        let rnd = &run.results[1];
        assert_eq!(
            (rnd.test, rnd.variant.as_str()),
            (TestId::FourKWrite, "RND4K-Q32T2")
        );
        assert_eq!((rnd.method, rnd.block_size_bytes), (Method::Fsync, 4096));
        assert!(
            rnd.warnings
                .iter()
                .any(|w| w.kind == WarningKind::PageCache)
        );
    }

    #[test]
    fn what_is_not_an_fio_result_is_refused_in_words() {
        // fio's own complaints ahead of the document are skipped.
        let noisy = format!("fio: pid=1, err=2/file:filesetup.c:805\n{FIO}");
        assert_eq!(from_fio_json(&noisy, None).unwrap().results.len(), 2);
        // A failed job is left out, and the run says so.
        let failed = FIO.replacen(
            "\"job_runtime\": 500,",
            "\"job_runtime\": 500, \"error\": 2,",
            1,
        );
        let run = from_fio_json(&failed, None).unwrap();
        assert_eq!(run.results.len(), 1);
        assert!(
            run.warnings
                .iter()
                .any(|w| w.message.contains("seq-read.SEQ1M-Q8T1 failed (error 2)")),
            "{:?}",
            run.warnings
        );
        assert!(
            from_fio_json("{", None)
                .unwrap_err()
                .contains("not fio JSON")
        );
        assert!(
            from_fio_json("{\"jobs\": []}", None)
                .unwrap_err()
                .contains("fio version")
        );
        // A field of the wrong type is refused in words, naming what was expected.
        let wrong = from_fio_json(r#"{"fio version": "fio-3.33", "jobs": {}}"#, None).unwrap_err();
        assert!(
            wrong.starts_with("not fio JSON output") && wrong.contains("expected a sequence"),
            "{wrong}"
        );
        let empty =
            r#"{"fio version": "fio-3.33", "jobs": [{"jobname": "x", "read": {"io_bytes": 0}}]}"#;
        assert!(from_fio_json(empty, None).unwrap_err().contains("no job"));
        assert_eq!(fio_size("4k"), Some(4096));
        assert_eq!(fio_size("1MiB"), Some(1 << 20));
        assert_eq!(fio_size("lots"), None);
    }
}
