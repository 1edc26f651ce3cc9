//! How long a first full backup of a tree will take on a destination: a cost model fitted to
//! measured copies of calibration sets, applied to the tree's shape. Pure code, tested with
//! exact numbers.
//!
//! # The model
//!
//! Copying a tree costs, for the tool that copies it (see `workload::Tool`):
//!
//! ```text
//! time = dirs × per_dir_s + files × per_file_s + bytes / bandwidth + slack / slack_bandwidth
//! ```
//!
//! `per_dir_s` is a directory's mkdir, its metadata set after its contents and, on a share,
//! its round trips; `per_file_s` a file's create, open, close (the flush of a share), its mode,
//! owner and times after the data, and the tool's own steps (rsync's rename); symlinks and the names
//! a tool makes as hard links count as files without data. A file's data costs its bytes at the bandwidth plus the *slack*, the rest
//! of its last 4 KiB block, at a rate of its own: a block device writes whole blocks, a share
//! sends only the bytes, and the fit tells which (a 100 B file costs nearly what a 4 KiB one
//! does on a disk, far less over a link). So a file's cost is a function of its size, not one
//! constant per class. A byte of slack never costs more than a byte of data (at most the block
//! is written whole): a fit that says otherwise has mistaken per-file costs for slack (seen on
//! an sshfs share, slack at 0.9 MB/s beside data at 11.9 MB/s, 2.3x the real `cp` time), and
//! the model is then fitted with slack tied to the data rate (whole blocks) or free.
//!
//! Each measured copy is one equation. The calibration sets of `estimate --to` (directories
//! only, sub-block files, whole-block files, large files; `runner::calibration`) separate the
//! four; stored runs (`--run`) have only the file sets of `files-copy` and give the per-file
//! cost and the bandwidth. The least-squares fit is weighted by 1/time² (every copy counts by
//! its relative error) over every repetition; a term the samples cannot determine, or that
//! comes out negative, is left out (the per-file cost and the bandwidth never are: with sets
//! of one mean size only the estimate refuses rather than guess).
//!
//! The interval: the fits to each set's fastest and slowest copy, widened to at least twice
//! the fit's relative residual (RMS over all repetitions) either side. The source's miniature
//! is not fitted to: it measures the model for the tree's shape (`estimate_miniature.rs`).

use serde::Serialize;

use crate::results::RunReport;
use crate::runner::calibration::MINIATURE;
use crate::tree::scan::SizeHistogram;
pub use crate::verdict::fit::Range;
use crate::verdict::fit::{self, Sample};
use crate::verdict::source::SourceSide;
use crate::workload::TestId;

/// How many relative residuals (RMS) the interval extends at least, either side.
pub const RESIDUALS: f64 = 2.0;

/// Where one destination's measurements came from.
#[derive(Debug, Clone, Serialize)]
pub struct Origin {
    pub destination: String,
    /// The stored run, for `--run`.
    pub run_id: Option<i64>,
    /// Measured by this command (`--to`).
    pub measured_now: bool,
}

/// One destination's estimate, or why there is none.
pub struct DestinationEstimate {
    pub origin: Origin,
    /// The tool estimated for (`cp`, `rsync`, `parallel:N`).
    pub tool: String,
    pub measurements: Vec<CopyMeasurement>,
    pub estimate: Result<Estimate, String>,
}

/// The write-cache-on copies with `threads` threads of a run: the inputs of the model, from a
/// stored run. Its file sets are files in one directory level, with no slack recorded.
pub fn copy_measurements(run: &RunReport, threads: usize) -> Vec<CopyMeasurement> {
    let wanted = format!("-{threads}t-cache-on");
    run.results
        .iter()
        .filter(|r| r.test == TestId::FilesCopy && r.threads == threads)
        .filter(|r| r.variant.ends_with(&wanted))
        .filter_map(|r| {
            let set = r.file_set.as_ref()?;
            Some(CopyMeasurement {
                variant: r.variant.clone(),
                dirs: 0,
                files: set.files,
                bytes: set.bytes,
                block_bytes: set.bytes,
                sizes: None,
                // A repetition may have copied the set several times to last --min-time.
                seconds: r
                    .repetitions
                    .iter()
                    .map(|rep| rep.elapsed_s / rep.passes.unwrap_or(1).max(1) as f64)
                    .collect(),
            })
        })
        .collect()
}

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

/// The model's terms, in the order of [`Costs::vector`].
const DIRS: usize = 0;
const FILES: usize = 1;
const BYTES: usize = 2;
const SLACK: usize = 3;
const START: usize = 4;
/// Whole blocks (bytes and slack at one rate): the block device's data term.
const BLOCKS: usize = 5;
const TERMS: usize = 6;

/// The model's inputs for a copy. `beyond` is the data term: the bytes, or with an overlap the
/// bytes of each file beyond the first `hidden_bytes_per_file` (see [`Costs`]).
fn features(dirs: u64, files: u64, bytes: u64, block_bytes: u64, beyond: f64) -> Vec<f64> {
    vec![
        dirs as f64,
        files as f64,
        beyond,
        block_bytes.saturating_sub(bytes) as f64,
        // Every copy starts once: the tool's start (rsync's file list) and the final flush.
        1.0,
        block_bytes.max(bytes) as f64,
    ]
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

/// Why no estimate could be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EstimateError {
    #[error("no copies to estimate from ({what})")]
    NoMeasurements { what: String },
    #[error(
        "the copies cover file sets of one mean file size only ({sets}): the per-file cost and the bandwidth cannot be told apart; measure two sets of different file sizes (e.g. --sets small,large)"
    )]
    OneShape { sets: String },
    #[error("the copies contradict the model (a negative cost): {detail}")]
    Inconsistent { detail: String },
}

/// One sample per repetition, or per measurement with its repetitions reduced by `pick`, with
/// `hidden` bytes of each file overlapped (None where a set's sizes are not known).
fn samples(
    measurements: &[CopyMeasurement],
    pick: Option<fn(&[f64]) -> f64>,
    hidden: f64,
) -> Option<Vec<Sample>> {
    let mut out = Vec::new();
    for m in measurements.iter().filter(|m| !m.seconds.is_empty()) {
        let beyond = if hidden == 0.0 {
            m.bytes as f64
        } else {
            m.sizes.as_ref()?.bytes_beyond(hidden, (0, None))
        };
        let x = features(m.dirs, m.files, m.bytes, m.block_bytes, beyond);
        match pick {
            Some(pick) => out.push(Sample {
                x,
                seconds: pick(&m.seconds),
            }),
            None => out.extend(m.seconds.iter().map(|&seconds| Sample {
                x: x.clone(),
                seconds,
            })),
        }
    }
    Some(out)
}

/// Whether fitted coefficients can be costs: none negative, data that costs something, and a
/// byte of slack no dearer than a byte of data.
fn physical(c: &[f64]) -> bool {
    c.iter().all(|&v| v >= 0.0) && c[BYTES] + c[BLOCKS] > 0.0 && c[SLACK] <= c[BYTES] * (1.0 + 1e-9)
}

/// Fits with the files term, one way of costing the data (bytes only, bytes and slack apart, or
/// whole blocks) and whichever of the directory and start terms the samples determine with
/// physical costs; the best fit (least residual) of those. With `hidden` bytes overlapped
/// (a share), the data is its bytes only, and the hidden bytes may not take longer than the
/// fixed cost they hide behind.
fn fit_terms(samples: &[Sample], hidden: f64) -> Option<(Vec<usize>, Vec<f64>)> {
    let all: [&[usize]; 3] = [&[BYTES], &[BYTES, SLACK], &[BLOCKS]];
    let data = if hidden > 0.0 { &all[..1] } else { &all[..] };
    data.iter()
        .flat_map(|data| {
            (0..4u8).map(move |optional| {
                let mut terms = vec![FILES];
                terms.extend_from_slice(data);
                for (bit, term) in [DIRS, START].into_iter().enumerate() {
                    if optional & (1 << bit) != 0 {
                        terms.push(term);
                    }
                }
                terms
            })
        })
        .filter_map(|terms| {
            let c = fit::solve(samples, &terms, TERMS)?;
            let hides = hidden * c[BYTES] <= c[FILES];
            (physical(&c) && hides).then_some((terms, c))
        })
        .min_by(|a, b| {
            fit::relative_rms(&a.1, samples).total_cmp(&fit::relative_rms(&b.1, samples))
        })
}

/// The overlaps tried: from 1 KiB to 1 MiB, a quarter of an octave apart.
fn overlaps() -> impl Iterator<Item = f64> {
    (40..=80).map(|k| 2f64.powf(k as f64 / 4.0))
}

/// A fit of the model: its overlap, terms and coefficients, and the samples it was fitted to.
struct Fit {
    hidden: f64,
    terms: Vec<usize>,
    c: Vec<f64>,
    samples: Vec<Sample>,
}

/// The fit with no overlap, or with the overlap that fits the copies best where their file
/// sizes are known, whichever the copies favour once the overlap pays for being one more
/// parameter (Akaike's criterion over the relative residuals: with ten copies it must cut
/// their sum of squares by a fifth).
fn best_fit(measurements: &[CopyMeasurement]) -> Option<Fit> {
    let score = |c: &[f64], samples: &[Sample], parameters: usize| {
        let n = samples.len() as f64;
        let rss = fit::relative_rms(c, samples).powi(2) * n;
        n * (rss.max(1e-300) / n).ln() + 2.0 * parameters as f64
    };
    let all = samples(measurements, None, 0.0)?;
    let additive = fit_terms(&all, 0.0).map(|(terms, c)| {
        let s = score(&c, &all, terms.len());
        (s, 0.0, terms, c, all)
    });
    overlaps()
        .filter_map(|hidden| {
            let all = samples(measurements, None, hidden)?;
            let (terms, c) = fit_terms(&all, hidden)?;
            Some((score(&c, &all, terms.len() + 1), hidden, terms, c, all))
        })
        .chain(additive)
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, hidden, terms, c, samples)| Fit {
            hidden,
            terms,
            c,
            samples,
        })
}

fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

fn max(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

/// Fits the model to `measurements` and predicts the tree. `what` names the measurements in
/// the error when there are none.
pub fn estimate(
    tree: TreeShape<'_>,
    copies: &[CopyMeasurement],
    what: &str,
) -> Result<Estimate, EstimateError> {
    // The miniature measures the fitted model; it is not fitted to.
    let (miniature, fitted): (Vec<_>, Vec<_>) =
        copies.iter().cloned().partition(|m| m.variant == MINIATURE);
    let measurements = &fitted[..];
    if measurements.iter().all(|m| m.seconds.is_empty()) {
        return Err(EstimateError::NoMeasurements { what: what.into() });
    }
    let mean_sizes: Vec<f64> = measurements
        .iter()
        .filter(|m| m.files > 0)
        .map(|m| m.bytes as f64 / m.files as f64)
        .collect();
    // Sets whose mean file sizes are within 2x of each other barely separate the two costs.
    if mean_sizes.is_empty() || max(&mean_sizes) < 2.0 * min(&mean_sizes) {
        let sets: Vec<&str> = measurements.iter().map(|m| m.variant.as_str()).collect();
        return Err(EstimateError::OneShape {
            sets: sets.join(", "),
        });
    }
    let inconsistent = || EstimateError::Inconsistent {
        detail: measurements
            .iter()
            .map(|m| format!("{} ({:?} s)", m.variant, m.seconds))
            .collect::<Vec<_>>()
            .join(", "),
    };
    let Fit {
        hidden,
        terms,
        c,
        samples: all,
    } = best_fit(measurements).ok_or_else(inconsistent)?;
    let residual = fit::relative_rms(&c, &all);
    // The fastest and slowest copies with the same terms; a term they cannot keep positive
    // falls back to the main fit's.
    let bound = |pick: fn(&[f64]) -> f64| {
        samples(measurements, Some(pick), hidden)
            .and_then(|s| fit::solve(&s, &terms, TERMS))
            .filter(|v| physical(v))
            .unwrap_or_else(|| c.clone())
    };
    let (c_fast, c_slow) = (bound(min), bound(max));
    let h = tree.histogram;
    let files = h.total_files() + tree.symlinks + tree.hard_links;
    let block_bytes = h.total_block_bytes();
    let beyond = h.bytes_beyond(hidden, (0, None));
    let x = features(tree.dirs, files, h.total_bytes(), block_bytes, beyond);
    let expected = fit::predict(&c, &x);
    let mut predicted_seconds = Range {
        low: fit::predict(&c_fast, &x).min(expected * (1.0 - RESIDUALS * residual)),
        expected,
        high: fit::predict(&c_slow, &x).max(expected * (1.0 + RESIDUALS * residual)),
    };
    let costs = Costs::from_vector(&c, hidden);
    let mut shares = costs.split(tree.dirs, files, h.total_bytes(), block_bytes, beyond);
    let mut classes: Vec<ClassEstimate> = (0..h.files.len())
        .filter(|&c| h.files[c] > 0)
        .map(|class| {
            let (low_bytes, high_bytes) = SizeHistogram::class_range(class);
            let (f, b) = (h.files[class], h.bytes[class]);
            let beyond = h.bytes_beyond(hidden, (low_bytes, high_bytes));
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
        .collect();
    let miniature = miniature::measure(
        miniature.first(),
        &costs,
        files,
        &mut predicted_seconds,
        &mut shares,
        &mut classes,
    );
    Ok(Estimate {
        predicted_seconds,
        costs,
        costs_fast: Costs::from_vector(&c_fast, hidden),
        costs_slow: Costs::from_vector(&c_slow, hidden),
        residual,
        advice: advice(&shares, &costs)
            .into_iter()
            .chain(unsteady(copies))
            .collect(),
        shares,
        classes,
        miniature,
        source: None,
    })
}

#[path = "estimate_advice.rs"]
mod advice;
use advice::{advice, unsteady};

#[path = "estimate_miniature.rs"]
mod miniature;
pub use miniature::MiniatureCheck;

#[cfg(test)]
#[path = "estimate_tests.rs"]
mod tests;
