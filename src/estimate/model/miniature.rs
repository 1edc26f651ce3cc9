//! The miniature's measure of the model: the source's own shape at a small scale, copied by the
//! tool beside the calibration sets (`estimate::miniature`), against what the fitted model says
//! of it. Where a real tree's files and directories interact in ways the sets do not show, the
//! model is off by the same factor for the miniature as for the tree it was made from, so the
//! tree's time beyond the copy's start is scaled by the measured ratio. Measured on the
//! destination, with the tool, for this shape; where the model is right the ratio is 1.

use serde::Serialize;

use super::{CopyMeasurement, Costs, Range, SHORTEST_MEASURE_S, max, min};

/// The model's time for the miniature, beyond the start, over its share of the tree's (by
/// files), must lie within this factor of 1: otherwise the miniature is not the tree's shape
/// (a tree of a few huge files keeps its small ones in small, not its bytes) and says nothing
/// of it.
const LIKENESS: f64 = 1.25;

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
pub(super) fn check(
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
    } else if min(&m.seconds) < SHORTEST_MEASURE_S {
        Some(format!(
            "its copies are too short to measure the model by (under {SHORTEST_MEASURE_S} s)"
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

impl MiniatureCheck {
    /// Itself where its ratio scales the tree's time: the miniature is the tree's shape and
    /// its copies long enough.
    pub(super) fn applied(&self) -> Option<&MiniatureCheck> {
        self.not_applied.is_none().then_some(self)
    }

    /// `range` with everything but the copy's start scaled: the expected time by the mean
    /// ratio, the interval's ends by the fastest and slowest copy's.
    pub(super) fn scale(&self, range: Range, start_s: f64) -> Range {
        let scale = |t: f64, r: f64| start_s + (t - start_s) * r;
        Range {
            low: scale(range.low, self.ratio_low),
            expected: scale(range.expected, self.ratio),
            high: scale(range.high, self.ratio_high),
        }
    }
}
