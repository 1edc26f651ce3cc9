//! fio's JSON output (`fio --output-format=json`), as far as the import reads it: typed, each
//! field fio may leave out defaulted, so a document that is not fio's is refused by the parser in
//! words rather than read as zeros.

use std::collections::HashMap;

use serde::Deserialize;

/// A size as fio writes it in job options: bytes, or a number with k/m/g/t (powers of 1024, fio's
/// default `kb_base`), optionally followed by `i`/`b`.
pub(super) fn fio_size(text: &str) -> Option<u64> {
    let t = text.trim().to_ascii_lowercase();
    let t = t.trim_end_matches('b').trim_end_matches('i');
    let (digits, scale) = match t.char_indices().last()? {
        (i, 'k') => (&t[..i], 1u64 << 10),
        (i, 'm') => (&t[..i], 1 << 20),
        (i, 'g') => (&t[..i], 1 << 30),
        (i, 't') => (&t[..i], 1 << 40),
        _ => (t, 1),
    };
    digits.parse::<u64>().ok()?.checked_mul(scale)
}

/// The parts of fio's JSON output the import reads; fields fio leaves out read as zero or none.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct FioOutput {
    #[serde(rename = "fio version")]
    pub(super) version: Option<String>,
    pub(super) timestamp: u64,
    #[serde(rename = "global options")]
    pub(super) global: JobOptions,
    pub(super) jobs: Option<Vec<FioJob>>,
}

/// fio writes every option's value as text (`"iodepth": "8"`).
pub(super) type JobOptions = HashMap<String, String>;

/// One job of fio's output.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct FioJob {
    pub(super) jobname: Option<String>,
    /// fio's error number; 0 when the job ran.
    pub(super) error: i64,
    /// Milliseconds.
    pub(super) job_runtime: f64,
    /// Percent of one CPU.
    pub(super) usr_cpu: f64,
    pub(super) sys_cpu: f64,
    #[serde(rename = "job options")]
    pub(super) options: JobOptions,
    pub(super) read: FioSide,
    pub(super) write: FioSide,
}

/// One direction of one job.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct FioSide {
    pub(super) io_bytes: u64,
    pub(super) bw_bytes: f64,
    pub(super) iops: f64,
    /// Milliseconds.
    pub(super) runtime: f64,
    pub(super) total_ios: u64,
    pub(super) clat_ns: Option<FioClat>,
}

/// Completion latencies, in nanoseconds.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct FioClat {
    pub(super) mean: f64,
    pub(super) max: f64,
    /// Absent when the job turned percentiles off.
    pub(super) percentile: FioPercentiles,
}

/// The percentiles destbench keeps, under fio's names for them.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct FioPercentiles {
    #[serde(rename = "50.000000")]
    pub(super) p50: Option<f64>,
    #[serde(rename = "99.000000")]
    pub(super) p99: Option<f64>,
    #[serde(rename = "99.900000")]
    pub(super) p999: Option<f64>,
}

impl FioJob {
    pub(super) fn name(&self) -> Option<&str> {
        self.jobname.as_deref()
    }
}

/// One job's options: its own over the file's global ones.
pub(super) struct Options<'a> {
    pub(super) job: &'a FioJob,
    pub(super) global: &'a JobOptions,
}

impl Options<'_> {
    pub(super) fn get(&self, key: &str) -> Option<&str> {
        self.job
            .options
            .get(key)
            .or_else(|| self.global.get(key))
            .map(String::as_str)
    }

    pub(super) fn number(&self, key: &str, default: u64) -> u64 {
        self.get(key).and_then(fio_size).unwrap_or(default)
    }
}

/// The JSON document of fio's output, after the errors and warnings fio may write ahead of it
/// ("fio: pid=..., err="): the document starts at the first line that opens an object.
pub(super) fn fio_document(text: &str) -> Result<FioOutput, String> {
    let json = text
        .find("\n{")
        .filter(|_| !text.starts_with('{'))
        .map_or(text, |i| &text[i + 1..]);
    serde_json::from_str(json)
        .map_err(|e| format!("not fio JSON output (--output-format=json): {e}"))
}
