//! The run document (schema `destbench.run/2`, documented in docs/json.md): one serde type that
//! the runner produces, the verdict reads, every report renders, and the history stores and
//! loads. The JSON is this type serialised; reading it back is lenient (unknown fields ignored,
//! missing ones defaulted, parts of a newer version that this one cannot read left out, see
//! `lenient`), so documents of other versions load. Reports compute nothing of their own:
//! everything they show is here.

mod answer;
mod cluster;
mod details;
pub mod fio;
mod headline;
mod lenient;
mod priority;
mod result;
mod share;
mod stopping;
mod timing;
mod verdict;
mod warning;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use answer::{
    Answer, AnswerRow, AnswerTool, DataKind, DataReads, Range, Routine, RoutineUnit, Side,
    ToolTimes, WhatIf, WriteCache, YourData,
};
#[cfg(feature = "mpi")]
pub use cluster::ScalingPoint;
pub use cluster::{Aggregate, ClusterInfo};
#[cfg(any(feature = "mpi", test))]
pub use cluster::{AggregateRepetition, PerClient, RankRecord, RankWindow};
pub use details::{
    BandSizeFrom, CliffDetails, Details, PairRates, PlainCopy, ProgramStartDetails, Slowdown,
    SustainedDetails, SustainedStop, ThrottledDetails, TmBackupDetails, TmBesideReader,
    TmPhaseFigures,
};
pub use headline::repeats_until_precise;
pub use priority::{Blocker, PriorityEffect};
pub use result::{
    FileSetInfo, FileSizes, Method, OpKind, Repetition, RepetitionRecord, TestResult,
    TestResultParts, Unit, precision_of,
};
pub use share::{EXAMPLE_BYTES, EXAMPLE_FILES, Share, ShareLimit};
pub use stopping::{AdaptiveSettings, StopReason};
pub use timing::{Spent, TimeAccount, Untimed, UntimedLine};
pub use verdict::{CachedFigure, LinkRef, Verdict, VerdictKind, round_mb_s};
pub use warning::{Warning, WarningKind};

use crate::probe::{Chain, TimeMachineBackup, TimeMachineCheck};
use crate::units;
use crate::workload::{ProfileName, TM_SMALL_FILES, TM_SMALL_SIZE, TestId, known_workload};

/// The JSON schema id of a run document.
pub const RUN_SCHEMA: &str = "destbench.run/2";

/// A test variant that could not be measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestFailure {
    pub test: TestId,
    #[serde(default)]
    pub variant: String,
    #[serde(default)]
    pub error: String,
}

/// The settings a run was made with, as recorded in its results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunSettings {
    #[serde(deserialize_with = "profile_or_default")]
    pub profile: ProfileName,
    /// Repetitions of every variant: exactly this many, or at most this many under `adaptive`.
    pub runs: usize,
    /// The adaptive rule's settings when it decided the repetitions (no `--runs`); None when
    /// every variant ran exactly `runs` times (and in documents written before the rule).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adaptive: Option<AdaptiveSettings>,
    pub file_size_bytes: u64,
    pub block_duration_s: f64,
    /// The least every repetition was to last (`--min-time`).
    pub min_time_s: f64,
    pub engine: String,
    pub seed: u64,
    pub label: Option<String>,
    /// Set in runs that `import-fio` stored (fio's version): the figures are that tool's, and
    /// the profile and seed mean nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub imported_from: Option<String>,
}

impl Default for RunSettings {
    fn default() -> Self {
        RunSettings {
            profile: ProfileName::Backup,
            runs: 0,
            adaptive: None,
            file_size_bytes: 0,
            block_duration_s: 0.0,
            min_time_s: 0.0,
            engine: String::new(),
            seed: 0,
            label: None,
            imported_from: None,
        }
    }
}

/// A profile this version does not know reads as the default profile.
fn profile_or_default<'de, D: serde::Deserializer<'de>>(d: D) -> Result<ProfileName, D::Error> {
    lenient::option(d).map(|p| p.unwrap_or(ProfileName::Backup))
}

/// A document's results, each with its workload: a result written before results recorded it
/// gets the workload of the suite's variant of its name.
fn results_with_workloads<'de, D>(d: D) -> Result<Vec<TestResult>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let mut results: Vec<TestResult> = lenient::list(d)?;
    for r in results.iter_mut().filter(|r| r.workload.is_none()) {
        r.workload = known_workload(r.test, &r.variant);
    }
    Ok(results)
}

/// How the destination was accessed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AccessInfo {
    /// Whether O_DIRECT was used.
    pub direct_io: bool,
    /// The filesystem keeps files in memory (tmpfs): no figure is a device's.
    pub memory_backed: bool,
    /// Why the method was chosen, in words.
    pub note: String,
}

/// Where a run wrote.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Destination {
    /// The path as given (shown lossily when it is not UTF-8).
    #[serde(serialize_with = "display_path")]
    pub path: PathBuf,
    /// Time Machine's own speed checks of this destination's volume, from its unified log
    /// (macOS only; none elsewhere): beside `tm-check`, the figure no one here wrote.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub time_machine_checks: Vec<TimeMachineCheck>,
    /// Time Machine's own backups to this destination's volume, from its unified log (macOS
    /// only): the first-backup answer's time per item on this Mac comes from them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub time_machine_backups: Vec<TimeMachineBackup>,
}

fn display_path<S: serde::Serializer>(path: &Path, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&path.display().to_string())
}

/// A whole run: the run document.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunDocument {
    /// `RUN_SCHEMA` for the documents this version writes.
    pub schema: String,
    pub destbench_version: String,
    pub destination: Destination,
    pub settings: RunSettings,
    pub access: AccessInfo,
    pub started_unix_s: u64,
    pub duration_s: f64,
    #[serde(deserialize_with = "results_with_workloads")]
    pub results: Vec<TestResult>,
    #[serde(deserialize_with = "lenient::list")]
    pub failures: Vec<TestFailure>,
    /// Warnings about the whole run.
    pub warnings: Vec<Warning>,
    /// The `tm-check` results the way Time Machine's backupd logs them.
    pub time_machine_log: Vec<String>,
    /// Peak resident memory of the process at the end of the run.
    pub peak_rss_bytes: Option<u64>,
    /// The chain from the destination to the wire, probed before the run.
    #[serde(deserialize_with = "lenient::option")]
    pub chain: Option<Chain>,
    /// Which link holds the destination back, judged from the chain and the results.
    #[serde(deserialize_with = "lenient::option")]
    pub verdict: Option<Verdict>,
    /// On a network destination: the parts a share's time is made of, each figure with the
    /// result it came from (absent elsewhere, and in documents written before it).
    #[serde(
        deserialize_with = "lenient::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub share: Option<Share>,
    /// How long a backup of the user's data takes here, in the user's terms (absent where the
    /// run had no figure to answer with, and in documents written before it).
    #[serde(deserialize_with = "lenient::option")]
    pub answer: Option<Answer>,
    /// How the run spent its time against its budget's plan (absent in imported documents and
    /// in those written before it).
    #[serde(
        deserialize_with = "lenient::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub time: Option<TimeAccount>,
    /// Clients that measured at once (MPI ranks); absent for one client.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clients: Option<usize>,
    /// A run of several clients: who, when, and the figures across them.
    #[serde(
        deserialize_with = "lenient::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub cluster: Option<ClusterInfo>,
}

impl RunDocument {
    /// The document as JSON, pretty-printed, with a trailing newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("a run document serialises");
        text.push('\n');
        text
    }

    /// The warnings about the result at `index`: its own, then the verdict's "likely cached".
    pub fn result_warnings(&self, index: usize) -> Vec<Warning> {
        let own = self.results.get(index).map(|r| r.warnings.clone());
        let cached = self
            .verdict
            .as_ref()
            .and_then(|v| v.cached_result(index))
            .map(CachedFigure::warning);
        own.unwrap_or_default().into_iter().chain(cached).collect()
    }

    /// Every warning with what it concerns: the run's own (None), then each result's as
    /// "test variant", in the order of the results.
    pub fn labelled_warnings(&self) -> Vec<(Option<String>, Warning)> {
        let run = self.warnings.iter().map(|w| (None, w.clone()));
        let results = (0..self.results.len()).flat_map(|i| {
            let name = format!("{} {}", self.results[i].test, self.results[i].variant);
            self.result_warnings(i)
                .into_iter()
                .map(move |w| (Some(name.clone()), w))
        });
        run.chain(results).collect()
    }
}

/// The Time Machine log lines for a run's `tm-check` results, as backupd writes them. The rate
/// and the time of a line are those of one repetition (the median one), so the line adds up:
/// its bytes over its seconds are its rate, in backupd's units (a "4 KB" file is 4096 bytes, a
/// MB is 10^6 bytes).
pub fn time_machine_lines(destination: &Path, results: &[TestResult]) -> Vec<String> {
    let destination = destination.display();
    results
        .iter()
        .filter(|r| r.test == TestId::TmCheck)
        .filter_map(|r| {
            let rep = r.median_repetition()?;
            let (rate, seconds) = (units::mb_per_s(rep.bytes, rep.elapsed_s), rep.elapsed_s);
            Some(if r.op_kind == OpKind::File {
                format!(
                    "Concurrently wrote {TM_SMALL_FILES} {} KB files at {rate:.2} MB/s to \"{destination}\" in {seconds:.3} seconds",
                    TM_SMALL_SIZE / 1024,
                )
            } else {
                format!(
                    "Wrote 1 {} MB file at {rate:.2} MB/s to \"{destination}\" in {seconds:.3} seconds",
                    rep.bytes / 1_000_000
                )
            })
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests;
