//! The answer in the user's terms: how long a first backup of the user's data takes here, then
//! a routine one, with each tool the run measured, from the run's own results (its copies of
//! file sets or of the user's folder, the `tm-backup` replay, the large sequential write); and
//! what the next faster link would make of it; reading the data as well as writing it
//! ([`source`]). Pure but for [`your_data`], which asks the system how much data there is and
//! samples how fast it reads.

mod cache;
mod pace;
mod source;
mod what_if;
mod words;
mod your_data;

#[cfg(test)]
mod tests;

use crate::probe::{Key, Value};
use crate::results::{
    Answer, AnswerRow, AnswerTool, Details, Range, Routine, RoutineUnit, RunDocument, TestResult,
    ToolTimes, WhatIf, WriteCache, YourData,
};
use crate::settings::defs::TESTS;
use crate::workload::TestId;
use pace::Pace;
pub use your_data::{folder, folder_of_run, home_volume, with_reads};

/// Data larger than this may fill a write cache: where the run did not write on to find one,
/// the answer says which test would.
const FILLS_A_CACHE: u64 = 1_000_000_000;

/// The amounts of the "how long" table besides the user's data: 100 GB and 1 TB.
const TABLE_BYTES: [(u64, &str); 2] = [(100_000_000_000, "100 GB"), (1_000_000_000_000, "1 TB")];

/// The answer for `data` from a finished run (with its verdict); None where the run measured
/// nothing a backup's time can be drawn from.
pub fn of(run: &RunDocument, data: YourData) -> Option<Answer> {
    let mean_size = data
        .files
        .filter(|f| *f > 0)
        .map(|f| data.bytes as f64 / f as f64);
    let paces: Vec<Pace> = [
        Pace::time_machine(run),
        Pace::copy(run, AnswerTool::PlainCopy, mean_size),
        Pace::copy(run, AnswerTool::Rsync, mean_size),
    ]
    .into_iter()
    .flatten()
    .collect();
    if paces.is_empty() {
        return None;
    }
    let cache = cache::of(run);
    let paces: Vec<Charged> = paces
        .into_iter()
        .map(|pace| Charged {
            pace,
            cache: cache.as_ref(),
        })
        .collect();
    let mut tools: Vec<ToolTimes> = paces.iter().map(|p| times(p, &data, run)).collect();
    let mut what_if = what_if(run, &data, &tools[0]);
    let mut table = table(&paces, &data);
    // Reading the data, where it was sampled, adds to writing it (source.rs).
    let limited_by = source::add_reading(&data, &mut tools, &mut table, &mut what_if);
    let mut answer = Answer {
        table,
        missing: missing(&paces, &data),
        data,
        cache,
        tools,
        what_if,
        limited_by,
        words: Vec::new(),
    };
    let kind = run
        .chain
        .as_ref()
        .and_then(crate::probe::health::drive_kind);
    let outran = cache::outran(paces[0].pace.byte_rate_mb_s(), answer.cache.as_ref());
    let noun = if run.chain.as_ref().is_some_and(|c| c.is_network()) {
        "share"
    } else {
        "disk"
    };
    answer.words = words::sentences(
        &answer,
        (run.verdict.as_ref(), noun),
        kind,
        (cache::stopped(run), outran),
    );
    Some(answer)
}

/// A tool's pace with the destination's write cache: its first backups charge the bytes past
/// a found cache at the rate after it.
struct Charged<'a> {
    pace: Pace<'a>,
    cache: Option<&'a WriteCache>,
}

impl Charged<'_> {
    fn first(&self, bytes: u64, files: Option<u64>) -> Range {
        let range = self.pace.first(bytes, files);
        cache::charge(range, bytes, self.pace.byte_rate_mb_s(), self.cache)
    }
}

/// One tool's first and routine backups of `data`; a copy's routine backup starts, as the first
/// does, with the cache drained since the last one, so its GB is charged the same way.
fn times(charged: &Charged, data: &YourData, run: &RunDocument) -> ToolTimes {
    let pace = &charged.pace;
    let routine = match pace.hourly(data.bytes, data.files) {
        Some(hourly) => {
            let (factor, assumed) = throttling(run);
            Routine {
                seconds: hourly.times(factor),
                per: RoutineUnit::Hour,
                assumed: format!(
                    "an hour's changes as in the replayed trace's hours (4.4% of a first \
                     backup's writes, 1.0% to 10.2%); {assumed}"
                ),
            }
        }
        None => {
            let changed = charged.first(1_000_000_000, files_in(data, 1_000_000_000));
            let walk = (pace.tool() == AnswerTool::Rsync)
                .then(|| pace::rsync_walk(run, data.files?))
                .flatten();
            match walk {
                Some((walk, from)) => Routine {
                    seconds: changed + walk,
                    per: RoutineUnit::GigabyteChanged,
                    assumed: format!(
                        "each GB that changes, in files of your data's mean size, and rsync's \
                         walk over all your files to find them ({from})"
                    ),
                },
                None => Routine {
                    seconds: changed,
                    per: RoutineUnit::GigabyteChanged,
                    assumed: "each GB that changes, in files of your data's mean size; the \
                              tool's walk over the files that did not change is not counted"
                        .into(),
                },
            }
        }
    };
    ToolTimes {
        tool: pace.tool(),
        first_seconds: charged.first(data.bytes, data.files),
        bytes_only: pace.bytes_only(data.files),
        routine: Some(routine),
        basis: pace.basis(),
    }
}

/// How much slower Time Machine's hourly backups go while other programs use the disk: the
/// throttled test's writes at background priority against alone, where it measured that.
fn throttling(run: &RunDocument) -> (f64, String) {
    let turned_off = run
        .chain
        .as_ref()
        .and_then(|c| c.root.get(Key::LowPriorityThrottling))
        == Some(&Value::LowPriorityThrottling(false));
    if turned_off {
        return (
            1.0,
            "at full speed: throttling of low-priority I/O is off on this Mac \
             (debug.lowpri_throttle_enabled=0, until it restarts)"
                .into(),
        );
    }
    let measured = run
        .results
        .iter()
        .filter(|r: &&TestResult| r.test == TestId::Throttled)
        .find_map(|r| match &r.details {
            Some(Details::Throttled(d))
                if d.priority_effective && d.background.write_mb_s > 0.0 =>
            {
                Some(d.alone.write_mb_s / d.background.write_mb_s)
            }
            _ => None,
        })
        .filter(|f| f.is_finite() && *f >= 1.0);
    match measured {
        Some(f) => (
            f,
            format!(
                "throttled as hourly backups are while other programs use the disk ({f:.1}x \
                 slower in the throttled test)"
            ),
        ),
        None => (
            1.0,
            format!(
                "at full speed, with no other program using the disk (the throttled test, \
                 {TESTS} throttled, measures how much slower it goes when one does)"
            ),
        ),
    }
}

/// The files in `bytes` of the data, at its mean file size.
fn files_in(data: &YourData, bytes: u64) -> Option<u64> {
    let files = data.files.filter(|_| data.bytes > 0)?;
    Some((files as f64 * bytes as f64 / data.bytes as f64).round() as u64)
}

/// The headline tool's first backup with the limiting link replaced by the next faster one:
/// the data's bytes at the new ceiling instead of at the measured write rate, the rest as
/// measured.
fn what_if(run: &RunDocument, data: &YourData, headline: &ToolTimes) -> Option<WhatIf> {
    let verdict = run.verdict.as_ref()?;
    let upgrade = what_if::upgrade(verdict, run.chain.as_ref()?)?;
    let now_mb_s = verdict.write_mb_s.or(verdict.measured_mb_s)?;
    if upgrade.ceiling_mb_s <= now_mb_s || headline.bytes_only && data.bytes == 0 {
        return None;
    }
    let mb = data.bytes as f64 / 1e6;
    let rest = (headline.first_seconds.expected - mb / now_mb_s).max(0.0);
    Some(WhatIf {
        link: upgrade.link,
        instead: upgrade.instead,
        ceiling_mb_s: upgrade.ceiling_mb_s,
        bounded_by: upgrade.bounded_by,
        first_seconds: rest + mb / upgrade.ceiling_mb_s,
    })
}

/// The "how long" table: the user's data, 100 GB and 1 TB (in files of the data's mean size),
/// each tool's first backup.
fn table(paces: &[Charged], data: &YourData) -> Vec<AnswerRow> {
    let row = |label: &str, bytes: u64, files: Option<u64>| AnswerRow {
        label: label.into(),
        bytes,
        files,
        seconds: paces.iter().map(|p| p.first(bytes, files)).collect(),
    };
    std::iter::once(row("your data", data.bytes, data.files))
        .chain(
            TABLE_BYTES
                .iter()
                .map(|&(bytes, label)| row(label, bytes, files_in(data, bytes))),
        )
        .collect()
}

/// The tests that would make the answer better, where the run lacks them.
fn missing(charged: &[Charged], data: &YourData) -> Vec<String> {
    let mut missing = Vec::new();
    let paces: Vec<&Pace> = charged.iter().map(|c| &c.pace).collect();
    if charged.first().is_some_and(|c| c.cache.is_none()) && data.bytes > FILLS_A_CACHE {
        missing.push(format!(
            "a run with sustained ({TESTS} sustained, or the default tests) would find a write \
             cache that a first backup of {} could fill",
            crate::units::decimal_bytes(data.bytes)
        ));
    }
    if paces.iter().any(|p| matches!(p, Pace::BytesOnly { .. })) {
        missing.push(
            "a run with files-copy (the default backup profile has it) would add each file's \
             own cost"
                .into(),
        );
    }
    let has = |tool| paces.iter().any(|p| p.tool() == tool);
    let copied = paces
        .iter()
        .any(|p| matches!(p, Pace::Fitted { .. } | Pace::Measured { .. }));
    if cfg!(unix) && copied && !has(AnswerTool::Rsync) {
        missing.push(
            "a run where rsync is installed would give rsync's own time (files-copy copies each \
             set with rsync -a too)"
                .into(),
        );
    }
    if cfg!(target_os = "macos") && !has(AnswerTool::TimeMachine) {
        missing.push(format!(
            "a run with tm-backup ({TESTS} tm-backup) would give Time Machine's own time"
        ));
    }
    missing
}
