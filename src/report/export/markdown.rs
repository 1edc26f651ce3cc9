//! `destbench export --format md`: tables ready to paste into a forum post or a review, one per
//! test, the runs side by side with ratios and significance against the first.

use std::fmt::Write as _;

use crate::history::{Comparison, RunRecord};
use crate::report::dates::utc;
use crate::report::escape::markdown_cell as cell;
use crate::report::export::Exporter;
use crate::report::table::{self, Table};

/// `export --format md`, of the runs whose comparison (`history::compare::compare`) it holds:
/// computed before, so the export only formats it.
pub struct Markdown(pub Comparison);

impl Exporter for Markdown {
    fn serialize(&self, runs: &[RunRecord]) -> String {
        render(runs, &self.0)
    }
}

/// `records` laid side by side in `cmp`, their comparison.
fn render(records: &[RunRecord], cmp: &Comparison) -> String {
    let mut runs = Table::text_then_figures(&["#", "run", "destination", "date", "host"], &[]);
    for (i, (run, record)) in cmp.runs.iter().zip(records).enumerate() {
        runs.push([
            (i + 1).to_string(),
            format!("{} (id {})", run.name, run.id),
            format!("`{}`", run.destination.replace('`', "'")),
            utc(run.started_unix_s),
            record
                .environment
                .host
                .clone()
                .unwrap_or_else(|| "-".into()),
        ]);
    }
    let mut out = runs.markdown();
    if !cmp.settings_differ.is_empty() {
        let _ = writeln!(
            out,
            "\n**The runs' settings differ**, so their figures may differ for that reason:\n"
        );
        for line in &cmp.settings_differ {
            let _ = writeln!(out, "- {}", cell(line));
        }
    }
    if !cmp.health_changed.is_empty() {
        let _ = writeln!(out, "\n**The disk's health changed** between the runs:\n");
        for line in &cmp.health_changed {
            let _ = writeln!(out, "- {}", cell(line));
        }
    }
    for record in records {
        if let Some(headline) = crate::report::headline::tables(&record.run) {
            let _ = writeln!(out, "\n### Headline: {}\n", cell(&record.name()));
            out.push_str(&headline.block.markdown());
            if let Some(backup) = headline.backup {
                out.push('\n');
                out.push_str(&backup.markdown());
            }
        }
    }
    let names = table::run_names(cmp);
    for group in &cmp.groups {
        let _ = writeln!(out, "\n### {}\n", cell(group.test.as_str()));
        out.push_str(&table::comparison(cmp, group, &names).markdown());
    }
    let _ = writeln!(
        out,
        "\nMedians of the repetitions; MB/s = 10⁶ bytes/s; every write figure includes the flush to stable storage.{}",
        if cmp.runs.len() > 1 {
            format!(
                " Ratios against the first run; a difference is called real when Welch's t-test over the repetitions gives p < {}.",
                crate::stats::SIGNIFICANCE_LEVEL
            )
        } else {
            String::new()
        }
    );
    let _ = writeln!(out, "Measured with destbench.");
    out
}
