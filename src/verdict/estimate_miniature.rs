//! The miniature's measure of the model: the source's own shape at a small scale, copied by the
//! tool beside the calibration sets (`runner::miniature`), against what the fitted model says
//! of it. Where a real tree's files and directories interact in ways the sets do not show, the
//! model is off by the same factor for the miniature as for the tree it was made from, so the
//! tree's time beyond the copy's start is scaled by the measured ratio. Measured on the
//! destination, with the tool, for this shape; where the model is right the ratio is 1.

use serde::Serialize;

use super::{ClassEstimate, CopyMeasurement, Costs, Range, Shares, max, min};

/// The model's time for the miniature, beyond the start, over its share of the tree's (by
/// files), must lie within this factor of 1: otherwise the miniature is not the tree's shape
/// (a tree of a few huge files keeps its small ones in small, not its bytes) and says nothing
/// of it.
const LIKENESS: f64 = 1.25;
/// Copies shorter than this are not taken as a measure: a flush's few milliseconds swing them.
const MIN_SECONDS: f64 = 0.2;

/// The miniature's copies against the model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MiniatureCheck {
    pub dirs: u64,
    pub files: u64,
    pub bytes: u64,
    /// The model's time for the miniature, fitted to the other sets.
    pub model_seconds: f64,
    /// The miniature's copies.
    pub seconds: Vec<f64>,
    /// Measured over modelled, beyond the copy's start: the mean of the copies' ratios, which
    /// scales the tree's time; and the copies' extremes, which scale the interval's ends.
    pub ratio: f64,
    pub ratio_low: f64,
    pub ratio_high: f64,
    /// Why the ratio was not applied, where it was not.
    pub not_applied: Option<String>,
}

/// The miniature's ratio, or None where the model leaves nothing to scale (its time is all the
/// copy's start) or the copies took no time beyond the start. `tree_s` is the model's time
/// for the tree of `tree_files` files (symlinks and hard links included).
fn check(
    m: &CopyMeasurement,
    costs: &Costs,
    tree_s: f64,
    tree_files: u64,
) -> Option<MiniatureCheck> {
    let sizes = m.sizes.as_ref()?;
    let beyond = sizes.bytes_beyond(costs.hidden_bytes_per_file, (0, None));
    let model = costs
        .split(m.dirs, m.files, m.bytes, m.block_bytes, beyond)
        .total();
    let scaled = model - costs.start_s;
    if scaled <= 0.0 || m.seconds.is_empty() {
        return None;
    }
    let ratios: Vec<f64> = m
        .seconds
        .iter()
        .map(|s| (s - costs.start_s).max(0.0) / scaled)
        .collect();
    let ratio = ratios.iter().sum::<f64>() / ratios.len() as f64;
    let share = m.files as f64 / tree_files.max(1) as f64;
    let likeness = scaled / (share * (tree_s - costs.start_s));
    let not_applied = if !(1.0 / LIKENESS..=LIKENESS).contains(&likeness) {
        Some(format!(
            "not the tree's shape: its files are {:.0}% of the tree's, its modelled time {:.0}% of the tree's",
            100.0 * share,
            100.0 * share * likeness
        ))
    } else if min(&m.seconds) < MIN_SECONDS {
        Some(format!(
            "its copies are too short to measure the model by (under {MIN_SECONDS} s)"
        ))
    } else {
        None
    };
    (ratio > 0.0).then(|| MiniatureCheck {
        dirs: m.dirs,
        files: m.files,
        bytes: m.bytes,
        model_seconds: model,
        seconds: m.seconds.clone(),
        ratio,
        ratio_low: min(&ratios),
        ratio_high: max(&ratios),
        not_applied,
    })
}

/// Measures the model by the miniature `m` (of the tree of `files` files it was fitted to with
/// `costs`) and, where the miniature is the tree's shape and long enough, scales everything
/// but the copy's start by its ratio: the expected time by the mean, the interval's ends by
/// the fastest and slowest copy's.
pub(super) fn measure(
    m: Option<&CopyMeasurement>,
    costs: &Costs,
    files: u64,
    range: &mut Range,
    shares: &mut Shares,
    classes: &mut [ClassEstimate],
) -> Option<MiniatureCheck> {
    let check = check(m?, costs, range.expected, files)?;
    if check.not_applied.is_none() {
        apply(&check, costs.start_s, range, shares, classes);
    }
    Some(check)
}

fn apply(
    check: &MiniatureCheck,
    start_s: f64,
    range: &mut Range,
    shares: &mut Shares,
    classes: &mut [ClassEstimate],
) {
    let scale = |t: f64, r: f64| start_s + (t - start_s) * r;
    *range = Range {
        low: scale(range.low, check.ratio_low),
        expected: scale(range.expected, check.ratio),
        high: scale(range.high, check.ratio_high),
    };
    shares.bandwidth_s *= check.ratio;
    shares.per_file_s *= check.ratio;
    shares.directories_s *= check.ratio;
    for class in classes {
        class.expected_seconds *= check.ratio;
        class.rate_mb_s /= check.ratio;
        class.files_per_s /= check.ratio;
    }
}
