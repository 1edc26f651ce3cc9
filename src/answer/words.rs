//! The answer in words: the sentences every report shows first (the terminal, the HTML report
//! and the page print these, never their own). Nothing here decides; every figure comes from
//! the answer and the verdict.

use crate::probe::health::{DriveKind, Recording};
use crate::results::{
    Answer, AnswerTool, DataKind, Range, RoutineUnit, Side, SustainedStop, ToolTimes, Verdict,
    WriteCache,
};
use crate::settings::defs::{SIZE, TESTS, TIME};
use crate::units::{decimal_bytes as size, human_duration, thousands as count};

/// The answer's sentences, in the order they are shown: the time of a first and a routine
/// backup, its range and basis, the other tools, which side limits (reading the data or
/// writing it), what limits the destination and what would help, and the tests that would
/// make it better.
/// `sustained`: why the sustained write stopped, and whether the headline's pace outran it
/// (its bytes past that write charged at the write's rate).
/// `noun`: what the destination is called ("disk", "share").
pub(super) fn sentences(
    answer: &Answer,
    (verdict, noun): (Option<&Verdict>, &str),
    kind: Option<&DriveKind>,
    sustained: (Option<SustainedStop>, bool),
) -> Vec<String> {
    let headline = &answer.tools[0];
    let mut out: Vec<String> = verdict.and_then(|v| v.alarm.clone()).into_iter().collect();
    out.extend([first(answer, headline), range(headline)]);
    out.extend(answer.tools[1..].iter().map(other_tool));
    out.extend(super::source::sentence(answer));
    out.extend(limit(answer, verdict));
    out.extend(cache(answer, noun, kind, sustained));
    out.extend(answer.missing.iter().map(|m| sentence(m)));
    out
}

/// "A first backup of your data here: about 2 h 10 min (212 GB in 480,000 files, the whole
/// home volume); then about 40 s an hour."
fn first(answer: &Answer, t: &ToolTimes) -> String {
    let data = &answer.data;
    let whose = match t.tool {
        AnswerTool::TimeMachine => "A first Time Machine backup",
        AnswerTool::PlainCopy | AnswerTool::Rsync => "A first backup",
    };
    let what = match data.kind {
        DataKind::HomeVolume => "the whole home volume".to_string(),
        DataKind::Folder => data.path.clone(),
    };
    let amount = match data.files {
        Some(files) => format!("{} in {} files", size(data.bytes), count(files)),
        None => format!("{}, files not counted", size(data.bytes)),
    };
    let about = if t.bytes_only { "at least" } else { "about" };
    let then = t.routine.as_ref().map_or(String::new(), |r| {
        format!(
            "; then {about} {} {}",
            human_duration(r.seconds.expected),
            per(r.per)
        )
    });
    format!(
        "{whose} of your data here: {about} {} ({amount}, {what}){then}.",
        human_duration(t.first_seconds.expected)
    )
}

/// "With a plain copy: 1 h 55 min to 2 h 30 min, from the run's copies of its file sets …"
fn range(t: &ToolTimes) -> String {
    format!(
        "With {}: {}, from {}.",
        t.tool,
        span(t.first_seconds),
        t.basis
    )
}

/// The verdict's sentence, and what the next faster link would make of the first backup.
fn limit(answer: &Answer, verdict: Option<&Verdict>) -> Option<String> {
    let summary = verdict.map(|v| v.summary.clone())?;
    // Where reading the data limits, the verdict's "limit" is the destination's alone.
    let summary = match answer.limited_by {
        Some(Side::Source) => format!("At the destination: {summary}"),
        _ => summary,
    };
    let Some(w) = &answer.what_if else {
        return Some(summary);
    };
    let bound = if w.bounded_by == w.instead {
        String::new()
    } else {
        format!(", where {} then limits", w.bounded_by)
    };
    Some(format!(
        "{summary} On {} the same first backup would take as little as {}{bound}.",
        w.instead,
        human_duration(w.first_seconds)
    ))
}

/// What the write cache does to a first backup larger than it: found, the bytes past it at the
/// rate after it; out of reach, what was written without a drop and how to write on; not
/// looked for, what the disk's kind (SMR, QLC) does past its cache.
fn cache(
    answer: &Answer,
    noun: &str,
    kind: Option<&DriveKind>,
    (stopped, outran): (Option<SustainedStop>, bool),
) -> Option<String> {
    let data = answer.data.bytes;
    match answer.cache {
        Some(WriteCache::Found {
            bytes_before,
            before_mb_s,
            after_mb_s,
        }) => (data > bytes_before).then(|| {
            format!(
                "After its first {} this {noun} writes at {after_mb_s:.1} MB/s ({before_mb_s:.1} \
                 MB/s before, in the run's sustained write): the times charge the {} of your \
                 data past that at the slower rate.",
                size(bytes_before),
                size(data - bytes_before)
            )
        }),
        Some(WriteCache::OutOfReach {
            written_bytes,
            seconds,
            mb_s,
        }) => (data > written_bytes).then(|| {
            let why = match stopped {
                Some(SustainedStop::Steady) => " (its rate had settled)",
                _ => "",
            };
            let charged = if outran {
                format!(
                    " The run's copies went faster, in a cache this write did not meet: the \
                     times charge the {} of your data past it at {mb_s:.1} MB/s.",
                    size(data - written_bytes)
                )
            } else {
                String::new()
            };
            format!(
                "This {noun} took {} in {} at {mb_s:.1} MB/s without slowing{why}: a first backup \
                 of {} writes past any cache larger than that{}; {}{charged}",
                size(written_bytes),
                human_duration(seconds),
                size(data),
                kind.and_then(kind_past_cache)
                    .map_or(String::new(), |k| format!(", and {k}")),
                write_on(data, mb_s)
            )
        }),
        None => kind.and_then(kind_past_cache).map(|k| {
            format!(
                "A first backup of {} can take longer than this run's rate says: {k}.",
                size(data)
            )
        }),
    }
}

/// What an SMR disk or a QLC SSD does past its cache, with where the kind comes from.
fn kind_past_cache(kind: &DriveKind) -> Option<String> {
    let (what, cache) = match kind.recording {
        Recording::Smr => (
            "this disk records by SMR",
            "a cache of some GB, then far slower while it rewrites whole bands",
        ),
        Recording::Qlc => (
            "this SSD is QLC",
            "its SLC cache of some tens of GB, then far slower",
        ),
        Recording::Cmr | Recording::Tlc => return None,
    };
    Some(format!(
        "{what} ({}): it writes fast into {cache}",
        kind.basis
    ))
}

/// The command that writes on until a cache of up to the data's size fills, and how long it
/// takes at the rate measured: whole minutes, an hour at most.
fn write_on(data: u64, mb_s: f64) -> String {
    let minutes = (data as f64 / 1e6 / mb_s.max(1.0) / 60.0)
        .ceil()
        .clamp(1.0, 60.0);
    let gb = (minutes * 60.0 * mb_s / 1e3)
        .ceil()
        .min((data as f64 / 1e9).ceil());
    format!(
        "`destbench run {TESTS} sustained {TIME} {} {SIZE} {gb:.0}GB` writes on for up to {} \
         ({gb:.0} GB at this rate) to find it.",
        minutes * 60.0,
        human_duration(minutes * 60.0)
    )
}

/// "With rsync: about 2 h 40 min, 2 h 20 min to 3 h 05 min; then about 50 s for each GB that
/// changes."
fn other_tool(t: &ToolTimes) -> String {
    format!(
        "With {}: about {}, {}{}.",
        t.tool,
        human_duration(t.first_seconds.expected),
        span(t.first_seconds),
        t.routine.as_ref().map_or(String::new(), |r| format!(
            "; then about {} {}",
            human_duration(r.seconds.expected),
            per(r.per)
        ))
    )
}

/// What a routine backup's time is counted in, in words.
fn per(unit: RoutineUnit) -> &'static str {
    match unit {
        RoutineUnit::Hour => "an hour",
        RoutineUnit::GigabyteChanged => "for each GB that changes",
    }
}

/// "12 min to 16 min", or one figure where the range is one.
fn span(r: Range) -> String {
    let (low, high) = (human_duration(r.low), human_duration(r.high));
    if low == high {
        low
    } else {
        format!("{low} to {high}")
    }
}

/// `text` as a sentence: a capital first letter and a full stop.
fn sentence(text: &str) -> String {
    let mut chars = text.chars();
    let first: String = chars
        .next()
        .into_iter()
        .flat_map(char::to_uppercase)
        .collect();
    format!("{first}{}.", chars.as_str().trim_end_matches('.'))
}
