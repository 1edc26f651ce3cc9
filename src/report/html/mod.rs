//! `destbench report ID... --html FILE`: one self-contained HTML file. No script, no font, no
//! stylesheet from elsewhere; a Content-Security-Policy forbids the browser from fetching
//! anything, so opening the report never touches the network. It opens with the answer (each
//! run's verdict, chain and headline figures, from `summary`), then the tables and the charts:
//! inline SVG from `charts`, small multiples in a grid as wide as the page. It is a `maud`
//! template, which escapes every text it is given (labels, paths, chain names).

pub(in crate::report) mod charts;
mod clients;
pub(in crate::report) mod diagram;
pub(in crate::report) mod figures;
mod share;
pub(in crate::report) mod summary;
pub mod tiles;

use maud::{DOCTYPE, Markup, PreEscaped, html};

use crate::history::{Comparison, RunRecord};
use crate::report::dates::utc;
use crate::report::table;
use crate::results::RunSettings;

/// The report's own look, before the summary's.
const STYLE: &str = include_str!("report.css");

/// The look of the summary at the top (the time answer, its table, the chain), which
/// `destbench ui`'s page shares.
pub const SUMMARY_STYLE: &str = include_str!("summary.css");

/// The policy that keeps the report offline: nothing may be loaded, inline styles may apply.
pub const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/// `report --html`: the report of `records`, laid side by side in `cmp` (their comparison,
/// `history::compare::compare`, computed before: the report only formats it).
pub fn render(records: &[RunRecord], cmp: &Comparison) -> String {
    let names = table::run_names(cmp);
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta http-equiv="Content-Security-Policy" content=(CSP);
                title { "destbench: " (names.join(" vs ")) }
                style { (PreEscaped(STYLE)) (PreEscaped(SUMMARY_STYLE)) }
            }
            body {
                h1 { "destbench report" }
                (summary::summaries(records))
                (runs_table(records))
                (settings_differ(cmp))
                (results(cmp, records))
                (figures::thread_scaling(cmp))
                (clients::section(records))
                (figures::over_time(records))
                (figures::latencies(records))
                (notes(records))
                p.note {
                    "Medians of the repetitions; MB/s = 10" sup { "6" } " bytes/s; every write \
                     figure includes the flush to stable storage. Ratios against the first run; a \
                     difference is called real when Welch's t-test over the repetitions gives p < "
                    (crate::stats::SIGNIFICANCE_LEVEL) "."
                }
            }
        }
    };
    page.into_string()
}

fn runs_table(records: &[RunRecord]) -> Markup {
    let or_dash = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    html! {
        h2 { "Runs" }
        table {
            tr {
                th { "#" } th { "run" } th { "date" } th { "destination" } th { "filesystem" }
                th { "device" } th { "host" } th { "settings" }
            }
            @for (i, r) in records.iter().enumerate() {
                @let env = &r.environment;
                tr {
                    td { (i + 1) }
                    td { (r.name()) " (id " (r.id) ")" }
                    td { (utc(r.run.started_unix_s as i64)) }
                    td { (r.run.destination.path.display()) }
                    td { (or_dash(&env.filesystem.fs_type)) " " (or_dash(&env.filesystem.fs_uuid)) }
                    td {
                        (or_dash(&env.device)) " " (or_dash(&env.device_model)) " "
                        (or_dash(&env.device_serial))
                    }
                    td { (or_dash(&env.host)) " (" (or_dash(&env.kernel)) ")" }
                    td { (settings(&r.run.settings)) }
                }
            }
        }
    }
}

/// How a run was made, in a cell of the runs table.
fn settings(s: &RunSettings) -> String {
    match &s.imported_from {
        Some(tool) => format!("imported from {tool} JSON, engine {}", s.engine),
        None => format!(
            "profile {}, {} runs, seed {}, engine {}",
            s.profile, s.runs, s.seed, s.engine
        ),
    }
}

/// Before any "real difference": the settings that differ between the runs compared, and the
/// disk's health where it changed between them.
fn settings_differ(cmp: &Comparison) -> Markup {
    html! {
        @if !cmp.settings_differ.is_empty() {
            div class="warning" data-settings-differ {
                p {
                    strong { "The runs' settings differ" }
                    ", so their figures may differ for that reason:"
                }
                ul { @for line in &cmp.settings_differ { li { (line) } } }
            }
        }
        @if !cmp.health_changed.is_empty() {
            div class="warning" data-health-changed {
                p { strong { "The disk's health changed" } " between the runs:" }
                ul { @for line in &cmp.health_changed { li { (line) } } }
            }
        }
    }
}

/// Per test: the comparison table, its bar chart, and each result's repetitions in order.
fn results(cmp: &Comparison, records: &[RunRecord]) -> Markup {
    let names = table::run_names(cmp);
    html! {
        h2 { "Results" }
        @for group in &cmp.groups {
            // The table beside its chart, as two small multiples of the page's grid.
            div.grid {
                div {
                    h3 { (group.test.as_str()) }
                    (table::comparison(cmp, group, &names))
                    (figures::repetitions(records, group.test))
                }
                (figures::bars(cmp, group))
            }
        }
    }
}

/// The runs' warnings, each result's beside its name (the verdict's "likely cached" among
/// them), and the failures.
fn notes(records: &[RunRecord]) -> Markup {
    let mut items = Vec::new();
    for r in records {
        let run = &r.run;
        let warnings = crate::report::warnings::all(run)
            .into_iter()
            .map(|w| format!("warning: {w}"));
        let failures = run
            .failures
            .iter()
            .map(|f| format!("failed: {} {}: {}", f.test, f.variant, f.error));
        items.extend(warnings.chain(failures).map(|text| (r.name(), text)));
    }
    html! {
        @if !items.is_empty() {
            h2 { "Warnings and failures" }
            ul { @for (name, text) in &items { li { (name) ": " (text) } } }
        }
    }
}

#[cfg(test)]
mod tests;
