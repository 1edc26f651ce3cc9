//! `destbench report ID... --html FILE`: one self-contained HTML file. No script, no font, no
//! stylesheet from elsewhere; a Content-Security-Policy forbids the browser from fetching
//! anything, so opening the report never touches the network. It opens with the answer (each
//! run's verdict, chain and headline figures, from `summary`), then the tables and the charts:
//! inline SVG from `charts`, small multiples in a grid as wide as the page. Every user-supplied
//! text (labels, paths, chain names) is escaped.

pub(in crate::report) mod charts;
pub(in crate::report) mod diagram;
pub(in crate::report) mod figures;
pub(in crate::report) mod summary;
pub mod tiles;

use std::fmt::Write as _;

use crate::history::{Comparison, RunRecord};
use crate::report::dates::utc;
use crate::report::escape::html as escape;
use crate::report::table;

const STYLE: &str = "
body { font-family: sans-serif; margin: 1em 2em; color: #222; background: #fff; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f3f3f3; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr)); gap: 1em; }
figure.chart { margin: 0; border: 1px solid #e4e4e4; padding: 0.4em; }
figure.chart > svg { display: block; width: 100%; height: auto; }
ul.legend { list-style: none; margin: 0.3em 0 0; padding: 0; display: flex; flex-wrap: wrap; gap: 0.2em 1.2em; font-size: 0.9em; }
ul.legend svg.swatch { vertical-align: middle; margin-right: 0.35em; }
section.summary { border: 2px solid #888; padding: 0.2em 1em 0.6em; margin-bottom: 1.5em; }
p.verdict { font-size: 1.15em; }
.headline { display: flex; flex-wrap: wrap; gap: 0 2em; align-items: flex-start; }
.real { color: #b00; font-weight: bold; }
.note { color: #666; }
";

/// The look of the summary at the top (the time answer, its table, the chain), which
/// `destbench ui`'s page shares.
pub const SUMMARY_STYLE: &str = include_str!("summary.css");

/// The policy that keeps the report offline: nothing may be loaded, inline styles may apply.
pub const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/// `report --html`: the report of `records`, laid side by side in `cmp` (their comparison,
/// `history::compare::compare`, computed before: the report only formats it).
pub fn render(records: &[RunRecord], cmp: &Comparison) -> String {
    let names = table::run_names(cmp);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n\
         <title>destbench: {}</title>\n<style>{STYLE}{SUMMARY_STYLE}</style>\n</head>\n<body>",
        escape(&names.join(" vs "))
    );
    let _ = writeln!(out, "<h1>destbench report</h1>");
    summary::summaries(&mut out, records);
    runs_table(&mut out, records);
    settings_differ(&mut out, cmp);
    results(&mut out, cmp, records);
    figures::thread_scaling(&mut out, cmp);
    crate::report::clients::html(&mut out, records);
    figures::over_time(&mut out, records);
    figures::latencies(&mut out, records);
    notes(&mut out, records);
    let _ = writeln!(
        out,
        "<p class=\"note\">Medians of the repetitions; MB/s = 10<sup>6</sup> bytes/s; every write \
         figure includes the flush to stable storage. Ratios against the first run; a difference \
         is called real when Welch's t-test over the repetitions gives p &lt; {}.</p>\n</body>\n</html>",
        crate::stats::SIGNIFICANCE_LEVEL
    );
    out
}

fn runs_table(out: &mut String, records: &[RunRecord]) {
    let _ = writeln!(
        out,
        "<h2>Runs</h2>\n<table>\n<tr><th>#</th><th>run</th><th>date</th><th>destination</th>\
         <th>filesystem</th><th>device</th><th>host</th><th>settings</th></tr>"
    );
    for (i, r) in records.iter().enumerate() {
        let env = &r.environment;
        let or_dash = |v: &Option<String>| escape(v.as_deref().unwrap_or("-"));
        let s = &r.run.settings;
        let settings = match &s.imported_from {
            Some(tool) => format!("imported from {tool} JSON, engine {}", s.engine),
            None => format!(
                "profile {}, {} runs, seed {}, engine {}",
                s.profile, s.runs, s.seed, s.engine
            ),
        };
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{} (id {})</td><td>{}</td><td>{}</td><td>{} {}</td><td>{} {} {}</td>\
             <td>{} ({})</td><td>{}</td></tr>",
            i + 1,
            escape(&r.name()),
            r.id,
            utc(r.run.started_unix_s as i64),
            escape(&r.run.destination.path.display().to_string()),
            or_dash(&env.filesystem.fs_type),
            or_dash(&env.filesystem.fs_uuid),
            or_dash(&env.device),
            or_dash(&env.device_model),
            or_dash(&env.device_serial),
            or_dash(&env.host),
            or_dash(&env.kernel),
            escape(&settings)
        );
    }
    let _ = writeln!(out, "</table>");
}

/// Before any "real difference": the settings that differ between the runs compared.
fn settings_differ(out: &mut String, cmp: &Comparison) {
    if cmp.settings_differ.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<div class=\"warning\" data-settings-differ><p><strong>The runs' settings differ</strong>, \
         so their figures may differ for that reason:</p>\n<ul>"
    );
    for line in &cmp.settings_differ {
        let _ = writeln!(out, "<li>{}</li>", escape(line));
    }
    let _ = writeln!(out, "</ul></div>");
}

/// Per test: the comparison table, its bar chart, and each result's repetitions in order.
fn results(out: &mut String, cmp: &Comparison, records: &[RunRecord]) {
    let _ = writeln!(out, "<h2>Results</h2>");
    let names = table::run_names(cmp);
    for group in &cmp.groups {
        // The table beside its chart, as two small multiples of the page's grid.
        let _ = writeln!(
            out,
            "<div class=\"grid\"><div>\n<h3>{}</h3>",
            escape(group.test.as_str())
        );
        out.push_str(&table::comparison(cmp, group, &names).html());
        figures::repetitions(out, records, group.test);
        let _ = writeln!(out, "</div>");
        figures::bars(out, cmp, group);
        let _ = writeln!(out, "</div>");
    }
}

/// The runs' warnings, each result's beside its name (the verdict's "likely cached" among
/// them), and the failures.
fn notes(out: &mut String, records: &[RunRecord]) {
    let mut items = String::new();
    for r in records {
        let run = &r.run;
        let all = crate::report::warnings::all(run)
            .into_iter()
            .map(|w| format!("warning: {w}"))
            .chain(
                run.failures
                    .iter()
                    .map(|f| format!("failed: {} {}: {}", f.test, f.variant, f.error)),
            );
        for text in all {
            let _ = writeln!(items, "<li>{}: {}</li>", escape(&r.name()), escape(&text));
        }
    }
    if !items.is_empty() {
        let _ = writeln!(out, "<h2>Warnings and failures</h2>\n<ul>\n{items}</ul>");
    }
}

#[cfg(test)]
mod tests;
