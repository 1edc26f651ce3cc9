//! Figures some tests have beyond their rate (sustained, throttled): in the run document as a
//! result's `details`, tagged by `kind`.

use serde::{Deserialize, Serialize};

/// Figures a test has beyond its rate: in the JSON as `details` (tagged by `kind`), and under the
/// terminal table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Details {
    Sustained(SustainedDetails),
    Throttled(ThrottledDetails),
}

/// What the sustained write found.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SustainedDetails {
    pub bytes_written: u64,
    pub seconds: f64,
    /// Why it stopped: `steady`, `time cap` or `size cap`.
    pub stopped: String,
    /// The rate at the end: the mean of the steady window (or of the part after the cliff, or
    /// of the last half when it never became steady).
    pub final_mb_s: f64,
    pub cliff: Option<CliffDetails>,
    pub series_interval_s: f64,
    /// MB/s per interval, complete intervals only.
    pub series_mb_s: Vec<f64>,
}

/// A drop in the write rate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CliffDetails {
    /// Bytes written before the rate dropped (a cache's size).
    pub bytes_before: u64,
    pub seconds_before: f64,
    pub before_mb_s: f64,
    pub after_mb_s: f64,
}

/// Rates of the two jobs of the throttled test, MB/s.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PairRates {
    pub write_mb_s: f64,
    pub read_mb_s: f64,
}

/// How much slower each job ran beside the other than alone, as a fraction (0.25 = 25% slower).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Slowdown {
    pub write: f64,
    pub read: f64,
}

/// What the throttled test found.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ThrottledDetails {
    /// The block device behind the destination and its I/O scheduler, where known.
    pub device: Option<String>,
    pub scheduler: Option<String>,
    /// Whether background priority can take effect here; when false, `note` says why and the
    /// figures only show that the priority made no difference.
    pub priority_effective: bool,
    pub note: String,
    pub alone: PairRates,
    pub normal: PairRates,
    pub background: PairRates,
    pub slowdown_normal: Slowdown,
    pub slowdown_background: Slowdown,
    /// Whether the figures show the idle class shielding the foreground read: None where the
    /// priority cannot take effect or the writer did not slow the reader at normal priority.
    pub idle_class_helped: Option<bool>,
    /// The test's conclusion in words, drawn from the figures above (`note` says only what the
    /// device allows).
    pub conclusion: String,
}
