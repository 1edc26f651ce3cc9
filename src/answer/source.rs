//! The answer's other side: reading the user's data (its sampled reads, [`DataReads`]) as
//! well as writing it here. A copy reads a file, then writes it, on one thread, so the two add
//! up, as the estimate's source side does (estimate.md); at best the destination's writes wait
//! in its page cache and overlap the reads. Each tool's first backup, and each row of the
//! table, takes reading and writing one after the other (expected), the slower side alone at
//! best (low), the sum of their slowest at worst (high); docs/answer.md measures it. Pure.

use crate::results::{
    Answer, AnswerRow, DataReads, Range, Side, ToolTimes, WhatIf, YourData, round_mb_s,
};
use crate::units::{human_duration, thousands};

#[cfg(test)]
mod tests;

/// What bounds a faster link's first backup where reading the data then takes longer.
const READING: &str = "reading your data";

/// How far a copy's reading of the data strays from the sample's time: a cold `cp -a` of man
/// pages from the testbed's disk held to 20 MB/s to a tmpfs took 1.05 to 1.38 times it in
/// nine trials (docs/answer.md), so reading's range reaches at least this far.
const READ_STRAY: (f64, f64) = (1.0, 1.45);

/// Each tool's first backup and the table's rows with reading the data added, the what-if
/// too; which side takes longer for the headline tool. None where the data's reads were not
/// sampled.
pub(super) fn add_reading(
    data: &YourData,
    tools: &mut [ToolTimes],
    table: &mut [AnswerRow],
    what_if: &mut Option<WhatIf>,
) -> Option<Side> {
    let reads = data.reads.as_ref()?;
    let r = reads.seconds;
    let reading = Range {
        low: r.low.min(r.expected * READ_STRAY.0),
        high: r.high.max(r.expected * READ_STRAY.1),
        ..r
    };
    let limits = if reading.expected > tools.first()?.first_seconds.expected {
        Side::Source
    } else {
        Side::Destination
    };
    for tool in tools.iter_mut() {
        let writing = tool.first_seconds;
        tool.basis = if reading.expected > writing.expected {
            format!(
                "{READING}: {}; then writing it here, about {}, from {}",
                costs(reads),
                human_duration(writing.expected),
                tool.basis
            )
        } else {
            format!(
                "{}; then {READING}, about {}: {}",
                tool.basis,
                human_duration(reading.expected),
                costs(reads)
            )
        };
        tool.first_seconds = one_after_the_other(writing, reading);
    }
    // The table's rows are the data's mean file size: reading them takes the data's time in
    // proportion to their bytes.
    for row in table.iter_mut().filter(|_| data.bytes > 0) {
        let reading_row = reading.times(row.bytes as f64 / data.bytes as f64);
        for s in &mut row.seconds {
            *s = one_after_the_other(*s, reading_row);
        }
    }
    if let Some(w) = what_if.as_mut() {
        if reading.expected > w.first_seconds {
            w.bounded_by = READING.into();
        }
        w.first_seconds += reading.expected;
    }
    Some(limits)
}

/// Writing and reading one after the other: at best the slower alone.
fn one_after_the_other(writing: Range, reading: Range) -> Range {
    Range {
        low: writing.low.max(reading.low),
        expected: writing.expected + reading.expected,
        high: writing.high + reading.high,
    }
}

/// "0.21 ms a file and 19.9 MB/s, read cold from 160 of its files"
fn costs(reads: &DataReads) -> String {
    let how = if reads.cold {
        format!(
            "read cold from {} of its files",
            thousands(reads.files_sampled)
        )
    } else {
        format!(
            "read from {} of its files, possibly from memory",
            thousands(reads.files_sampled)
        )
    };
    format!(
        "{:.2} ms a file and {} MB/s, {how}",
        reads.per_file_s.expected * 1e3,
        round_mb_s(reads.mb_s.expected)
    )
}

/// Which side limits the headline tool, in words: "Reading your data is the limit here: 7.7
/// MB/s in all, 0.21 ms a file and 19.9 MB/s, read cold from 160 of its files."
pub(super) fn sentence(answer: &Answer) -> Option<String> {
    let reads = answer.data.reads.as_ref()?;
    let opening = match answer.limited_by? {
        Side::Source => "Reading your data is the limit here",
        Side::Destination => "Your data reads faster than this destination writes it",
    };
    let in_all = Some(answer.data.bytes as f64 / 1e6 / reads.seconds.expected)
        .filter(|mb_s| mb_s.is_finite() && *mb_s > 0.0)
        .map_or(String::new(), |mb_s| {
            format!("{} MB/s in all, ", round_mb_s(mb_s))
        });
    Some(format!("{opening}: {in_all}{}.", costs(reads)))
}
