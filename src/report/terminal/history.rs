//! Terminal output of the history commands: the list of runs, one stored run, and runs compared
//! side by side. Plain text; everything shown comes from the store or the comparison model.

use std::fmt::Write as _;

use crate::history::{Comparison, HistoryEntry, RunRecord};
use crate::report::dates::utc;
use crate::report::escape;
use crate::report::table::{self, Table};
use crate::report::terminal::{self, Style};

fn figure(value: Option<f64>) -> String {
    value.map_or("-".into(), |v| format!("{v:.2}"))
}

/// `destbench history`.
pub fn list(entries: &[HistoryEntry]) -> String {
    if entries.is_empty() {
        return "no runs stored yet\n".into();
    }
    let mut table = Table::text_then_figures(
        &["id", "date", "label", "destination"],
        &["write MB/s", "read MB/s", "(variant)", ""],
    );
    for e in entries {
        table.push([
            e.id.to_string(),
            utc(e.started_unix_s),
            escape::terminal(e.label.as_deref().unwrap_or_default()),
            escape::terminal(&crate::history::with_filesystem(
                &e.destination,
                &e.filesystem,
            )),
            figure(e.sequential.seq_write_mb_s),
            figure(e.sequential.seq_read_mb_s),
            e.sequential.headline_variant.clone().unwrap_or_default(),
            if e.failures > 0 {
                format!("{} failed", e.failures)
            } else {
                String::new()
            },
        ]);
    }
    table.text(&plain)
}

/// Table headers as they are, without styling.
fn plain(header: &str) -> String {
    header.to_string()
}

/// `destbench show ID`.
pub fn show(record: &RunRecord, verbose: bool) -> String {
    let run = &record.run;
    let env = &record.environment;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "run {}: {}",
        record.id,
        escape::terminal(&record.name())
    );
    let _ = writeln!(out, "date         {}", utc(run.started_unix_s as i64));
    let known = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    let _ = writeln!(
        out,
        "filesystem   {} (UUID {}), device {} {} serial {}",
        known(&env.filesystem.fs_type),
        known(&env.filesystem.fs_uuid),
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
    let _ = writeln!(out, "seed         {}\n", run.settings.seed);
    // Then the run as `destbench run` reported it, and every repetition's figure.
    out.push_str(&terminal::render(
        run,
        Style { color: false },
        terminal::Layout::detect(verbose, verbose),
    ));
    let mut samples = Table::text_then_figures(
        &["test", "variant", "unit", "samples (one per repetition)"],
        &[],
    );
    for r in &run.results {
        let figures: Vec<String> = r.samples.iter().map(|x| format!("{x:.2}")).collect();
        samples.push([
            r.test.to_string(),
            r.variant.clone(),
            r.unit.as_str().to_string(),
            figures.join(" "),
        ]);
    }
    if !samples.rows.is_empty() {
        out.push('\n');
        out.push_str(&samples.text(&plain));
    }
    if verbose {
        out.push_str(&terminal::repetitions(run));
    }
    out
}

/// `destbench compare`: per test, the medians side by side, each with its ratio to the first run
/// and whether the difference is real.
pub fn compare(cmp: &Comparison) -> String {
    let mut out = String::new();
    for (i, run) in cmp.runs.iter().enumerate() {
        let _ = writeln!(
            out,
            "[{}] run {}: {} — {} ({}){}",
            i + 1,
            run.id,
            escape::terminal(&run.name),
            escape::terminal(&run.destination),
            utc(run.started_unix_s),
            if run.clients > 1 {
                format!(", {} clients (aggregate figures)", run.clients)
            } else {
                String::new()
            }
        );
        if let Some(answer) = &run.answer {
            let _ = writeln!(out, "    {}", escape::terminal(answer));
        }
    }
    if !cmp.settings_differ.is_empty() {
        // Before any verdict: a "real difference" may be the settings', not the destination's.
        let _ = writeln!(
            out,
            "\nwarning: the runs' settings differ, so their figures may differ for that reason:"
        );
        for line in &cmp.settings_differ {
            let _ = writeln!(out, "  - {line}");
        }
    }
    if !cmp.health_changed.is_empty() {
        let _ = writeln!(out, "\nthe disk's health changed between the runs:");
        for line in &cmp.health_changed {
            let _ = writeln!(out, "  - {line}");
        }
    }
    let names: Vec<String> = (1..=cmp.runs.len()).map(|i| format!("[{i}]")).collect();
    for group in &cmp.groups {
        let _ = writeln!(out, "\n{}", group.test);
        out.push_str(&table::comparison(cmp, group, &names).text(&plain));
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
        assert_eq!(utc(i64::MAX), "9223372036854775807 s after 1970 UTC");
    }
}
