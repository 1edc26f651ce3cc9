//! The answer in the user's terms, as data: how long a first backup of the user's data takes on
//! the destination, then a routine one, with each tool the run measured, and what a faster link
//! would change. `crate::answer` computes it from the run's own results; every report shows its
//! words first.

use serde::{Deserialize, Serialize};

/// A figure with its range: a time in seconds (the estimate's and the answer's) unless its
/// field names another unit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Range {
    pub low: f64,
    pub expected: f64,
    pub high: f64,
}

impl std::ops::Add for Range {
    type Output = Range;

    fn add(self, other: Range) -> Range {
        Range {
            low: self.low + other.low,
            expected: self.expected + other.expected,
            high: self.high + other.high,
        }
    }
}

impl Range {
    /// Every figure times `factor`.
    pub fn times(self, factor: f64) -> Range {
        Range {
            low: self.low * factor,
            expected: self.expected * factor,
            high: self.high * factor,
        }
    }
}

/// What the answer is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DataKind {
    /// The used bytes and files of the volume holding the home folder (Time Machine backs up
    /// the whole startup volume less its exclusions: its first-order size).
    HomeVolume,
    /// A folder: surveyed (`--data`), or the one the run copied as its file set (`--source`).
    Folder,
}

/// The user's data the times are for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct YourData {
    pub kind: DataKind,
    pub path: String,
    pub bytes: u64,
    /// None where the system does not count a volume's files cheaply (btrfs, Windows).
    pub files: Option<u64>,
    /// How fast it reads; None where it was not sampled.
    pub reads: Option<DataReads>,
}

/// How fast the user's data reads: a sample of its files read from a cold cache, fitted to a
/// cost per file and a rate for its bytes (`answer::your_data` measures it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DataReads {
    /// The folder sampled: the data's, or the home folder for the home volume.
    pub path: String,
    pub files_sampled: u64,
    pub bytes_sampled: u64,
    /// The sample's time, its walk included.
    pub sample_seconds: f64,
    /// Each file's own cost, in seconds, and its bytes' rate, in MB/s (10^6 bytes/s): the fit
    /// to all the reads, low to high the fits to resamples of them (the rate's low the slowest).
    pub per_file_s: Range,
    pub mb_s: Range,
    /// Reading all of the data (its bytes and files) at those costs, low to high as they are.
    pub seconds: Range,
    /// Whether every read reached the disk: its cached pages dropped first and checked gone.
    pub cold: bool,
    /// How the reads were made cold, or why they may have come from memory, in words.
    pub cache: String,
}

/// Which side a first backup waits on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Side {
    /// Reading the user's data.
    Source,
    /// Writing it here.
    Destination,
}

/// A backup tool the answer has times for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::Display)]
#[serde(rename_all = "kebab-case")]
pub enum AnswerTool {
    /// From the run's `tm-backup` replay of Time Machine's writes.
    #[strum(serialize = "Time Machine")]
    TimeMachine,
    /// From the run's own copies of file sets (one thread, the write cache on): a copy as cp
    /// makes it, file after file.
    #[strum(serialize = "a plain copy")]
    PlainCopy,
    /// From the run's copies of file sets with `rsync -a` itself.
    #[strum(serialize = "rsync")]
    Rsync,
}

/// What a routine backup after the first is counted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RoutineUnit {
    /// Time Machine's hourly backup.
    Hour,
    /// A copy tool's run after 1 GB (10^9 bytes) of the data changed.
    GigabyteChanged,
}

/// A backup after the first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Routine {
    pub seconds: Range,
    pub per: RoutineUnit,
    /// What it assumed, in words (the share of an hour's changes, throttling).
    pub assumed: String,
}

/// One tool's times for the user's data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolTimes {
    pub tool: AnswerTool,
    pub first_seconds: Range,
    /// The time of the bytes alone: the run had no per-file figure for the tool.
    pub bytes_only: bool,
    pub routine: Option<Routine>,
    /// The results the times rest on.
    pub basis: String,
}

/// The limiting link replaced by the next faster one the link table knows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WhatIf {
    /// The link that limits now (the link table's name).
    pub link: String,
    /// What replaces it, as a user would buy or plug it: "a USB 3 port".
    pub instead: String,
    /// The rate the data would then move at, at most, MB/s: the faster link's ceiling, or the
    /// next link of the chain's where that is lower.
    pub ceiling_mb_s: f64,
    /// What bounds `ceiling_mb_s`: the new link, or the chain's next link.
    pub bounded_by: String,
    /// The headline tool's first backup at that ceiling (the per-file costs as measured).
    pub first_seconds: f64,
}

/// A row of the "how long will it take" table: an amount of data and each tool's first backup.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerRow {
    /// "your data", "100 GB", "1 TB".
    pub label: String,
    pub bytes: u64,
    pub files: Option<u64>,
    /// One per tool of [`Answer::tools`], in order.
    pub seconds: Vec<Range>,
}

/// The destination's write cache as the run's sustained write met it (the run's first write
/// when a first backup of the data would write more than the run).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum WriteCache {
    /// The rate dropped after `bytes_before`: a first backup's bytes past them go at
    /// `after_mb_s`.
    Found {
        bytes_before: u64,
        before_mb_s: f64,
        after_mb_s: f64,
    },
    /// No drop in the `written_bytes` it wrote in `seconds` (`mb_s` at the end): a cache, if
    /// there is one, is larger.
    OutOfReach {
        written_bytes: u64,
        seconds: f64,
        mb_s: f64,
    },
}

/// The answer of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    pub data: YourData,
    /// The write cache the times allow for; None where the run did not write on to find one.
    #[serde(default)]
    pub cache: Option<WriteCache>,
    /// The platform's tool first (Time Machine where the replay ran), then the others.
    pub tools: Vec<ToolTimes>,
    pub what_if: Option<WhatIf>,
    /// Which side the headline tool's first backup waits on, where the data's reads were
    /// sampled.
    pub limited_by: Option<Side>,
    pub table: Vec<AnswerRow>,
    /// Which test would make the answer better, where the run lacks it.
    pub missing: Vec<String>,
    /// The answer in words, first sentence first: what every report shows above the rest.
    pub words: Vec<String>,
}
