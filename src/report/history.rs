//! Terminal output of the history commands: the list of runs, one stored run, and runs compared
//! side by side. Plain text; everything shown comes from the store or the comparison model.

use std::fmt::Write as _;

use crate::history::{Comparison, HistoryEntry, RunRecord};

/// "2026-04-05 13:22 UTC" from Unix seconds (proleptic Gregorian, no leap seconds).
pub fn utc(unix_s: i64) -> String {
    let days = unix_s.div_euclid(86_400);
    let secs = unix_s.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        secs / 3600,
        secs % 3600 / 60
    )
}

/// Calendar date of a day count since 1970-01-01, counting in 400-year eras (146097 days) that
/// start on 1 March, so the leap day falls at the end of each era's year.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468; // days from 0000-03-01 to 1970-01-01
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * month_from_march + 2) / 5 + 1) as u32;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Columns separated by two spaces; columns from `numeric_from` on are right-aligned.
pub(crate) fn columns(header: &[&str], rows: &[Vec<String>], numeric_from: usize) -> String {
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .chain([header[i].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: Vec<&str>| {
        let mut text = cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let pad = " ".repeat(widths[i].saturating_sub(c.chars().count()));
                if i >= numeric_from {
                    format!("{pad}{c}")
                } else {
                    format!("{c}{pad}")
                }
            })
            .collect::<Vec<_>>()
            .join("  ");
        text.truncate(text.trim_end().len());
        text.push('\n');
        text
    };
    let mut out = line(header.to_vec());
    for r in rows {
        out.push_str(&line(r.iter().map(String::as_str).collect()));
    }
    out
}

fn figure(value: Option<f64>) -> String {
    value.map_or("-".into(), |v| format!("{v:.2}"))
}

/// `destbench history`.
pub fn list(entries: &[HistoryEntry]) -> String {
    if entries.is_empty() {
        return "no runs stored yet\n".into();
    }
    let rows: Vec<Vec<String>> = entries
        .iter()
        .map(|e| {
            vec![
                e.id.to_string(),
                utc(e.started_unix_s),
                e.label.clone().unwrap_or_default(),
                e.destination.clone(),
                figure(e.seq_write_mb_s),
                figure(e.seq_read_mb_s),
                e.headline_variant.clone().unwrap_or_default(),
                if e.failures > 0 {
                    format!("{} failed", e.failures)
                } else {
                    String::new()
                },
            ]
        })
        .collect();
    columns(
        &[
            "id",
            "date",
            "label",
            "destination",
            "write MB/s",
            "read MB/s",
            "(variant)",
            "",
        ],
        &rows,
        4,
    )
}

/// `destbench show ID`.
pub fn show(record: &RunRecord) -> String {
    let run = &record.run;
    let env = &record.environment;
    let mut out = String::new();
    let _ = writeln!(out, "run {}: {}", record.id, record.name());
    let _ = writeln!(out, "date         {}", utc(run.started_unix_s));
    let _ = writeln!(out, "destination  {}", run.destination.path);
    let known = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    let _ = writeln!(
        out,
        "filesystem   {} (UUID {}), device {} {} serial {}",
        known(&env.fs_type),
        known(&env.fs_uuid),
        known(&env.device),
        known(&env.device_model),
        known(&env.device_serial)
    );
    let _ = writeln!(
        out,
        "host         {}, kernel {}, destbench {}",
        known(&env.host),
        known(&env.kernel),
        env.destbench_version
    );
    let s = &run.settings;
    let _ = writeln!(
        out,
        "settings     profile {}, {} runs, seed {}, engine {}, {:.1} s per block test",
        s.profile, s.runs, s.seed, s.engine, s.block_duration_s
    );
    if let Some(verdict) = &run.verdict {
        let _ = writeln!(out, "verdict      {}", verdict_text(verdict));
    }
    let _ = writeln!(out);
    let rows: Vec<Vec<String>> = run
        .results
        .iter()
        .map(|r| {
            let lat = r.latency_us;
            vec![
                r.test.clone(),
                r.variant.clone(),
                format!("{:.2}", r.median),
                format!("{:.2}", r.min),
                format!("{:.2}", r.max),
                format!("{:.1}%", r.cv * 100.0),
                lat.map_or("-".into(), |l| format!("{:.0}", l.p50)),
                lat.map_or("-".into(), |l| format!("{:.0}", l.p99)),
                r.method.clone(),
                r.samples
                    .iter()
                    .map(|x| format!("{x:.2}"))
                    .collect::<Vec<_>>()
                    .join(" "),
            ]
        })
        .collect();
    out.push_str(&columns(
        &[
            "test", "variant", "median", "min", "max", "cv", "p50 µs", "p99 µs", "method",
            "samples",
        ],
        &rows,
        2,
    ));
    let warnings = run
        .warnings
        .iter()
        .cloned()
        .chain(run.results.iter().flat_map(|r| {
            r.warnings
                .iter()
                .map(move |w| format!("{} {}: {w}", r.test, r.variant))
        }));
    for (i, w) in warnings.enumerate() {
        if i == 0 {
            let _ = writeln!(out, "\nwarnings:");
        }
        let _ = writeln!(out, "  - {w}");
    }
    for (i, f) in run.failures.iter().enumerate() {
        if i == 0 {
            let _ = writeln!(out, "\nfailed:");
        }
        let _ = writeln!(out, "  - {} {}: {}", f.test, f.variant, f.error);
    }
    out
}

/// A JSON value as one line: strings bare, anything else compact JSON.
/// A stored verdict in words: its summary and details (`verdict` in `destbench.run/1`).
pub(crate) fn verdict_text(value: &serde_json::Value) -> String {
    match value.get("summary").and_then(|s| s.as_str()) {
        Some(summary) => {
            let details: Vec<&str> = value["details"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|d| d.as_str())
                .collect();
            if details.is_empty() {
                summary.to_string()
            } else {
                format!("{summary} ({})", details.join("; "))
            }
        }
        None => json_text(value),
    }
}

pub(crate) fn json_text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `destbench compare`: per test, the medians side by side, each with its ratio to the first run
/// and whether the difference is real.
pub fn compare(cmp: &Comparison) -> String {
    let mut out = String::new();
    for (i, run) in cmp.runs.iter().enumerate() {
        let _ = writeln!(
            out,
            "[{}] run {}: {} — {} ({})",
            i + 1,
            run.id,
            run.name,
            run.destination,
            utc(run.started_unix_s)
        );
    }
    let names: Vec<String> = (1..=cmp.runs.len()).map(|i| format!("[{i}]")).collect();
    for group in &cmp.groups {
        let mut header = vec!["variant".to_string(), "unit".to_string()];
        for (i, name) in names.iter().enumerate() {
            header.push(name.clone());
            if i > 0 {
                header.push(format!("{name}/[1]"));
                header.push(format!("{name} vs [1]"));
            }
        }
        let rows: Vec<Vec<String>> = group
            .rows
            .iter()
            .map(|row| {
                let mut cells = vec![row.variant.clone(), row.unit.clone()];
                for (i, cell) in row.cells.iter().enumerate() {
                    cells.push(
                        cell.as_ref()
                            .map_or("-".into(), |c| format!("{:.2}", c.median)),
                    );
                    if i > 0 {
                        let c = cell.as_ref();
                        cells.push(
                            c.and_then(|c| c.ratio)
                                .map_or("-".into(), |r| format!("{r:.2}x")),
                        );
                        cells.push(
                            c.and_then(|c| c.verdict.clone())
                                .unwrap_or_else(|| "-".into()),
                        );
                    }
                }
                cells
            })
            .collect();
        let header: Vec<&str> = header.iter().map(String::as_str).collect();
        let _ = writeln!(out, "\n{}", group.test);
        out.push_str(&columns(&header, &rows, 2));
    }
    let _ = writeln!(
        out,
        "\nmedians; ratios against [1]; \"real\" when Welch's t-test over the repetitions gives p < {}",
        crate::stats::SIGNIFICANCE_LEVEL
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_in_utc() {
        assert_eq!(utc(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00 UTC");
        assert_eq!(utc(1_709_210_096), "2024-02-29 12:34 UTC");
        assert_eq!(utc(4_102_444_799), "2099-12-31 23:59 UTC");
        assert_eq!(utc(-86_400), "1969-12-31 00:00 UTC");
    }
}
