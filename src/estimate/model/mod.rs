//! How long a first full backup of a tree will take on a destination: a cost model fitted to
//! measured copies of calibration sets, applied to the tree's shape. Pure code, tested with
//! exact numbers.
//!
//! # The model
//!
//! Copying a tree costs, for the tool that copies it (see `workload::Tool`):
//!
//! ```text
//! time = start + dirs × per_dir_s + files × per_file_s + bytes / bandwidth + slack / slack_bandwidth
//! ```
//!
//! `start` is the tool's start and the final flush, once per copy; `per_dir_s` is a
//! directory's mkdir, its metadata set after its contents and, on a share, its round trips;
//! `per_file_s` a file's create, open, close (the flush of a share), its mode, owner and times
//! after the data, and the tool's own steps (rsync's rename); symlinks and the names a tool
//! makes as hard links count as files without data. A file's data costs its bytes at the
//! bandwidth plus the *slack*, the rest of its last 4 KiB block, at a rate of its own: a block
//! device writes whole blocks, a share sends only the bytes, and the fit tells which (a 100 B
//! file costs nearly what a 4 KiB one does on a disk, far less over a link). So a file's cost
//! is a function of its size, not one constant per class. A byte of slack never costs more
//! than a byte of data (at most the block is written whole): a fit that says otherwise has
//! mistaken per-file costs for slack, and the model is then fitted with slack tied to the
//! data rate (whole blocks) or free.
//!
//! Each measured copy is one equation. The calibration sets of `estimate --to` (see
//! `estimate::sets`) separate the five terms; stored runs (`--run`) have only the file sets
//! of `files-copy` and give the per-file cost and the bandwidth. The least-squares fit
//! (`fit`) is weighted by 1/time² (every copy counts by its relative error) over every
//! repetition; a term the samples cannot determine, or that comes out negative, is left out
//! (`terms`; the per-file cost and the bandwidth never are: with sets of one mean size only
//! the estimate refuses rather than guess).
//!
//! The interval: the fits to each set's fastest and slowest copy, widened to at least twice
//! the fit's relative residual (RMS over all repetitions) and the model's own error on real
//! trees (`MODEL_ERROR`) either side. The source's miniature
//! is not fitted to: it measures the model for the tree's shape (`miniature`). The source's
//! own side, where it was measured, adds to the destination's (`source`; its read costs: `reads`).

mod advice;
pub mod backup;
mod fit;
mod miniature;
mod reads;
mod source;
mod terms;
pub mod time_machine;

use serde::Serialize;

/// A prediction with its range (the run document's type: the answer carries it too).
pub use crate::results::Range;
use crate::tree::size_classes::SizeHistogram;
pub use miniature::MiniatureCheck;
pub use reads::{CLASS_BOUNDS, ReadCosts, class_of};
pub use source::{SourceCost, SourceSide};
use terms::{BLOCKS, BYTES, DIRS, FILES, Fit, SLACK, START, TERMS, features};

/// How many relative residuals (RMS) the interval extends at least, either side.
pub const RESIDUALS: f64 = 2.0;

/// The model's own error on real trees, which the calibration's copies cannot show however
/// steady they are: estimate over the real `cp -a` or `rsync -a` from 0.91 to 1.09, over
/// restic's, borg's and rclone's from 0.94 to 1.13, in docs/estimate.md's trials. The
/// interval extends at least this far either side.
pub const MODEL_ERROR: f64 = 0.10;

/// The name of the set that is the source's miniature: measured against the model, never
/// fitted to.
pub const MINIATURE: &str = "miniature";

/// Copies shorter than this are too short to measure by: a flush's few milliseconds swing
/// them (to call a set's copies unsteady, to judge the fit by, or to scale the tree by the
/// miniature's).
const SHORTEST_MEASURE_S: f64 = 0.2;

/// The repetitions of one measured copy (one set, one tool).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CopyMeasurement {
    /// The set (and variant) name, e.g. `tiny` or `small-1t-cache-on`.
    pub variant: String,
    pub dirs: u64,
    pub files: u64,
    pub bytes: u64,
    /// The files' sizes rounded up to whole 4 KiB blocks.
    pub block_bytes: u64,
    /// Seconds of each repetition.
    pub seconds: Vec<f64>,
    /// Every file's size, where known (the calibration sets; not a stored run's file sets):
    /// what the overlap of per-file costs with the bytes is fitted to.
    #[serde(skip)]
    pub sizes: Option<SizeHistogram>,
}

/// What the model needs of a tree.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TreeShape<'a> {
    pub histogram: &'a SizeHistogram,
    /// Directories below the root (the root exists at the destination already).
    pub dirs: u64,
    pub symlinks: u64,
    /// Names made as hard links to a file copied already: a file's cost without its data.
    pub hard_links: u64,
}

/// The fitted costs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Costs {
    pub per_dir_s: f64,
    pub per_file_s: f64,
    /// Bytes per second of the bandwidth term (10^6 = 1 MB/s).
    pub bytes_per_s: f64,
    /// Seconds per byte of slack (the unused rest of each file's last block); 0 where the
    /// destination sends only the bytes.
    pub slack_s_per_byte: f64,
    /// Seconds a copy costs once, whatever its size: the tool's start, the final flush.
    pub start_s: f64,
    /// The overlap: each file's first bytes that cross while its fixed costs are paid, so cost
    /// no time of their own. 0 where the two add up (a disk: the data waits in the page cache
    /// for one flush at the end); on a share that pipelines (sshfs: cp does a file's round
    /// trips while the previous files' bytes are still on the link), a file of this size or
    /// less costs its fixed cost alone. Fitted where the sets' file sizes are known.
    pub hidden_bytes_per_file: f64,
}

impl Costs {
    fn from_vector(c: &[f64], hidden_bytes_per_file: f64) -> Costs {
        Costs {
            per_dir_s: c[DIRS],
            per_file_s: c[FILES],
            bytes_per_s: 1.0 / (c[BYTES] + c[BLOCKS]),
            slack_s_per_byte: c[SLACK] + c[BLOCKS],
            start_s: c[START],
            hidden_bytes_per_file,
        }
    }

    /// Seconds to copy `files` files of `bytes` (`block_bytes` rounded up to blocks) in
    /// `dirs` directories, with no overlap (see [`Costs::hidden_bytes_per_file`]).
    #[cfg(test)]
    pub fn seconds(&self, dirs: u64, files: u64, bytes: u64, block_bytes: u64) -> f64 {
        self.split(dirs, files, bytes, block_bytes, bytes as f64)
            .total()
    }

    /// `beyond`: the files' bytes beyond the first `hidden_bytes_per_file` of each.
    fn split(&self, dirs: u64, files: u64, bytes: u64, block_bytes: u64, beyond: f64) -> Shares {
        Shares {
            start_s: self.start_s,
            directories_s: dirs as f64 * self.per_dir_s,
            per_file_s: files as f64 * self.per_file_s,
            bandwidth_s: beyond / self.bytes_per_s
                + block_bytes.saturating_sub(bytes) as f64 * self.slack_s_per_byte,
        }
    }
}

/// Where the expected time goes, in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Shares {
    pub bandwidth_s: f64,
    pub per_file_s: f64,
    pub directories_s: f64,
    /// The copy's start and final flush, once.
    pub start_s: f64,
}

impl Shares {
    pub fn total(&self) -> f64 {
        self.bandwidth_s + self.per_file_s + self.directories_s + self.start_s
    }

    /// Everything but the copy's start scaled by `ratio`.
    fn scaled(self, ratio: f64) -> Shares {
        Shares {
            bandwidth_s: self.bandwidth_s * ratio,
            per_file_s: self.per_file_s * ratio,
            directories_s: self.directories_s * ratio,
            start_s: self.start_s,
        }
    }
}

/// One size class of the tree, with what the model says of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassEstimate {
    pub low_bytes: u64,
    /// None for the open last class.
    pub high_bytes: Option<u64>,
    pub files: u64,
    pub bytes: u64,
    pub expected_seconds: f64,
    /// Bytes over the class's expected time, MB/s.
    pub rate_mb_s: f64,
    pub files_per_s: f64,
}

impl ClassEstimate {
    /// The class taking `ratio` times as long.
    fn scaled(self, ratio: f64) -> ClassEstimate {
        ClassEstimate {
            expected_seconds: self.expected_seconds * ratio,
            rate_mb_s: self.rate_mb_s / ratio,
            files_per_s: self.files_per_s / ratio,
            ..self
        }
    }
}

/// The estimate for one destination.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    pub predicted_seconds: Range,
    /// The costs fitted to every repetition, and to each set's fastest and slowest.
    pub costs: Costs,
    pub costs_fast: Costs,
    pub costs_slow: Costs,
    /// The RMS of the fit's relative residuals over the repetitions.
    pub residual: f64,
    pub shares: Shares,
    pub classes: Vec<ClassEstimate>,
    pub advice: Vec<String>,
    /// The miniature's copies against the model, which scaled the time (`--to` only).
    pub miniature: Option<MiniatureCheck>,
    /// The source's side, with `--measure-source`.
    pub source: Option<SourceSide>,
}

/// Why no estimate could be made from a destination's copies.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitError {
    #[error("no copies to estimate from ({what})")]
    NoMeasurements { what: String },
    #[error(
        "the copies cover file sets of one mean file size only ({sets}): the per-file cost and the bandwidth cannot be told apart; measure two sets of different file sizes (e.g. {sets_flag} small,large)",
        sets_flag = crate::settings::defs::SETS
    )]
    OneShape { sets: String },
    #[error("the copies contradict the model (a negative cost): {detail}")]
    Inconsistent { detail: String },
}

fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

fn max(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

/// Refuses copies that cannot separate the per-file cost from the bandwidth. `what` names the
/// measurements in the error when there are none.
fn check_copies(measurements: &[CopyMeasurement], what: &str) -> Result<(), FitError> {
    if measurements.iter().all(|m| m.seconds.is_empty()) {
        return Err(FitError::NoMeasurements { what: what.into() });
    }
    let mean_sizes: Vec<f64> = measurements
        .iter()
        .filter(|m| m.files > 0)
        .map(|m| m.bytes as f64 / m.files as f64)
        .collect();
    // Sets whose mean file sizes are within 2x of each other barely separate the two costs.
    if mean_sizes.is_empty() || max(&mean_sizes) < 2.0 * min(&mean_sizes) {
        let sets: Vec<&str> = measurements.iter().map(|m| m.variant.as_str()).collect();
        return Err(FitError::OneShape {
            sets: sets.join(", "),
        });
    }
    Ok(())
}

fn inconsistent(measurements: &[CopyMeasurement]) -> FitError {
    FitError::Inconsistent {
        detail: measurements
            .iter()
            .map(|m| format!("{} ({:?} s)", m.variant, m.seconds))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// The coefficients fitted with `fit`'s terms to each set's fastest and slowest copies; a fit
/// they cannot keep physical falls back to the main fit's.
fn bounds(measurements: &[CopyMeasurement], fit: &Fit) -> (Vec<f64>, Vec<f64>) {
    let bound = |pick: fn(&[f64]) -> f64| {
        terms::samples(measurements, Some(pick), fit.hidden)
            .and_then(|s| fit::solve(&s, &fit.terms, TERMS))
            .filter(|v| terms::physical(v))
            .unwrap_or_else(|| fit.c.clone())
    };
    (bound(min), bound(max))
}

/// The tree's size classes, each with its time at `costs` (with `hidden` bytes of each file
/// overlapped) and its rates.
fn classes(h: &SizeHistogram, costs: &Costs) -> Vec<ClassEstimate> {
    (0..h.files.len())
        .filter(|&c| h.files[c] > 0)
        .map(|class| {
            let (low_bytes, high_bytes) = SizeHistogram::class_range(class);
            let (f, b) = (h.files[class], h.bytes[class]);
            let beyond = h.bytes_beyond(costs.hidden_bytes_per_file, (low_bytes, high_bytes));
            // The copy's start is the whole tree's, not a class's.
            let seconds =
                costs.split(0, f, b, h.block_bytes[class], beyond).total() - costs.start_s;
            let per_s = |amount: f64| if seconds > 0.0 { amount / seconds } else { 0.0 };
            ClassEstimate {
                low_bytes,
                high_bytes,
                files: f,
                bytes: b,
                expected_seconds: seconds,
                rate_mb_s: per_s(b as f64) / 1e6,
                files_per_s: per_s(f as f64),
            }
        })
        .collect()
}

/// The model fitted to measured copies: the fit to every repetition, the fits to each set's
/// fastest and slowest copies, and the fit's relative residual.
pub struct Fitted {
    fit: Fit,
    fast: Vec<f64>,
    slow: Vec<f64>,
    residual: f64,
}

/// Fits the model to `copies` (the miniature is not among them). `what` names the copies in
/// the error when there are none.
pub fn fit(copies: &[CopyMeasurement], what: &str) -> Result<Fitted, FitError> {
    check_copies(copies, what)?;
    let fit = terms::best_fit(copies).ok_or_else(|| inconsistent(copies))?;
    // A copy of a few milliseconds (the empty set's) is off by half its time when one round
    // trip more or less lands in it: that is the clock, not the model (residual 0.13 against
    // 0.02 over the share, for copies of 2.3 against 4.4 ms), so only copies long enough to
    // measure by say how well the model fits, where there are any.
    let long: Vec<fit::Sample> = fit
        .samples
        .iter()
        .filter(|s| s.seconds >= SHORTEST_MEASURE_S)
        .cloned()
        .collect();
    let judged = if long.is_empty() { &fit.samples } else { &long };
    let residual = fit::relative_rms(&fit.c, judged);
    let (fast, slow) = bounds(copies, &fit);
    Ok(Fitted {
        fit,
        fast,
        slow,
        residual,
    })
}

/// The range around `expected` from the fastest and slowest fits' times (`fast`, `slow`),
/// widened to [`RESIDUALS`] relative residuals and at least [`MODEL_ERROR`] either side: the
/// copy tools' and the backup programs' alike.
fn widened(expected: f64, (fast, slow): (f64, f64), residual: f64) -> Range {
    let error = (RESIDUALS * residual).max(MODEL_ERROR);
    Range {
        low: fast.min(expected * (1.0 - error)),
        expected,
        high: slow.max(expected * (1.0 + error)),
    }
}

impl Fitted {
    /// The time for the model's inputs `x` (see `terms::features`), with its range: the fastest
    /// and slowest sets' fits, widened to [`RESIDUALS`] relative residuals and at least
    /// [`MODEL_ERROR`] either side.
    fn range(&self, x: &[f64]) -> Range {
        widened(
            fit::predict(&self.fit.c, x),
            (fit::predict(&self.fast, x), fit::predict(&self.slow, x)),
            self.residual,
        )
    }

    /// The time to copy `files` files of `bytes` in all, where nothing more of their shape is
    /// known (a volume's totals): each file taken at the mean size for the overlap, no slack
    /// and no directories priced.
    pub fn seconds_for_totals(&self, files: u64, bytes: u64) -> Range {
        let beyond = (bytes as f64 - files as f64 * self.fit.hidden).max(0.0);
        self.range(&features(0, files, bytes, bytes, beyond))
    }

    /// The fitted costs.
    pub fn costs(&self) -> Costs {
        Costs::from_vector(&self.fit.c, self.fit.hidden)
    }
}

/// Fits the model to the copies and predicts the tree, scaled by the source's miniature where
/// it was copied and is the tree's shape, and with the source's reading added where it was
/// measured. `what` names the copies in the error when there are none.
pub fn estimate(
    tree: TreeShape<'_>,
    copies: &[CopyMeasurement],
    what: &str,
    source: Option<&SourceCost>,
) -> Result<Estimate, FitError> {
    let (miniature, fitted): (Vec<_>, Vec<_>) =
        copies.iter().cloned().partition(|m| m.variant == MINIATURE);
    let model = fit(&fitted, what)?;
    let h = tree.histogram;
    let files = h.total_files() + tree.symlinks + tree.hard_links;
    let (bytes, block_bytes) = (h.total_bytes(), h.total_block_bytes());
    let beyond = h.bytes_beyond(model.fit.hidden, (0, None));
    let modelled = model.range(&features(tree.dirs, files, bytes, block_bytes, beyond));
    let expected = modelled.expected;
    let (fit, residual) = (&model.fit, model.residual);
    let costs = Costs::from_vector(&fit.c, fit.hidden);
    let miniature = miniature
        .first()
        .and_then(|m| miniature::check(m, &costs, expected, files));
    // Where the miniature is the tree's shape and long enough, everything but the copy's
    // start scales by its ratio (by 1.0, exactly, where it is not applied).
    let applied = miniature.as_ref().and_then(MiniatureCheck::applied);
    let ratio = applied.map_or(1.0, |m| m.ratio);
    let destination = applied.map_or(modelled, |m| m.scale(modelled, costs.start_s));
    let shares = costs
        .split(tree.dirs, files, bytes, block_bytes, beyond)
        .scaled(ratio);
    let classes = classes(h, &costs)
        .into_iter()
        .map(|c| c.scaled(ratio))
        .collect();
    let source = source.map(|s| s.against(destination.expected));
    Ok(Estimate {
        predicted_seconds: source.map_or(destination, |s| s.added_to(destination)),
        costs,
        costs_fast: Costs::from_vector(&model.fast, fit.hidden),
        costs_slow: Costs::from_vector(&model.slow, fit.hidden),
        residual,
        advice: advice::advice(&shares, &costs)
            .into_iter()
            .chain(advice::unsteady(copies))
            .chain(source.map(|s| s.advice(destination.expected)))
            .collect(),
        shares,
        classes,
        miniature,
        source,
    })
}

#[cfg(test)]
mod tests;
