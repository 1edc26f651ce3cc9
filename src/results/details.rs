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
    TmBackup(TmBackupDetails),
    ProgramStart(ProgramStartDetails),
}

/// What a program's update (`rsync -a` again onto its own copy) spends on starting and ending
/// rather than walking: the program run onto an empty tree, timed as a pass is, apart from the
/// passes. A pass's time less `start_s` is its walk over the set's files.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ProgramStartDetails {
    /// The median of `samples_s`.
    pub start_s: f64,
    pub samples_s: Vec<f64>,
}

impl ProgramStartDetails {
    /// Seconds a pass of `files` files at `files_per_s` (the update's figure, start-up included)
    /// spends walking each file; None where the start-up took the whole pass.
    pub fn walk_per_file_s(&self, files: u64, files_per_s: f64) -> Option<f64> {
        if files == 0 || files_per_s <= 0.0 {
            return None;
        }
        let walk = files as f64 / files_per_s - self.start_s;
        (walk > 0.0).then(|| walk / files as f64)
    }
}

/// What the sustained write found.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SustainedDetails {
    pub bytes_written: u64,
    pub seconds: f64,
    /// Why it stopped; None in a document whose reason this version does not know.
    #[serde(deserialize_with = "super::lenient::option")]
    pub stopped: Option<SustainedStop>,
    /// The rate at the end: the mean of the steady window (or of the part after the cliff, or
    /// of the last half when it never became steady).
    pub final_mb_s: f64,
    pub cliff: Option<CliffDetails>,
    pub series_interval_s: f64,
    /// MB/s per interval, complete intervals only.
    pub series_mb_s: Vec<f64>,
}

/// Why the sustained write stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SustainedStop {
    /// Its rate had become steady.
    #[serde(rename = "steady")]
    Steady,
    /// It had written for `--time` (or the profile's time).
    #[serde(rename = "time cap")]
    TimeCap,
    /// It had written `--size` (or the profile's size, or what the free space allows).
    #[serde(rename = "size cap")]
    SizeCap,
}

/// What the write stopped at, in words ("stopped at the …").
impl std::fmt::Display for SustainedStop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SustainedStop::Steady => "steady state",
            SustainedStop::TimeCap => "time cap",
            SustainedStop::SizeCap => "size cap",
        })
    }
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
    /// Seconds the writes stalled after the drop, where they did (fewer requests completed
    /// than two queues hold, each one's bytes spread over its long wait): `after_mb_s` is then
    /// the whole write's rate, its flush included, which what sits behind the cache kept up
    /// with (a server writing its memory out to its disks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stalled_s: Option<f64>,
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

/// Where tm-backup's band size came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BandSizeFrom {
    /// Time Machine's rule: the destination filesystem's size / 4096, 8 MiB to 8 GiB.
    #[default]
    DestinationSize,
    /// `--band-size`.
    Flag,
}

/// One phase of the Time Machine replay.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TmPhaseFigures {
    /// From the first band write to the last barrier's full flush.
    pub seconds: f64,
    /// Rounds, each ended by one barrier (Info.plist's data and full flush).
    pub barriers: u64,
    /// Every byte written to bands, `mapped/` and Info.plist.
    pub bytes_written: u64,
    /// The 256 KiB user-data writes' bytes.
    pub user_bytes: u64,
    pub writes: u64,
    /// `fdatasync` calls (bands, `mapped/`, Info.plist).
    pub data_flushes: u64,
    /// The median time from one barrier to the next.
    pub median_round_s: f64,
}

/// A plain copy of the replay's user data to the same destination, right after it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PlainCopy {
    pub files: u64,
    pub file_bytes: u64,
    pub bytes: u64,
    /// From the first create to the last file's `fdatasync`.
    pub seconds: f64,
    pub mb_s: f64,
}

/// What the Time Machine replay measured (the result's rate is `user_data_mb_s`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TmBackupDetails {
    pub band_size_bytes: u64,
    pub band_size_from: BandSizeFrom,
    /// The destination filesystem's size, where it was read.
    pub destination_size_bytes: Option<u64>,
    pub first: TmPhaseFigures,
    pub incremental: TmPhaseFigures,
    /// The first backup's user data over its time, MB/s.
    pub user_data_mb_s: f64,
    /// Barriers of both phases over their time.
    pub barriers_per_s: f64,
    /// The system call of the data flush (`fdatasync`) and of the full one (`fsync` on Linux,
    /// `F_FULLFSYNC` on macOS; `none` under the null engine).
    pub data_flush: String,
    pub full_flush: String,
    pub copy: PlainCopy,
    /// `user_data_mb_s` over the plain copy's MB/s: Time Machine's share of a plain copy.
    pub ratio_to_copy: Option<f64>,
    /// The most band files open at once.
    pub max_open_bands: usize,
    /// The replay again at background I/O priority beside a foreground reader (real I/O only).
    pub beside_reader: Option<TmBesideReader>,
}

/// tm-backup's replay at background I/O priority beside a foreground reader of another file,
/// as backupd runs beside the user's work.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TmBesideReader {
    /// Whether background priority can take effect here (the throttled test's judgement; the
    /// replay's writes are buffered); when false, `note` says why.
    pub priority_effective: bool,
    pub note: String,
    /// The reader alone (the block duration) and beside the replay, MB/s.
    pub reader_alone_mb_s: f64,
    pub reader_beside_mb_s: f64,
    /// The replay's user data beside the reader, MB/s (alone: `user_data_mb_s`).
    pub replay_beside_mb_s: f64,
    /// 1 - beside / alone, each side.
    pub reader_slowdown: f64,
    pub replay_slowdown: f64,
    /// The most of the reader's file left in the page cache after its eviction (`mincore`): above
    /// 0.05 the reader's figures are partly the cache's.
    pub reader_resident: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The document keeps the words it always wrote, and a reason this version does not know
    /// leaves the rest of the details readable.
    #[test]
    fn a_sustained_stop_reads_back_and_an_unknown_one_reads_as_none() {
        for (stop, word) in [
            (SustainedStop::Steady, "steady"),
            (SustainedStop::TimeCap, "time cap"),
            (SustainedStop::SizeCap, "size cap"),
        ] {
            let json = serde_json::to_value(stop).unwrap();
            assert_eq!(json, word);
            assert_eq!(serde_json::from_value::<SustainedStop>(json).unwrap(), stop);
        }
        let newer = r#"{"kind": "sustained", "stopped": "thermal", "final_mb_s": 80.5}"#;
        let Details::Sustained(d) = serde_json::from_str(newer).unwrap() else {
            panic!("sustained details");
        };
        assert_eq!((d.stopped, d.final_mb_s), (None, 80.5));
    }

    /// A pass's walk is its time less the start-up; a start-up as long as the pass leaves none.
    #[test]
    fn a_program_pass_walks_in_what_its_start_up_leaves() {
        let start = ProgramStartDetails {
            start_s: 0.03,
            samples_s: vec![0.03],
        };
        // 1,000 files at 20,000 files/s: 50 ms a pass, 20 ms of it the walk.
        let per_file = start.walk_per_file_s(1000, 20_000.0).unwrap();
        assert!((per_file - 20e-6).abs() < 1e-12, "{per_file}");
        assert_eq!(start.walk_per_file_s(1000, 40_000.0), None);
        assert_eq!(start.walk_per_file_s(0, 20_000.0), None);
    }
}
