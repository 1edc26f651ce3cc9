//! A backup program's first backup from its runs on miniatures of the source (see
//! `estimate::backup`). Pure.
//!
//! The miniatures are the source's own files sampled in proportion within each size class, so
//! a miniature's files and bytes are the same share of the source's: the two grow together
//! and a fit cannot tell a per-file cost from a per-byte one (the calibration sets of the
//! copy tools can, but their random bytes would hide what compression and deduplication make
//! of the source's). So the time is fitted to the share: `time = start + share × whole`, where
//! `start` is the tool's start and its repository's last writes and `whole` the source's
//! work beyond them, and the first backup is `start + whole`. The interval: the fits to each
//! miniature's fastest and slowest runs and the fit's 95% error at the whole source (both
//! terms' uncertainty carried to it), widened to at least twice the fit's relative residual
//! and the model's own error on real trees either side, as the copy tools' is. The
//! miniatures are read cold, so the source's reading is in the runs; `--measure-source` only
//! says whether it is the limit.

use serde::Serialize;

use super::fit::{self, Sample};
use super::{FitError, Range, SourceCost, SourceSide, widened};

/// A tool that keeps this share of the cores it can use busy is held back by its own work.
pub const BUSY: f64 = 0.75;
/// A tool that keeps this share of them busy while other programs fill the machine's cores
/// is held back by the shared CPU (it waited to run, not on the destination).
pub const CROWDED: f64 = 0.4;

/// One timed run of the tool on a miniature, from an empty repository.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolRun {
    /// The miniature's share of the source (the mean of its files' and bytes' shares).
    pub share: f64,
    pub files: u64,
    pub bytes: u64,
    /// From the start to the end of a sync of the destination.
    pub seconds: f64,
    /// From the start to the tool's exit: the sync after it left out.
    pub tool_s: f64,
    /// The tool's CPU time, user and system, its children's included (None where the system
    /// does not say).
    pub cpu_s: Option<f64>,
    /// The CPU time every program on the machine used meanwhile, the tool's included (Linux).
    pub machine_busy_s: Option<f64>,
}

/// A backup into the repository of a first one, after some of the miniature's files changed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SecondRun {
    /// The run's miniature's share of the source.
    pub share: f64,
    pub changed_files: u64,
    pub changed_bytes: u64,
    pub seconds: f64,
}

/// Which side sets the pace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The tool's own work (chunking, hashing, compression, encryption): the CPU.
    Tool,
    /// The machine's cores, busy with the tool and other programs: the tool got less CPU than
    /// it could use, and would run faster on an idle machine.
    Cpu,
    Destination,
    Source,
    /// The tool waited on reading its source or writing the destination (it kept its cores
    /// idle and the sync after it was short); which of the two, only `--measure-source` says.
    #[serde(rename = "source-or-destination")]
    SourceOrDestination,
}

/// The limiting side, and the CPU figures it was judged by.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Limit {
    pub side: Side,
    /// The tool's CPU time over its own wall time (to its exit) on the largest miniature.
    pub cores_used: Option<f64>,
    /// The cores the tool can keep busy: the machine's, or fewer for a tool that works on one
    /// thread.
    pub cores: usize,
    /// The cores every program kept busy meanwhile, the tool's included (Linux).
    pub machine_cores_used: Option<f64>,
    pub machine_cores: usize,
}

/// The first backup's estimate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BackupEstimate {
    pub predicted_seconds: Range,
    /// The fit: seconds once per backup, and the whole source's seconds beyond them.
    pub start_s: f64,
    pub whole_s: f64,
    pub residual: f64,
    pub limit: Limit,
    /// A backup after `changed_percent` of the files changed, for the whole source.
    pub second_seconds: Option<f64>,
    pub source: Option<SourceSide>,
}

/// The runs as the fit's samples: a start, and the share.
fn samples(runs: &[(f64, f64)]) -> Vec<Sample> {
    runs.iter()
        .map(|&(share, seconds)| Sample {
            x: vec![1.0, share],
            seconds,
        })
        .collect()
}

/// The terms fitted: the start and the whole, or the whole alone.
const BOTH: &[usize] = &[0, 1];
const WHOLE_ONLY: &[usize] = &[1];

/// The fit's (start, whole) to `runs` and the terms it fitted, or None where the runs do not
/// determine it. A start that comes out negative is left out (the line through the origin).
fn fit_terms(runs: &[(f64, f64)]) -> Option<((f64, f64), &'static [usize])> {
    let samples = samples(runs);
    let (c, terms) = match fit::solve(&samples, BOTH, 2).filter(|c| c[0] >= 0.0) {
        Some(c) => (c, BOTH),
        None => (fit::solve(&samples, WHOLE_ONLY, 2)?, WHOLE_ONLY),
    };
    (c[1] > 0.0).then_some(((c[0], c[1]), terms))
}

/// The fit's (start, whole) to `runs` (see [`fit_terms`]).
fn fit_line(runs: &[(f64, f64)]) -> Option<(f64, f64)> {
    fit_terms(runs).map(|(line, _)| line)
}

/// Each share's fastest (`pick` min) or slowest run.
fn extremes(runs: &[ToolRun], pick: fn(f64, f64) -> f64) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = Vec::new();
    for r in runs {
        match out.iter_mut().find(|(share, _)| *share == r.share) {
            Some(slot) => slot.1 = pick(slot.1, r.seconds),
            None => out.push((r.share, r.seconds)),
        }
    }
    out
}

/// The first backup from `runs` (each miniature's, at least two shares), the limit judged on
/// the largest miniature's runs against `cores` (`threads`: the most the tool can use), the
/// second backup from `second`, and the source's reading where it was measured.
pub fn estimate(
    runs: &[ToolRun],
    cores: usize,
    threads: Option<usize>,
    second: Option<&SecondRun>,
    source: Option<&SourceCost>,
) -> Result<BackupEstimate, FitError> {
    let inconsistent = || FitError::Inconsistent {
        detail: runs
            .iter()
            .map(|r| format!("{:.3} of the source in {:.2} s", r.share, r.seconds))
            .collect::<Vec<_>>()
            .join(", "),
    };
    if runs.is_empty() {
        return Err(FitError::NoMeasurements {
            what: "the source has no files for a miniature".into(),
        });
    }
    let all: Vec<(f64, f64)> = runs.iter().map(|r| (r.share, r.seconds)).collect();
    let ((start_s, whole_s), terms) = fit_terms(&all).ok_or_else(inconsistent)?;
    let c = [start_s, whole_s];
    let samples = samples(&all);
    let residual = fit::relative_rms(&c, &samples);
    let at_whole = |fit: Option<(f64, f64)>| fit.map_or(start_s + whole_s, |(s, w)| s + w);
    let expected = start_s + whole_s;
    // The whole source is beyond the largest miniature (or at it): the start's and the
    // slope's errors both carry to it, the farther the more.
    let fitted = fit::prediction_error(&samples, terms, &c, &[1.0, 1.0])
        .map_or(0.0, |e| fit::t95(samples.len() - terms.len()) * e);
    // The whole source holds the largest miniature: it takes no less than that one's fastest run.
    let largest = runs.iter().map(|r| r.share).fold(0.0, f64::max);
    let floor = runs
        .iter()
        .filter(|r| r.share == largest)
        .map(|r| r.seconds)
        .fold(f64::INFINITY, f64::min)
        .min(expected);
    let destination = widened(
        expected,
        (
            at_whole(fit_line(&extremes(runs, f64::min)))
                .min(expected - fitted)
                .max(floor),
            at_whole(fit_line(&extremes(runs, f64::max))).max(expected + fitted),
        ),
        residual,
    );
    let source = source.map(|s| s.against(expected));
    Ok(BackupEstimate {
        // The runs read their miniatures cold: the source's reading is in them already.
        predicted_seconds: destination,
        start_s,
        whole_s,
        residual,
        limit: limit(runs, cores, threads, source.as_ref()),
        second_seconds: second.map(|s| start_s + (s.seconds - start_s).max(0.0) / s.share),
        source,
    })
}

/// The source where it was measured slower than the tool's backup; else the destination
/// where the sync after the tool took as long as the tool; else the tool where it kept
/// [`BUSY`] of the cores it can use busy while it ran on the largest miniature, or the shared
/// CPU where it kept [`CROWDED`] of them busy and the machine's cores were [`BUSY`]; else the
/// destination where the source was measured faster, the source or the destination where it
/// was not. Its own wall time, not the sync's: a sync of a filesystem shared with other
/// writers also waits on theirs.
fn limit(
    runs: &[ToolRun],
    cores: usize,
    threads: Option<usize>,
    source: Option<&SourceSide>,
) -> Limit {
    let machine_cores = cores.max(1);
    let cores = threads.map_or(cores, |t| t.min(cores)).max(1);
    let largest = runs.iter().map(|r| r.share).fold(0.0, f64::max);
    let on_largest: Vec<&ToolRun> = runs.iter().filter(|r| r.share == largest).collect();
    let cpu: Option<f64> = on_largest.iter().map(|r| r.cpu_s).sum();
    let own: f64 = on_largest.iter().map(|r| r.tool_s).sum();
    let flush: f64 = on_largest.iter().map(|r| r.seconds - r.tool_s).sum();
    let cores_used = cpu.filter(|_| own > 0.0).map(|cpu| cpu / own);
    let busy: Option<f64> = on_largest.iter().map(|r| r.machine_busy_s).sum();
    let machine_cores_used = busy.filter(|_| own > 0.0).map(|busy| busy / own);
    let busy =
        |used: Option<f64>, share: f64, of: usize| used.is_some_and(|u| u >= share * of as f64);
    let side = if source.is_some_and(|s| s.limits == "source") {
        Side::Source
    } else if flush >= own {
        Side::Destination
    } else if busy(cores_used, BUSY, cores) {
        Side::Tool
    } else if busy(machine_cores_used, BUSY, machine_cores) && busy(cores_used, CROWDED, cores) {
        Side::Cpu
    } else if source.is_some() {
        Side::Destination
    } else {
        Side::SourceOrDestination
    };
    Limit {
        side,
        cores_used,
        cores,
        machine_cores_used,
        machine_cores,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{MODEL_ERROR, RESIDUALS};
    use super::*;

    /// Runs of a tool that takes `start` + `whole` × share, each share twice, `spread` apart.
    fn runs(start: f64, whole: f64, spread: f64, cpu_per_s: f64) -> Vec<ToolRun> {
        [0.1, 0.2, 0.4]
            .iter()
            .flat_map(|&share| {
                [1.0 - spread, 1.0 + spread].map(|k| {
                    let seconds = (start + whole * share) * k;
                    ToolRun {
                        share,
                        files: (share * 1e4) as u64,
                        bytes: (share * 1e8) as u64,
                        seconds,
                        tool_s: seconds,
                        cpu_s: Some(seconds * cpu_per_s),
                        machine_busy_s: Some(seconds * cpu_per_s),
                    }
                })
            })
            .collect()
    }

    /// Exact runs give back the start and the whole, the range the model's error; runs that
    /// disagree widen it to twice their spread.
    #[test]
    fn the_first_backup_is_the_start_and_the_whole_source() {
        let e = estimate(&runs(0.5, 20.0, 0.0, 0.2), 2, None, None, None).unwrap();
        assert!((e.start_s - 0.5).abs() < 1e-9 && (e.whole_s - 20.0).abs() < 1e-9);
        let p = e.predicted_seconds;
        assert!((p.expected - 20.5).abs() < 1e-9);
        // Exact runs still leave the model's own error on a real tree either side.
        let floor = 20.5 * MODEL_ERROR;
        assert!((p.low - (20.5 - floor)).abs() < 1e-9, "{p:?}");
        assert!((p.high - (20.5 + floor)).abs() < 1e-9, "{p:?}");
        assert_eq!(e.limit.side, Side::SourceOrDestination);
        let spread = estimate(&runs(0.5, 20.0, 0.1, 0.2), 2, None, None, None).unwrap();
        // The runs 10% either side: the fit's residual is 10%, and the range twice that.
        let p = spread.predicted_seconds;
        assert!((p.expected / 20.5 - 1.0).abs() < 0.03, "{p:?}");
        assert!(
            p.low <= 0.82 * p.expected && p.high >= 1.18 * p.expected,
            "{p:?}"
        );
    }

    /// Runs on miniatures `top`, half and a quarter of the source, each twice alike, the
    /// middle one `off` slower than a line and the others `off` faster: the fastest and the
    /// slowest runs' fits are the one fit.
    fn bent(top: f64, off: f64) -> Vec<ToolRun> {
        [(0.25, 1.0 - off), (0.5, 1.0 + off), (1.0, 1.0 - off)]
            .iter()
            .flat_map(|&(scale, k)| {
                let share = top * scale;
                let seconds = (0.5 + 20.0 * share) * k;
                let run = ToolRun {
                    share,
                    files: (share * 1e4) as u64,
                    bytes: (share * 1e8) as u64,
                    seconds,
                    tool_s: seconds,
                    cpu_s: None,
                    machine_busy_s: None,
                };
                [run.clone(), run]
            })
            .collect()
    }

    /// The range carries the fit's error in its start and its whole to the whole source: the
    /// same scatter on miniatures of a tenth of the source (the fit's slope carried ten times
    /// as far) gives a range wider than twice the residual and the model's error, and wider
    /// than on miniatures that reach the whole; it never goes below the largest miniature's
    /// fastest run.
    #[test]
    fn the_range_carries_the_fit_s_error_to_the_whole_source() {
        let half_width = |runs: &[ToolRun]| {
            let e = estimate(runs, 2, None, None, None).unwrap();
            let p = e.predicted_seconds;
            ((p.high - p.low) / 2.0 / p.expected, e.residual, p.low)
        };
        let far = bent(0.1, 0.05);
        let (far_width, residual, low) = half_width(&far);
        assert!(
            far_width > (RESIDUALS * residual).max(MODEL_ERROR) * 1.5,
            "{far_width} {residual}"
        );
        let (near_width, ..) = half_width(&bent(1.0, 0.05));
        assert!(far_width > near_width, "{far_width} {near_width}");
        let fastest = far.iter().map(|r| r.seconds).fold(f64::INFINITY, f64::min);
        let largest = far
            .iter()
            .filter(|r| r.share == 0.1)
            .map(|r| r.seconds)
            .fold(f64::INFINITY, f64::min);
        assert!(low >= largest && largest > fastest, "{low} {largest}");
    }

    /// A tool busy on 1.9 of 2 cores is the limit; one thread busy is the limit for a tool of
    /// one thread, not for one that could use both.
    #[test]
    fn a_busy_tool_is_the_limit() {
        let e = estimate(&runs(0.5, 20.0, 0.0, 1.9), 2, None, None, None).unwrap();
        assert_eq!((e.limit.side, e.limit.cores), (Side::Tool, 2));
        assert!((e.limit.cores_used.unwrap() - 1.9).abs() < 1e-9);
        let one = runs(0.5, 20.0, 0.0, 0.95);
        assert_eq!(
            estimate(&one, 2, Some(1), None, None).unwrap().limit.side,
            Side::Tool
        );
        let side = estimate(&one, 2, None, None, None).unwrap().limit.side;
        assert_eq!(side, Side::SourceOrDestination);
        // Both cores busy, the tool's one of them: other programs kept it from the second.
        let mut crowded = one.clone();
        for r in &mut crowded {
            r.machine_busy_s = Some(r.seconds * 1.9);
        }
        let side = estimate(&crowded, 2, None, None, None).unwrap().limit.side;
        assert_eq!(side, Side::Cpu);
    }

    /// A tool that waited is held by the destination where the sync after it took as long, or
    /// where the source was measured faster than the backup; by either side where neither
    /// is known, and by the source where it was measured slower.
    #[test]
    fn a_waiting_tool_names_the_side_it_waited_on() {
        let waiting = runs(0.5, 20.0, 0.0, 0.2);
        let side =
            |runs: &[ToolRun], source: Option<&SourceSide>| limit(runs, 2, None, source).side;
        assert_eq!(side(&waiting, None), Side::SourceOrDestination);
        let mut flushing = waiting.clone();
        for r in &mut flushing {
            r.tool_s = r.seconds / 2.0;
        }
        assert_eq!(side(&flushing, None), Side::Destination);
        let cost = SourceCost {
            files_sampled: 100,
            bytes_sampled: 1 << 20,
            per_file_s: 1e-4,
            bytes_per_s: 1e8,
            listing_s: None,
            seconds: 2.0,
        };
        let faster = SourceSide {
            cost,
            limits: "destination",
        };
        assert_eq!(side(&waiting, Some(&faster)), Side::Destination);
        let slower = SourceSide {
            cost,
            limits: "source",
        };
        assert_eq!(side(&waiting, Some(&slower)), Side::Source);
    }

    /// The second backup's time beyond the start scales with the source; runs that shrink
    /// as the miniature grows contradict the model.
    #[test]
    fn the_second_backup_scales_and_a_shrinking_time_is_refused() {
        let second = SecondRun {
            share: 0.4,
            changed_files: 400,
            changed_bytes: 4_000_000,
            seconds: 1.3,
        };
        let e = estimate(&runs(0.5, 20.0, 0.0, 0.2), 2, None, Some(&second), None).unwrap();
        assert!((e.second_seconds.unwrap() - 2.5).abs() < 1e-9);
        let mut shrinking = runs(0.5, 20.0, 0.0, 0.2);
        for r in &mut shrinking {
            r.seconds = 10.0 - r.share * 20.0;
        }
        let e = estimate(&shrinking, 2, None, None, None);
        assert!(matches!(e, Err(FitError::Inconsistent { .. })), "{e:?}");
        let e = estimate(&[], 2, None, None, None);
        assert!(matches!(e, Err(FitError::NoMeasurements { .. })), "{e:?}");
    }
}
