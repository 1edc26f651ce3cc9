//! How a tool's time grows with the data, from the run's own results: the model fitted to its
//! copies of file sets, its copies of the user's folder itself, the `tm-backup` replay, or the
//! large sequential write alone.

use crate::estimate::model::time_machine::{self, TimeMachineEstimate};
use crate::estimate::model::{self, CopyMeasurement, Fitted};
use crate::estimate::run_copies;
use crate::results::{AnswerTool, Details, Range, RunDocument, TestResult};
use crate::units::{decimal_bytes as size, human_duration};

use crate::verdict::judged_in;
use crate::workload::{CopyProgram, FileOp, SetName, Workload};

/// A plain copy is one file after another, as cp makes it.
const COPY_THREADS: usize = 1;

/// How far a copy tool's run on the same data and destination strays from the run's own copies:
/// `cp -a` took 0.82 to 1.26 times destbench's copy in eight trials on the testbed's disk,
/// `rsync -a` 1.17 times rsync's own copies in the run (docs/answer.md), so a copy's range
/// reaches at least this far either side.
const OTHER_RUNS: (f64, f64) = (0.85, 1.3);

/// The same over a network share, whose speed follows the CPU at both ends: on the testbed's
/// share a later `cp -a` took up to 1.35 times the run's copies and `rsync -a` 1.57 times, as
/// the machine's other work changed (docs/answer.md).
const OTHER_RUNS_OVER_A_SHARE: (f64, f64) = (0.85, 1.6);

/// How far another run of a copy tool may stray from the run's own copies: the low and high
/// factors of the expected time.
pub(super) type Stray = (f64, f64);

/// How one tool's time grows with the data.
pub(super) enum Pace<'a> {
    /// The model fitted to the run's copies of its generated file sets by `tool`.
    Fitted {
        fitted: Fitted,
        tool: AnswerTool,
        stray: Stray,
    },
    /// Copies of one set, in proportion to the bytes for other amounts of data: the user's
    /// folder itself (`--source`), or, where the model does not fit the sets' copies, the set
    /// whose mean file size is nearest the data's.
    Measured {
        tool: AnswerTool,
        stray: Stray,
        seconds: Range,
        bytes: u64,
        what: String,
        /// Why this set stands for the data, where it is not the data itself.
        why: &'static str,
    },
    /// Only the large sequential write: the bytes' time, no file's own cost.
    BytesOnly { write: &'a TestResult, stray: Stray },
    /// The `tm-backup` replay of Time Machine's writes.
    TimeMachine(&'a RunDocument),
}

impl<'a> Pace<'a> {
    /// A copy tool's pace for data of `mean_size` bytes a file: the user's folder copied,
    /// else the fit to the file sets, else the set nearest in mean file size; for a plain copy,
    /// else the sequential write; None without any of them (and for Time Machine).
    pub fn copy(
        run: &'a RunDocument,
        tool: AnswerTool,
        mean_size: Option<f64>,
    ) -> Option<Pace<'a>> {
        let op = match tool {
            AnswerTool::PlainCopy => FileOp::Copy { cache_on: true },
            AnswerTool::Rsync => FileOp::CopyWith(CopyProgram::Rsync),
            AnswerTool::TimeMachine => return None,
        };
        let stray = if run.chain.as_ref().is_some_and(|c| c.is_network()) {
            OTHER_RUNS_OVER_A_SHARE
        } else {
            OTHER_RUNS
        };
        let copies = run_copies(run, op, COPY_THREADS);
        let (source, generated): (Vec<_>, Vec<_>) = copies
            .into_iter()
            .partition(|(set, _)| *set == SetName::Source);
        if let Some((_, m)) = source.into_iter().next() {
            return measured(
                (tool, stray),
                &m,
                "the run's copies of this folder itself".into(),
                "",
            );
        }
        let measurements: Vec<_> = generated.iter().map(|(_, m)| m.clone()).collect();
        if let Ok(fitted) = model::fit(&measurements, "files-copy") {
            return Some(Pace::Fitted {
                fitted,
                tool,
                stray,
            });
        }
        if let Some((set, m)) = nearest(&generated, mean_size) {
            let mean = m.bytes as f64 / m.files.max(1) as f64;
            let what = format!(
                "the run's copies of its {set} set, {} a file on average",
                size(mean as u64)
            );
            let why = "; the sets' copies fit no one per-file cost and rate, so the set nearest \
                       your data's mean file size stands in";
            return measured((tool, stray), m, what, why);
        }
        let [write, _] = judged_in(run);
        write
            .filter(|w| w.median > 0.0 && tool == AnswerTool::PlainCopy)
            .map(|write| Pace::BytesOnly { write, stray })
    }

    /// Time Machine's pace, where the run replayed it.
    pub fn time_machine(run: &'a RunDocument) -> Option<Pace<'a>> {
        time_machine::estimate(run, 1 << 30, 1000)
            .is_ok()
            .then_some(Pace::TimeMachine(run))
    }

    pub fn tool(&self) -> AnswerTool {
        match self {
            Pace::TimeMachine(_) => AnswerTool::TimeMachine,
            Pace::Fitted { tool, .. } | Pace::Measured { tool, .. } => *tool,
            Pace::BytesOnly { .. } => AnswerTool::PlainCopy,
        }
    }

    /// The first backup of `bytes` in `files` (None: unknown, so no file's own cost counted);
    /// a copy's range reaches at least its [`Stray`] either side.
    pub fn first(&self, bytes: u64, files: Option<u64>) -> Range {
        let r = self.own(bytes, files);
        match self {
            Pace::TimeMachine(_) => r,
            Pace::Fitted { stray, .. }
            | Pace::Measured { stray, .. }
            | Pace::BytesOnly { stray, .. } => Range {
                low: r.low.min(r.expected * stray.0),
                high: r.high.max(r.expected * stray.1),
                ..r
            },
        }
    }

    /// [`Pace::first`] as the run's own figures give it.
    fn own(&self, bytes: u64, files: Option<u64>) -> Range {
        match self {
            Pace::Fitted { fitted, .. } => fitted.seconds_for_totals(files.unwrap_or(0), bytes),
            Pace::Measured {
                seconds, bytes: b, ..
            } => seconds.times(bytes as f64 / *b as f64),
            Pace::BytesOnly { write, .. } => {
                // A document without its spread (min, max 0) gives the median's time alone.
                let (slowest, fastest) = match (write.min, write.max) {
                    (min, max) if min > 0.0 && max >= min => (min, max),
                    _ => (write.median, write.median),
                };
                let mb = bytes as f64 / 1e6;
                Range {
                    low: mb / fastest,
                    expected: mb / write.median,
                    high: mb / slowest,
                }
            }
            Pace::TimeMachine(run) => tm(run, bytes, files).first_seconds,
        }
    }

    /// The rate the pace moves the data's bytes at, MB/s: the fit's byte rate, the copies'
    /// bytes over their median time, the write's median, the replay's rate of user data.
    pub fn byte_rate_mb_s(&self) -> f64 {
        match self {
            Pace::Fitted { fitted, .. } => fitted.costs().bytes_per_s / 1e6,
            Pace::Measured { seconds, bytes, .. } => *bytes as f64 / 1e6 / seconds.expected,
            Pace::BytesOnly { write, .. } => write.median,
            Pace::TimeMachine(run) => tm(run, 1 << 30, Some(1000)).user_data_mb_s,
        }
    }

    /// Whether the time leaves out each file's own cost.
    pub fn bytes_only(&self, files: Option<u64>) -> bool {
        match self {
            Pace::BytesOnly { .. } => true,
            Pace::Measured { .. } => false,
            Pace::Fitted { .. } | Pace::TimeMachine(_) => files.is_none(),
        }
    }

    /// Time Machine's hourly backup for this data, unthrottled; None for other tools.
    pub fn hourly(&self, bytes: u64, files: Option<u64>) -> Option<Range> {
        match self {
            Pace::TimeMachine(run) => Some(tm(run, bytes, files).incremental_seconds),
            _ => None,
        }
    }

    /// What the times rest on, in words.
    pub fn basis(&self) -> String {
        match self {
            Pace::Fitted { fitted, tool, .. } => {
                let c = fitted.costs();
                format!(
                    "the run's copies of its file sets ({}): {:.2} ms a file and {:.1} MB/s",
                    how(*tool),
                    c.per_file_s * 1e3,
                    c.bytes_per_s / 1e6
                )
            }
            Pace::Measured {
                tool,
                seconds,
                what,
                why,
                ..
            } => format!(
                "{what} ({}): {} each{why}",
                how(*tool),
                human_duration(seconds.expected)
            ),
            Pace::BytesOnly { write, .. } => format!(
                "the large sequential write alone ({} {}, {:.1} MB/s): the run copied no file \
                 sets, so no file's own cost is counted",
                write.test, write.variant, write.median
            ),
            Pace::TimeMachine(run) => {
                let tm = tm(run, 1 << 30, Some(1000));
                format!(
                    "the tm-backup replay of Time Machine's writes ({:.1} MB/s of your data), and \
                     its own work on the Mac, {}",
                    tm.user_data_mb_s,
                    tm.per_item.describe()
                )
            }
        }
    }
}

/// rsync's walk over `files` unchanged files, from the run's updates (rsync again onto its own
/// copy of a set): the user's folder's where it was copied, else the set of the most files; with
/// what it came from.
pub(super) fn rsync_walk(run: &RunDocument, files: u64) -> Option<(Range, String)> {
    let update = FileOp::UpdateWith(CopyProgram::Rsync);
    let (result, _) = run
        .results
        .iter()
        .filter_map(|r| match &r.workload {
            Some(Workload::FileSet { op, set, .. }) if *op == update && r.median > 0.0 => {
                Some((r, *set))
            }
            _ => None,
        })
        .max_by_key(|(r, set)| {
            (
                *set == SetName::Source,
                r.file_set.as_ref().map(|s| s.files),
            )
        })?;
    let set_files = result.file_set.as_ref().map_or(0, |s| s.files);
    let start_up = match &result.details {
        Some(Details::ProgramStart(d)) => Some(d),
        _ => None,
    };
    // rsync starts once for the folder and walks each file as it walked the set's: its pass
    // less its start-up (`details`); a document without it (or without the figures' spread:
    // min, max 0) gives the whole pass's pace.
    let walked = |rate: f64| start_up.and_then(|d| Some((d, d.walk_per_file_s(set_files, rate)?)));
    let seconds = |rate: f64| {
        let rate = if rate > 0.0 { rate } else { result.median };
        walked(rate).map_or(files as f64 / rate, |(d, per_file)| {
            d.start_s + files as f64 * per_file
        })
    };
    let range = Range {
        low: seconds(result.max),
        expected: seconds(result.median),
        high: seconds(result.min),
    };
    let from = match walked(result.median) {
        Some((d, per_file)) => format!(
            "files-copy {}: {:.0} files/s walked, rsync's start-up of {:.0} ms apart",
            result.variant,
            1.0 / per_file,
            d.start_s * 1e3
        ),
        None => format!(
            "files-copy {}: {:.0} files/s",
            result.variant, result.median
        ),
    };
    Some((range, from))
}

/// The replay's estimate; [`Pace::time_machine`] made sure there is one.
fn tm(run: &RunDocument, bytes: u64, files: Option<u64>) -> TimeMachineEstimate {
    time_machine::estimate(run, bytes, files.unwrap_or(0))
        .expect("Pace::TimeMachine is made only where the replay gives an estimate")
}

/// Which copies of the run a copy tool's times come from, in words.
fn how(tool: AnswerTool) -> &'static str {
    match tool {
        AnswerTool::Rsync => "files-copy with rsync -a",
        _ => "files-copy, one thread, write cache on",
    }
}

/// The pace of `m`'s copies by `tool`, where it has any; `why` says why they stand for the data.
fn measured<'a>(
    (tool, stray): (AnswerTool, Stray),
    m: &CopyMeasurement,
    what: String,
    why: &'static str,
) -> Option<Pace<'a>> {
    Some(Pace::Measured {
        tool,
        stray,
        seconds: range_of(&m.seconds)?,
        bytes: m.bytes,
        what,
        why,
    })
}

/// The copy of the set whose mean file size is nearest `mean_size` (by ratio); the largest
/// set where the data's mean is not known.
fn nearest(
    copies: &[(SetName, CopyMeasurement)],
    mean_size: Option<f64>,
) -> Option<&(SetName, CopyMeasurement)> {
    let mean = |m: &CopyMeasurement| m.bytes as f64 / m.files.max(1) as f64;
    let distance = |(_, m): &&(SetName, CopyMeasurement)| match mean_size {
        Some(size) if size > 0.0 => (mean(m) / size).ln().abs(),
        _ => -(m.bytes as f64),
    };
    copies
        .iter()
        .filter(|(_, m)| !m.seconds.is_empty() && m.bytes > 0)
        .min_by(|a, b| distance(a).total_cmp(&distance(b)))
}

/// The fastest, the median and the slowest of `seconds` (none of them 0).
fn range_of(seconds: &[f64]) -> Option<Range> {
    let positive: Vec<f64> = seconds.iter().copied().filter(|s| *s > 0.0).collect();
    let s = crate::stats::summarize(&positive)?;
    Some(Range {
        low: s.min,
        expected: s.median,
        high: s.max,
    })
}
