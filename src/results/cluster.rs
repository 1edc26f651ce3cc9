//! A run of several clients at once (MPI ranks, `cluster`): who took part, when each repetition
//! of each client ran on a common clock, and the figures across clients. The run document's
//! `results` then hold the aggregate figures (all bytes of all clients over the window from the
//! earliest start to the latest end, as IOR defines it), so the verdict, the reports, the history
//! and `compare` read a many-client run as they read a single one.

use serde::{Deserialize, Serialize};

use super::lenient;
use super::result::{TestResult, Unit};
use crate::workload::TestId;

/// Who took part and how the clients' clocks and work were coordinated.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ClusterInfo {
    /// Clients (MPI ranks) that measured.
    pub clients: usize,
    /// The hosts the clients ran on, each once, in rank order.
    pub hosts: Vec<String>,
    /// The MPI library, as it names itself.
    pub mpi_library: String,
    /// The largest clock offset of a client to rank 0 measured at start-up, in seconds (its
    /// magnitude); every time below is already corrected by its client's offset.
    pub worst_clock_offset_s: f64,
    /// `--stonewall`: every client stopped its work when the first finished.
    pub stonewall: bool,
    /// Every client: its offset, scratch directory, repetitions' windows and own results.
    #[serde(deserialize_with = "lenient::list")]
    pub ranks: Vec<RankRecord>,
    /// For every result: the aggregate per repetition and the per-client figures.
    #[serde(deserialize_with = "lenient::list")]
    pub aggregates: Vec<Aggregate>,
    /// `--clients 1,2,4`: the same tests with the first k clients, one point per k.
    #[serde(deserialize_with = "lenient::list")]
    pub scaling: Vec<ScalingPoint>,
}

/// One client.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RankRecord {
    pub rank: usize,
    pub host: String,
    /// This client's clock minus rank 0's, measured at start-up, in seconds.
    pub clock_offset_s: f64,
    /// Its scratch directory on the destination (removed).
    pub scratch: String,
    /// Every repetition it ran, in order, on rank 0's clock.
    pub windows: Vec<RankWindow>,
    /// Its own results, as a single-client run would report them.
    #[serde(deserialize_with = "lenient::list")]
    pub results: Vec<TestResult>,
}

/// When one client's repetition ran and what it moved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankWindow {
    pub test: TestId,
    #[serde(default)]
    pub variant: String,
    #[serde(default)]
    pub repetition: usize,
    /// Start and end of the timed work in seconds since the Unix epoch, on rank 0's clock (the
    /// start is the end less the timed time).
    #[serde(default)]
    pub start_unix_s: f64,
    #[serde(default)]
    pub end_unix_s: f64,
    #[serde(default)]
    pub bytes: u64,
    #[serde(default)]
    pub ops: u64,
    /// This client's own figure for the repetition, in the result's unit.
    #[serde(default)]
    pub rate: f64,
    /// Stopped early because another client had finished (`--stonewall`).
    #[serde(default)]
    pub stonewalled: bool,
}

/// One result across the clients.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Aggregate {
    pub test: TestId,
    #[serde(default)]
    pub variant: String,
    /// The unit of `repetitions`, `aggregate` and `per_client`: the result's own.
    #[serde(default)]
    pub unit: Unit,
    /// One per repetition: all clients' bytes (or operations) over latest end − earliest start.
    #[serde(default)]
    pub repetitions: Vec<AggregateRepetition>,
    /// The median of the repetitions' aggregates (the result's figure).
    #[serde(default)]
    pub aggregate: f64,
    /// Each client's median figure, summarised across the clients.
    #[serde(default)]
    pub per_client: PerClient,
}

/// One repetition of all clients together.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AggregateRepetition {
    pub bytes: u64,
    pub ops: u64,
    /// The earliest start and the latest end among the clients.
    pub start_unix_s: f64,
    pub end_unix_s: f64,
    /// `bytes` (or `ops`, for files/s and ops/s) over `end − start`.
    pub rate: f64,
    /// Clients stopped early by `--stonewall`.
    pub stonewalled: usize,
}

/// The clients' own figures (each client's median over its repetitions).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PerClient {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// (max − min) ÷ median: how unevenly the clients were served.
    pub spread: f64,
}

/// One number of clients of a `--clients` scaling run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ScalingPoint {
    pub clients: usize,
    #[serde(deserialize_with = "lenient::list")]
    pub aggregates: Vec<Aggregate>,
}
