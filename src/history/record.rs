//! A stored run as the history commands read it back: the `destbench.run/1` document of the run,
//! deserialised leniently, plus what the store recorded around it (id, environment, identity).
//!
//! Leniency is the point: documents written by other versions of destbench carry fields this one
//! does not know (a `chain`, a `verdict`, file-set figures) or lack ones it does. Unknown fields
//! are ignored, missing ones take defaults, and the original document is kept verbatim so an
//! export loses nothing.

use serde::{Deserialize, Serialize};

/// Where and on what a run was made: collected by `history::environment` when the run is stored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Environment {
    pub host: Option<String>,
    pub kernel: Option<String>,
    pub destbench_version: String,
    /// The destination's filesystem type, UUID and backing device, where readable.
    pub fs_type: Option<String>,
    pub fs_uuid: Option<String>,
    pub device: Option<String>,
    pub device_model: Option<String>,
    pub device_serial: Option<String>,
}

/// One row of `destbench history`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HistoryEntry {
    pub id: i64,
    pub stored_unix_s: i64,
    pub started_unix_s: i64,
    pub label: Option<String>,
    pub destination: String,
    pub host: Option<String>,
    pub failures: i64,
    /// Sequential write / read medians (MB/s), when the run measured them.
    pub seq_write_mb_s: Option<f64>,
    pub seq_read_mb_s: Option<f64>,
    /// Which variant the headline figures are: `SEQ1M-Q8T1` when measured, else `20-100MB`.
    pub headline_variant: Option<String>,
}

/// A stored run, whole.
#[derive(Debug, Clone)]
pub struct RunRecord {
    pub id: i64,
    pub stored_unix_s: i64,
    pub environment: Environment,
    /// The document exactly as stored (for exports: nothing a newer version added is lost).
    pub document: serde_json::Value,
    /// The same document, read into the fields the history commands use.
    pub run: RunDocument,
}

impl RunRecord {
    /// The label, or "run ID" for unlabelled runs: what tables and charts call the run.
    pub fn name(&self) -> String {
        match &self.run.settings.label {
            Some(label) if !label.is_empty() => label.clone(),
            _ => format!("run {}", self.id),
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RunDocument {
    pub schema: String,
    pub destbench_version: String,
    pub destination: DestinationDoc,
    pub settings: SettingsDoc,
    pub started_unix_s: i64,
    pub duration_s: f64,
    pub results: Vec<ResultDoc>,
    pub failures: Vec<FailureDoc>,
    pub warnings: Vec<String>,
    /// The chain from the path to the wire (from the probe, when the run had one). Kept as JSON:
    /// the report reads the links it understands and shows the rest as text.
    pub chain: Option<serde_json::Value>,
    /// The run's verdict on the bottleneck (when the run had one).
    pub verdict: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct DestinationDoc {
    pub path: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SettingsDoc {
    pub profile: String,
    pub runs: u64,
    pub file_size_bytes: u64,
    pub block_duration_s: f64,
    pub engine: String,
    pub seed: u64,
    pub label: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ResultDoc {
    pub test: String,
    pub variant: String,
    pub unit: String,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    pub cv: f64,
    pub samples: Vec<f64>,
    pub ops_per_s_median: f64,
    pub op_kind: String,
    pub latency_us: Option<LatencyDoc>,
    pub method: String,
    pub engine: String,
    /// Copy threads, for the file-set tests (absent in documents without them).
    pub threads: Option<u32>,
    pub series_interval_s: f64,
    pub repetitions: Vec<RepetitionDoc>,
    pub warnings: Vec<String>,
}

impl ResultDoc {
    /// The repetition whose rate is closest to the median: the one whose time series is shown.
    pub fn median_repetition(&self) -> Option<&RepetitionDoc> {
        self.repetitions.iter().min_by(|a, b| {
            (a.rate - self.median)
                .abs()
                .total_cmp(&(b.rate - self.median).abs())
        })
    }
}

#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct LatencyDoc {
    pub p50: f64,
    pub p99: f64,
    pub p999: f64,
    pub mean: f64,
    pub max: f64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RepetitionDoc {
    pub rate: f64,
    pub elapsed_s: f64,
    pub series_mb_s: Vec<f64>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct FailureDoc {
    pub test: String,
    pub variant: String,
    pub error: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_fields_and_missing_fields_are_tolerated() {
        let doc: RunDocument = serde_json::from_value(serde_json::json!({
            "schema": "destbench.run/1",
            "destination": { "path": "/mnt" },
            "chain": { "links": [ { "name": "USB 2.0", "ceiling_mb_s": 35.0 } ] },
            "a_field_from_the_future": [1, 2, 3],
            "results": [ {
                "test": "files-copy", "variant": "small-4t-cache-on", "median": 12.5,
                "threads": 4, "files_per_s_median": 900.0, "samples": [12.0, 13.0]
            } ]
        }))
        .unwrap();
        assert_eq!(doc.destination.path, "/mnt");
        assert!(doc.chain.is_some());
        assert_eq!(doc.results[0].threads, Some(4));
        assert_eq!(doc.results[0].samples, vec![12.0, 13.0]);
        assert!(doc.results[0].latency_us.is_none() && doc.failures.is_empty());
    }
}
