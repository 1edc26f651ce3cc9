//! `destbench export --format md`: tables ready to paste into a forum post or a review, one per
//! test, the runs side by side with ratios and significance against the first.

use std::fmt::Write as _;

use crate::history::{Comparison, RunRecord};
use crate::report::history::utc;

/// Makes text safe inside a Markdown table cell: pipes would split the cell, line breaks would
/// end the table, and HTML tags would be rendered by most forums.
fn cell(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace(['\n', '\r'], " ")
}

pub fn render(cmp: &Comparison, records: &[RunRecord]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "| # | run | destination | date | host |");
    let _ = writeln!(out, "|---|---|---|---|---|");
    for (i, (run, record)) in cmp.runs.iter().zip(records).enumerate() {
        let _ = writeln!(
            out,
            "| {} | {} (id {}) | `{}` | {} | {} |",
            i + 1,
            cell(&run.name),
            run.id,
            cell(&run.destination).replace('`', "'"),
            utc(run.started_unix_s),
            cell(record.environment.host.as_deref().unwrap_or("-"))
        );
    }
    let several = cmp.runs.len() > 1;
    for group in &cmp.groups {
        let _ = writeln!(out, "\n### {}\n", cell(&group.test));
        let mut header = String::from("| variant |");
        let mut rule = String::from("|---|");
        for (i, run) in cmp.runs.iter().enumerate() {
            let _ = write!(header, " {} |", cell(&run.name));
            rule.push_str("---:|");
            if i > 0 {
                header.push_str(" ratio | difference |");
                rule.push_str("---:|---|");
            }
        }
        let _ = writeln!(out, "{header}\n{rule}");
        for row in &group.rows {
            let _ = write!(out, "| {} ({}) |", cell(&row.variant), cell(&row.unit));
            for (i, c) in row.cells.iter().enumerate() {
                let _ = write!(
                    out,
                    " {} |",
                    c.as_ref()
                        .map_or("–".into(), |c| format!("{:.2}", c.median))
                );
                if i > 0 {
                    let c = c.as_ref();
                    let ratio = c
                        .and_then(|c| c.ratio)
                        .map_or("–".into(), |r| format!("{r:.2}×"));
                    let verdict = c
                        .and_then(|c| c.verdict.clone())
                        .unwrap_or_else(|| "–".into());
                    let _ = write!(out, " {ratio} | {} |", cell(&verdict));
                }
            }
            out.push('\n');
        }
    }
    let _ = writeln!(
        out,
        "\nMedians of the repetitions; MB/s = 10⁶ bytes/s; every write figure includes the flush to stable storage.{}",
        if several {
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

#[cfg(test)]
mod tests {
    use super::cell;

    #[test]
    fn cells_cannot_break_the_table_or_inject_html() {
        assert_eq!(cell("a|b"), "a\\|b");
        assert_eq!(cell("<script>x</script>"), "&lt;script&gt;x&lt;/script&gt;");
        assert_eq!(cell("one\ntwo"), "one two");
    }
}
