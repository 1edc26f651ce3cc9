//! Which of the model's terms, and which overlap, the measured copies determine: each copy one
//! equation, fitted with every combination the copies can tell apart, the best kept.

use super::CopyMeasurement;
use super::fit::{self, Sample};

/// The model's terms, in the order of [`features`].
pub(super) const DIRS: usize = 0;
pub(super) const FILES: usize = 1;
pub(super) const BYTES: usize = 2;
pub(super) const SLACK: usize = 3;
pub(super) const START: usize = 4;
/// Whole blocks (bytes and slack at one rate): the block device's data term.
pub(super) const BLOCKS: usize = 5;
pub(super) const TERMS: usize = 6;

/// The model's inputs for a copy. `beyond` is the data term: the bytes, or with an overlap the
/// bytes of each file beyond the first `hidden_bytes_per_file` (see [`super::Costs`]).
pub(super) fn features(
    dirs: u64,
    files: u64,
    bytes: u64,
    block_bytes: u64,
    beyond: f64,
) -> Vec<f64> {
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

/// One sample per repetition, or per measurement with its repetitions reduced by `pick`, with
/// `hidden` bytes of each file overlapped (None where a set's sizes are not known).
pub(super) fn samples(
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
pub(super) fn physical(c: &[f64]) -> bool {
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
pub(super) struct Fit {
    pub hidden: f64,
    pub terms: Vec<usize>,
    pub c: Vec<f64>,
    pub samples: Vec<Sample>,
}

/// The fit with no overlap, or with the overlap that fits the copies best where their file
/// sizes are known, whichever the copies favour once the overlap pays for being one more
/// parameter (Akaike's criterion over the relative residuals: with ten copies it must cut
/// their sum of squares by a fifth).
pub(super) fn best_fit(measurements: &[CopyMeasurement]) -> Option<Fit> {
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
