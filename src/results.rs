//! Results as plain values: what the runner measured, with the summaries every report renders.
//! Reports compute nothing of their own; everything they show is here.

use std::path::PathBuf;
use std::time::Duration;

use crate::engine::EngineKind;
use crate::stats::{self, LatencyHistogram, LatencySummary, Summary, ThroughputSeries};
use crate::workload::{ProfileName, TestId};

/// The JSON schema id of a run document.
pub const RUN_SCHEMA: &str = "destbench.run/1";

/// How a figure was kept honest about the page cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Method {
    /// `O_DIRECT`, aligned buffers; writes end with `fdatasync` inside the timing.
    #[serde(rename = "direct")]
    Direct,
    /// Buffered writes; `fdatasync` inside the timing.
    #[serde(rename = "fsync")]
    Fsync,
    /// Buffered reads after `posix_fadvise(DONTNEED)`, checked with `mincore`.
    #[serde(rename = "evict")]
    Evict,
    /// Buffered reads after dropping the page cache (root).
    #[serde(rename = "drop-caches")]
    DropCaches,
    /// Buffered reads that could not be evicted: the figure is the page cache (memory) speed.
    #[serde(rename = "page-cache")]
    PageCache,
    /// The null engine: no I/O.
    #[serde(rename = "null")]
    Null,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Direct => "direct",
            Method::Fsync => "fsync",
            Method::Evict => "evict",
            Method::DropCaches => "drop-caches",
            Method::PageCache => "page-cache",
            Method::Null => "null",
        }
    }

    /// One line per method for the legend under the table.
    pub fn explain(self) -> &'static str {
        match self {
            Method::Direct => "O_DIRECT (no page cache); writes timed until fdatasync returns",
            Method::Fsync => {
                "buffered writes, timed until fdatasync returns (filesystem refused O_DIRECT)"
            }
            Method::Evict => {
                "buffered reads after evicting the file from the page cache (checked with mincore)"
            }
            Method::DropCaches => "buffered reads after dropping the page cache (root)",
            Method::PageCache => {
                "buffered reads that could NOT be evicted: memory speed, not the device"
            }
            Method::Null => "null engine: no I/O, fixed latencies (for testing)",
        }
    }
}

/// The unit of a result's figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Unit {
    #[serde(rename = "MB/s")]
    MegabytesPerSecond,
}

impl Unit {
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::MegabytesPerSecond => "MB/s",
        }
    }
}

/// One timed repetition of a test variant.
#[derive(Debug, Clone)]
pub struct Repetition {
    /// The figure: MB/s (for whole-file tests, the mean of the files' rates).
    pub rate: f64,
    pub bytes: u64,
    /// Requests completed (files, for the many-files test).
    pub ops: u64,
    pub elapsed: Duration,
    /// CPU time the whole process used during the repetition (user + system).
    pub cpu: Duration,
    pub series: ThroughputSeries,
}

impl Repetition {
    pub fn ops_per_s(&self) -> f64 {
        let s = self.elapsed.as_secs_f64();
        if s > 0.0 { self.ops as f64 / s } else { 0.0 }
    }
}

/// Everything measured for one variant of one test.
#[derive(Debug, Clone)]
pub struct TestResult {
    pub test: TestId,
    pub variant: String,
    pub unit: Unit,
    pub method: Method,
    pub engine: EngineKind,
    pub block_size: u64,
    pub queue_depth: usize,
    /// What an "op" is for IOPS: "io" (a request) or "file".
    pub op_kind: &'static str,
    pub repetitions: Vec<Repetition>,
    pub latency: LatencyHistogram,
    pub summary: Summary,
    pub ops_per_s: Summary,
    pub latency_us: Option<LatencySummary>,
    pub warnings: Vec<String>,
}

/// What the runner knows about one variant before summarising.
pub struct TestResultParts {
    pub test: TestId,
    pub variant: String,
    pub method: Method,
    pub engine: EngineKind,
    pub block_size: u64,
    pub queue_depth: usize,
    pub op_kind: &'static str,
    pub repetitions: Vec<Repetition>,
    pub latency: LatencyHistogram,
    pub warnings: Vec<String>,
}

impl TestResult {
    /// Summarises the repetitions and adds the spread and outlier warnings. None without
    /// repetitions.
    pub fn from_parts(parts: TestResultParts) -> Option<TestResult> {
        let rates: Vec<f64> = parts.repetitions.iter().map(|r| r.rate).collect();
        let iops: Vec<f64> = parts
            .repetitions
            .iter()
            .map(Repetition::ops_per_s)
            .collect();
        let summary = stats::summarize(&rates)?;
        let ops_per_s = stats::summarize(&iops)?;
        let mut warnings = parts.warnings;
        if summary.cv > stats::NOISY_CV {
            warnings.push(format!(
                "large spread: the repetitions vary by {:.0}% (coefficient of variation); the destination or this machine is noisy",
                summary.cv * 100.0
            ));
        }
        for index in stats::outliers(&rates) {
            warnings.push(format!(
                "repetition {} is an outlier: {:.2} MB/s against a median of {:.2} MB/s",
                index + 1,
                rates[index],
                summary.median
            ));
        }
        Some(TestResult {
            test: parts.test,
            variant: parts.variant,
            unit: Unit::MegabytesPerSecond,
            method: parts.method,
            engine: parts.engine,
            block_size: parts.block_size,
            queue_depth: parts.queue_depth,
            op_kind: parts.op_kind,
            latency_us: parts.latency.summary(),
            repetitions: parts.repetitions,
            latency: parts.latency,
            summary,
            ops_per_s,
            warnings,
        })
    }

    pub fn samples(&self) -> Vec<f64> {
        self.repetitions.iter().map(|r| r.rate).collect()
    }
}

/// A test variant that could not be measured.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TestFailure {
    pub test: TestId,
    pub variant: String,
    pub error: String,
}

/// The settings a run was made with, as recorded in its results.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RunSettings {
    pub profile: ProfileName,
    pub runs: usize,
    pub file_size_bytes: u64,
    pub block_duration_s: f64,
    pub engine: String,
    pub seed: u64,
    pub label: Option<String>,
}

/// How the destination was accessed.
#[derive(Debug, Clone, serde::Serialize)]
pub struct AccessInfo {
    /// Whether O_DIRECT was used.
    pub direct_io: bool,
    /// The filesystem keeps files in memory (tmpfs): no figure is a device's.
    pub memory_backed: bool,
    /// Why the method was chosen, in words.
    pub note: String,
}

/// A whole run.
#[derive(Debug, Clone)]
pub struct RunReport {
    pub destination: PathBuf,
    pub settings: RunSettings,
    pub access: AccessInfo,
    pub started_unix_s: u64,
    pub duration: Duration,
    pub results: Vec<TestResult>,
    pub failures: Vec<TestFailure>,
    pub warnings: Vec<String>,
    pub destbench_version: &'static str,
    /// The chain from the destination to the wire, probed before the run.
    pub chain: Option<crate::probe::Chain>,
    /// Which link holds the destination back, from the chain and the results.
    pub verdict: Option<crate::verdict::Verdict>,
}
