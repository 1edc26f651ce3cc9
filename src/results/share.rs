//! A share's time in parts, as data: what `crate::verdict::share` read off a network
//! destination's run (the wire, the server's disks, a request's round trip, a file's cost), each
//! figure with the result it came from, carried in the run document beside the verdict. The
//! reports draw [`Share::time_for`]; they compute nothing else of their own.

use serde::{Deserialize, Serialize};

/// What holds a share back, as the verdict's module decides it (`verdict::share`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, strum::Display)]
#[serde(rename_all = "kebab-case")]
pub enum ShareLimit {
    /// The verdict is limited-by-link: the network carries what it can.
    #[strum(serialize = "the network")]
    Network,
    /// The verdict is server-storage: writes that must reach the server's disks are far slower
    /// than what crosses the network.
    #[strum(serialize = "the server's disks")]
    ServerDisks,
    /// None of the others: the server or the protocol (or, where a link's speed is unknown,
    /// that link).
    #[default]
    #[strum(serialize = "the server or the protocol")]
    ServerOrProtocol,
    /// A small file costs at least three times its bytes' time: its requests' waits, which no
    /// faster link removes.
    #[strum(serialize = "round trips")]
    RoundTrips,
}

/// A share's figures, each with the result it came from ("test variant"); None where the run
/// did not measure it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Share {
    /// The fastest large sequential read, MB/s: the server hands back a file it has just
    /// received, usually from its memory, so this is the wire and the protocol without the
    /// server's disks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wire_mb_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wire_by: Option<String>,
    /// The block write (SEQ1M-Q8T1), MB/s: one file overwritten, which the server may hold in
    /// its memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_write_mb_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_write_by: Option<String>,
    /// New files, each flushed (the whole-file transfers), MB/s: what reaches the server's
    /// disks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub durable_write_mb_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub durable_by: Option<String>,
    /// A request that moves no data (the faster median of meta rename and delete), ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_by: Option<String>,
    /// What one small file costs until durable, ms, and how that was measured (the result's
    /// name among the words).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_file_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_file_by: Option<String>,
    /// Those files' mean size, bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_file_bytes: Option<f64>,
    /// A file's time beyond its bytes' (at the judged write rate), counted in requests.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requests_per_file: Option<f64>,
    /// Whether SMB messages are signed, where the chain's probe knows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signing: Option<bool>,
    /// Whether SMB traffic is encrypted, where the chain's probe knows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encryption: Option<bool>,
    pub limit: ShareLimit,
}

/// Seconds of a share's time, in parts that add up to what [`Share::time_for`] draws.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ShareTime {
    /// The bytes at the wire's rate.
    pub wire_s: f64,
    /// What the bytes take beyond that at the durable write's rate: the server's disks.
    pub server_disks_s: f64,
    /// Each file's requests that move no data.
    pub round_trips_s: f64,
}

impl ShareTime {
    /// The three parts together.
    pub fn total_s(&self) -> f64 {
        self.wire_s + self.server_disks_s + self.round_trips_s
    }
}

/// What a share's time is drawn for where the run has no answer for the user's data.
pub const EXAMPLE_BYTES: u64 = 1_000_000_000;
/// The files of [`EXAMPLE_BYTES`].
pub const EXAMPLE_FILES: u64 = 1_000;

impl Share {
    /// `bytes` in `files` on this share, split into its parts for drawing: the bytes at the
    /// wire's rate, what the server's disks add to them (the durable write's time less the
    /// wire's, never below 0), and the files' round trips (requests per file times a
    /// request's time; 0 where either is unknown). It is a split of the measured figures to
    /// show where the time goes, not the answer's estimate, which models copies of whole file
    /// sets. Where the run read nothing back, the durable rate stands for the wire (no part is
    /// then the disks'); where it wrote no new files, the wire stands for the disks.
    pub fn time_for(&self, bytes: u64, files: u64) -> ShareTime {
        let seconds_at =
            |mb_s: Option<f64>| mb_s.filter(|r| *r > 0.0).map(|r| bytes as f64 / (r * 1e6));
        let wire = seconds_at(self.wire_mb_s.or(self.durable_write_mb_s)).unwrap_or(0.0);
        let durable = seconds_at(self.durable_write_mb_s).unwrap_or(wire);
        let round_trip_ms = match (self.requests_per_file, self.request_ms) {
            (Some(n), Some(ms)) => n * ms,
            _ => 0.0,
        };
        ShareTime {
            wire_s: wire,
            server_disks_s: (durable - wire).max(0.0),
            round_trips_s: files as f64 * round_trip_ms / 1e3,
        }
    }
}
