//! What a source costs to read, from a sample of its files read from a cold cache
//! (`estimate::source_sample`): a cost per file and a rate for its bytes, with their spread.
//! Pure.
//!
//! The fit goes through each size class's typical read (the median bytes and the median
//! seconds of its reads: a read's time grows with its size), not through every read: a disk's
//! first reads can come from its cache or its burst allowance (a token bucket), and a few such
//! reads of larger files would otherwise pass for its rate. Neither cost is ever negative:
//! where the line through the typical reads says one is, the other alone is fitted (least
//! squares kept to non-negative costs), so a small change in the reads moves the costs a
//! little, never from one reading of them to another. The spread: the fits to resamples of the
//! reads, drawn in runs of consecutive reads.

use super::Range;
use super::fit::{self, Sample};

/// The size classes' upper bounds (bytes) the sample is drawn by and the fit reads by; the last
/// class holds the files above them.
pub const CLASS_BOUNDS: [u64; 5] = [4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20];

/// The fewest reads of a class whose typical read the fit takes.
const CLASS_READS: usize = 5;

/// The rate given to bytes that add no time the fit could see (each file's own cost hides
/// them): faster than any disk reads, so they cost next to nothing and the rate stays a number.
const FASTEST: f64 = 20e9;

/// How many resamples of the reads the spread is drawn from.
const RESAMPLES: usize = 200;
/// The runs of consecutive reads a resample is drawn from: reads made in the same moment share
/// the disk's and the machine's state (its other work, a burst allowance), so the spread draws
/// whole runs, not single reads, to show how the costs moved over the sample.
const RUNS: usize = 10;
/// The share of the resamples' fits left out at each end of the spread.
const TAIL: f64 = 0.05;

/// The class of a file (or a read) of `bytes`.
pub fn class_of(bytes: u64) -> usize {
    CLASS_BOUNDS.iter().take_while(|b| bytes >= **b).count()
}

/// Fits the source's costs to the sampled reads (bytes, seconds): (per-file seconds, bytes per
/// second); None without a read that took time. Where no two classes have their typical read
/// (sizes too alike to tell the two costs apart), all of the time is bandwidth.
pub fn fit_reads(reads: &[(u64, f64)]) -> Option<(f64, f64)> {
    let bytes: u64 = reads.iter().map(|r| r.0).sum();
    let seconds: f64 = reads.iter().map(|r| r.1).sum();
    if seconds <= 0.0 {
        return None;
    }
    let typical: Vec<Sample> = (0..=CLASS_BOUNDS.len())
        .filter_map(|class| {
            let of_class: Vec<&(u64, f64)> =
                reads.iter().filter(|r| class_of(r.0) == class).collect();
            (of_class.len() >= CLASS_READS).then(|| Sample {
                x: vec![1.0, median(of_class.iter().map(|r| r.0 as f64))],
                seconds: median(of_class.iter().map(|r| r.1)),
            })
        })
        .collect();
    let costs = match fit::solve(&typical, &[0, 1], 2) {
        Some(c) if c[0] >= 0.0 && c[1] > 0.0 => Some((c[0], (1.0 / c[1]).min(FASTEST))),
        // Larger reads no slower: each file's own cost alone.
        Some(c) if c[1] <= 0.0 => fit::solve(&typical, &[0], 2).map(|c| (c[0], FASTEST)),
        // A negative cost per file: the bytes alone.
        Some(_) => fit::solve(&typical, &[1], 2).map(|c| (0.0, 1.0 / c[1])),
        None => None,
    };
    Some(costs.unwrap_or((0.0, bytes.max(1) as f64 / seconds)))
}

fn median(values: impl Iterator<Item = f64>) -> f64 {
    crate::stats::median(&values.collect::<Vec<f64>>())
}

/// The source's read costs fitted to all the sampled reads, and to resamples of them (runs of
/// consecutive reads drawn with replacement, the same draws each time) for the spread: low to high, the 5th to 95th
/// percentile of the resamples' figures.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadCosts {
    /// (per-file seconds, bytes per second), as [`fit_reads`] gives them.
    fit: (f64, f64),
    refits: Vec<(f64, f64)>,
}

impl ReadCosts {
    /// The costs fitted to the sampled `reads` (bytes, seconds), in the order they were read;
    /// None as for [`fit_reads`].
    pub fn of(reads: &[(u64, f64)]) -> Option<ReadCosts> {
        let fit = fit_reads(reads)?;
        let runs: Vec<&[(u64, f64)]> = reads.chunks(reads.len().div_ceil(RUNS)).collect();
        let mut rng = fastrand::Rng::with_seed(0x7265_6164);
        let refits = (0..RESAMPLES)
            .filter_map(|_| {
                let drawn: Vec<(u64, f64)> = runs
                    .iter()
                    .flat_map(|_| runs[rng.usize(..runs.len())].iter().copied())
                    .collect();
                fit_reads(&drawn)
            })
            .collect();
        Some(ReadCosts { fit, refits })
    }

    /// Each file's own cost, seconds.
    pub fn per_file_s(&self) -> Range {
        self.spread(|(per_file_s, _)| per_file_s)
    }

    /// The bytes' rate, bytes per second (its low the slowest).
    pub fn bytes_per_s(&self) -> Range {
        self.spread(|(_, bytes_per_s)| bytes_per_s)
    }

    /// Seconds to read `files` files of `bytes` in all.
    pub fn seconds(&self, files: u64, bytes: u64) -> Range {
        self.spread(|(per_file_s, bytes_per_s)| {
            files as f64 * per_file_s + bytes as f64 / bytes_per_s
        })
    }

    /// `figure` of the fit, with the [`TAIL`]'s percentiles of the resamples' either side
    /// (never past it).
    fn spread(&self, figure: impl Fn((f64, f64)) -> f64) -> Range {
        let expected = figure(self.fit);
        let mut refits: Vec<f64> = self.refits.iter().map(|c| figure(*c)).collect();
        refits.sort_by(f64::total_cmp);
        let at = |q: f64| refits.get(((refits.len() as f64 - 1.0) * q).round() as usize);
        Range {
            low: at(TAIL).map_or(expected, |v| v.min(expected)),
            expected,
            high: at(1.0 - TAIL).map_or(expected, |v| v.max(expected)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads at 0.5 ms a file and 20 MB/s of sizes from 1 kB to 2 MB, ten of each.
    fn reads(noise: f64) -> Vec<(u64, f64)> {
        let mut rng = fastrand::Rng::with_seed(7);
        (0..120)
            .map(|i| 1000 * (1 << (i % 12)))
            .map(|b| {
                let truth = 0.0005 + b as f64 / 20e6;
                (b, truth * (1.0 + noise * (2.0 * rng.f64() - 1.0)))
            })
            .collect()
    }

    /// Exact reads give the costs and a spread of nothing; noisy ones (each read off by up to
    /// 10%, then 30%, either way) a fit near the truth inside a spread that widens with the
    /// noise.
    #[test]
    fn the_spread_of_the_read_costs_follows_the_noise() {
        let width = |r: Range| (r.high - r.low) / r.expected;
        let exact = ReadCosts::of(&reads(0.0)).unwrap();
        let (per_file, rate) = (exact.per_file_s(), exact.bytes_per_s());
        assert!((per_file.expected - 0.0005).abs() < 1e-9, "{per_file:?}");
        assert!((rate.expected / 20e6 - 1.0).abs() < 1e-6, "{rate:?}");
        assert!(width(per_file) < 1e-6 && width(exact.seconds(100, 1 << 30)) < 1e-6);
        let (quiet, loud) = (
            ReadCosts::of(&reads(0.1)).unwrap(),
            ReadCosts::of(&reads(0.3)).unwrap(),
        );
        for (r, truth) in [(quiet.per_file_s(), 0.0005), (quiet.bytes_per_s(), 20e6)] {
            assert!(r.low < r.expected && r.expected < r.high, "{r:?}");
            assert!(
                (r.expected / truth - 1.0).abs() < 0.05,
                "{r:?} against {truth}"
            );
        }
        let data = |c: &ReadCosts| width(c.seconds(20_000, 500_000_000));
        assert!(data(&loud) > 2.0 * data(&quiet), "{loud:?} {quiet:?}");
    }

    /// A first read of a large file from a disk's burst allowance moves nothing: the fit goes
    /// through each class's typical read.
    #[test]
    fn a_fast_first_read_does_not_pass_for_the_rate() {
        let mut burst = reads(0.0);
        for r in burst.iter_mut().filter(|r| r.0 >= 1 << 20).take(2) {
            r.1 /= 20.0;
        }
        let (per_file_s, bytes_per_s) = fit_reads(&burst).unwrap();
        assert!((per_file_s - 0.0005).abs() < 1e-9 && (bytes_per_s / 20e6 - 1.0).abs() < 1e-6);
    }

    /// Larger reads no slower than small ones: each file's own cost alone, the bytes next to
    /// free; reads of one size only: all of the time as bandwidth.
    #[test]
    fn costs_are_never_negative() {
        let flat: Vec<(u64, f64)> = (0..60).map(|i| (1000 << (i % 6), 0.001)).collect();
        let (per_file_s, bytes_per_s) = fit_reads(&flat).unwrap();
        assert!((per_file_s - 0.001).abs() < 1e-9 && bytes_per_s == FASTEST);
        let alike = [(4000, 0.002); 10];
        let (per_file_s, bytes_per_s) = fit_reads(&alike).unwrap();
        assert!(per_file_s == 0.0 && (bytes_per_s / 2e6 - 1.0).abs() < 1e-9);
        let classes: Vec<usize> = [0, 4095, 4096, 5 << 20]
            .iter()
            .map(|b| class_of(*b))
            .collect();
        assert_eq!(classes, [0, 0, 1, 5]);
    }
}
