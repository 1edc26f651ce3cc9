//! The lines under the terminal table for results with figures beyond their rate (sustained,
//! throttled, tm-backup, a program's update). The figures come from the result's `details`;
//! only a program's walk is worked out, as its pass less its start-up.

use crate::results::{
    BandSizeFrom, Details, PairRates, ProgramStartDetails, Slowdown, TestResult, TmBackupDetails,
    TmPhaseFigures,
};
use crate::units::{format_bytes, thousands};

fn pct(x: f64) -> String {
    format!("{:+.0}%", -x * 100.0)
}

fn pair(p: &PairRates) -> String {
    format!(
        "write {:.1} MB/s, read {:.1} MB/s",
        p.write_mb_s, p.read_mb_s
    )
}

fn slow(s: &Slowdown) -> String {
    format!("write {}, read {}", pct(s.write), pct(s.read))
}

/// The lines for one result (none when it has no details).
pub fn lines(r: &TestResult) -> Vec<String> {
    let name = format!("{} {}", r.test, r.variant);
    match &r.details {
        None => Vec::new(),
        Some(Details::Sustained(d)) => {
            let mut out = vec![format!(
                "{name}: {} in {:.1} s, stopped at the {}; final rate {:.1} MB/s",
                format_bytes(d.bytes_written),
                d.seconds,
                d.stopped.map_or_else(
                    || "a reason this version does not know".to_string(),
                    |s| s.to_string()
                ),
                d.final_mb_s
            )];
            out.push(match &d.cliff {
                Some(c) => match c.stalled_s {
                    None => format!(
                        "  cliff after {} ({:.1} s): {:.1} MB/s before, {:.1} MB/s after",
                        format_bytes(c.bytes_before),
                        c.seconds_before,
                        c.before_mb_s,
                        c.after_mb_s
                    ),
                    Some(stall) => format!(
                        "  cliff after {} ({:.1} s): {:.1} MB/s before, then the writes stalled \
                         {stall:.1} s; {:.1} MB/s over the whole write, its flush included",
                        format_bytes(c.bytes_before),
                        c.seconds_before,
                        c.before_mb_s,
                        c.after_mb_s
                    ),
                },
                None => "  no cliff: the rate held from the start".into(),
            });
            out
        }
        Some(Details::Throttled(d)) => {
            let mut out = vec![format!(
                "{name}: device {} (scheduler {})",
                d.device.as_deref().unwrap_or("unknown"),
                d.scheduler.as_deref().unwrap_or("unknown")
            )];
            out.push(format!("  alone:                  {}", pair(&d.alone)));
            out.push(format!(
                "  together, normal:       {}  (change: {})",
                pair(&d.normal),
                slow(&d.slowdown_normal)
            ));
            if d.priority_effective {
                out.push(format!(
                    "  together, background:   {}  (change: {})",
                    pair(&d.background),
                    slow(&d.slowdown_background)
                ));
                out.push(format!("  {}", d.conclusion));
            } else {
                out.push(format!(
                    "  background priority cannot take effect: {}; with it requested the figures were {} (no effect expected)",
                    d.note,
                    pair(&d.background)
                ));
            }
            out
        }
        Some(Details::TmBackup(d)) => tm_backup(&name, d),
        Some(Details::ProgramStart(d)) => program_start(&name, r, d),
    }
}

/// A program's update: its start-up, timed apart, and the walk the rest of each pass made.
fn program_start(name: &str, r: &TestResult, d: &ProgramStartDetails) -> Vec<String> {
    let program = r
        .workload
        .as_ref()
        .and_then(|w| w.program())
        .map_or_else(|| "the program".to_string(), |p| p.to_string());
    let files = r.file_set.as_ref().map_or(0, |s| s.files);
    let walk = d.walk_per_file_s(files, r.median).map_or_else(
        || "all of each pass".to_string(),
        |per_file| {
            let rate = thousands((1.0 / per_file) as u64);
            format!("the rest of each pass walks {rate} files/s")
        },
    );
    vec![format!(
        "{name}: {program}'s start-up on an empty tree {:.1} ms (median of {}); {walk}",
        d.start_s * 1e3,
        d.samples_s.len()
    )]
}

/// tm-backup's lines: the rates, each phase, the flushes and the plain copy beside it.
fn tm_backup(name: &str, d: &TmBackupDetails) -> Vec<String> {
    let from = match d.band_size_from {
        BandSizeFrom::DestinationSize => "as Time Machine chooses for this destination's size",
        BandSizeFrom::Flag => &crate::settings::defs::BAND_SIZE.to_string(),
    };
    let phase = |what: &str, p: &TmPhaseFigures| {
        format!(
            "  {what}: {} written ({} user data) in {:.1} s, {} barriers, {} data flushes, median round {:.3} s",
            format_bytes(p.bytes_written),
            format_bytes(p.user_bytes),
            p.seconds,
            p.barriers,
            p.data_flushes,
            p.median_round_s
        )
    };
    let ratio = d.ratio_to_copy.map_or("no ratio".to_string(), |r| {
        format!("Time Machine at {r:.2} of it")
    });
    let mut out = vec![
        format!(
            "{name}: user data {:.1} MB/s, {:.1} barriers/s; bands of {} ({from}); data flush {}, full flush {}",
            d.user_data_mb_s,
            d.barriers_per_s,
            format_bytes(d.band_size_bytes),
            d.data_flush,
            d.full_flush
        ),
        phase("first backup", &d.first),
        phase("incremental ", &d.incremental),
        format!(
            "  plain copy of the same user data ({} files of {}, each flushed): {:.1} MB/s in {:.1} s; {ratio}",
            d.copy.files,
            format_bytes(d.copy.file_bytes),
            d.copy.mb_s,
            d.copy.seconds
        ),
    ];
    if let Some(b) = &d.beside_reader {
        out.push(format!(
            "  at background priority beside a reader: reader {:.1} -> {:.1} MB/s (change: {}), replay {:.1} MB/s (change: {}){}",
            b.reader_alone_mb_s,
            b.reader_beside_mb_s,
            pct(b.reader_slowdown),
            b.replay_beside_mb_s,
            pct(b.replay_slowdown),
            if b.priority_effective {
                String::new()
            } else {
                format!("; the priority cannot take effect: {}", b.note)
            }
        ));
        if b.reader_resident > 0.05 {
            out.push(format!(
                "  likely cached: {:.0}% of the reader's file stayed in the page cache after eviction",
                b.reader_resident * 100.0
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An update's line names its program, the start-up and the walk the rest of a pass made:
    /// 3,000 files at 10,000 files/s, 0.2 s of each 0.3 s pass the start-up.
    #[test]
    fn an_update_says_its_start_up_and_its_walk() {
        let r: TestResult = serde_json::from_value(serde_json::json!({
            "test": "files-copy", "variant": "small-rsync-update", "unit": "files/s",
            "median": 10_000.0, "method": "syncfs", "engine": "program", "threads": 1,
            "workload": { "kind": "file-set", "op": "update-with-rsync", "set": "small", "threads": 1 },
            "file_set": { "name": "small", "files": 3000, "bytes": 30_000_000 },
            "details": { "kind": "program-start", "start_s": 0.2, "samples_s": [0.19, 0.2, 0.21] }
        }))
        .unwrap();
        assert_eq!(
            lines(&r),
            [
                "files-copy small-rsync-update: rsync's start-up on an empty tree 200.0 ms (median \
              of 3); the rest of each pass walks 30,000 files/s"
            ]
        );
    }
}
