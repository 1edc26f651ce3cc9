//! A stored run as the history commands read it back: its run document (the one type of
//! `crate::results`, read leniently so documents of other versions load), plus what the store
//! recorded around it (id, environment, identity). The document is also kept verbatim, so an
//! export loses nothing a newer version added.

use serde::{Deserialize, Serialize};

use crate::results::RunDocument;

/// A destination's filesystem, where readable: its type and UUID tell runs on one path but
/// different filesystems (a disk swapped under one mount point) apart. Flattened where it is
/// used, so documents and rows keep `fs_type` and `fs_uuid` as fields of their own.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Filesystem {
    pub fs_type: Option<String>,
    pub fs_uuid: Option<String>,
}

/// Where and on what a run was made: taken by `history::environment` from the run's chain when
/// the run is stored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Environment {
    pub host: Option<String>,
    pub kernel: Option<String>,
    pub destbench_version: String,
    /// The destination's filesystem and backing device, where readable.
    #[serde(flatten)]
    pub filesystem: Filesystem,
    pub device: Option<String>,
    pub device_model: Option<String>,
    pub device_serial: Option<String>,
}

/// One row of `destbench history`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryEntry {
    pub id: i64,
    pub stored_unix_s: i64,
    pub started_unix_s: i64,
    pub label: Option<String>,
    pub destination: String,
    #[serde(flatten)]
    pub filesystem: Filesystem,
    pub host: Option<String>,
    pub failures: i64,
    #[serde(flatten)]
    pub sequential: Sequential,
}

/// The large sequential medians (MB/s) of a listed run, when it measured them: the results the
/// verdict judges (`verdict::judged_in`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Sequential {
    pub seq_write_mb_s: Option<f64>,
    pub seq_read_mb_s: Option<f64>,
    /// Which variant the figures are (the write's, else the read's).
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
    /// The same document, read.
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
