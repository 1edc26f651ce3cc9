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

use crate::history::{Comparison, RunRecord, compare};
use crate::report::dates::utc;
use crate::report::escape::html as escape;
use crate::report::export::Exporter;
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

/// `report --html`.
pub struct Html;

impl Exporter for Html {
    fn serialize(&self, records: &[RunRecord]) -> String {
        render(&compare::compare(records), records)
    }
}

fn render(cmp: &Comparison, records: &[RunRecord]) -> String {
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
mod tests {
    use super::*;
    use crate::probe::{Bandwidth, Ceiling, Chain, Node, NodeKind};
    use crate::results::{RunReport, Verdict};

    fn record(id: i64, run: RunReport) -> RunRecord {
        RunRecord {
            id,
            stored_unix_s: 0,
            environment: Default::default(),
            document: serde_json::to_value(&run).unwrap(),
            run,
        }
    }

    fn link(kind: NodeKind, label: &str, bandwidth: Bandwidth) -> Node {
        let mut node = Node::new(kind, label);
        node.bandwidth = bandwidth;
        node
    }

    fn usb_chain() -> Chain {
        let mut root = Node::new(NodeKind::Mount, "ext4 at /mnt");
        root.children.push(link(
            NodeKind::Transport,
            "USB 2.0 (BOT)",
            Bandwidth::Known(Ceiling {
                link: "USB 2.0 (BOT)".into(),
                row: "usb2-bot".into(),
                rated: "480 Mbit/s".into(),
                practical_mb_s: 35.0,
                practical_max_mb_s: 40.0,
                source: "links table".into(),
                declared: false,
            }),
        ));
        root.children.push(link(
            NodeKind::Transport,
            "virtio",
            Bandwidth::Unknown {
                why: "virtual".into(),
            },
        ));
        Chain {
            path: "/mnt".into(),
            root,
            notes: Vec::new(),
        }
    }

    #[test]
    fn file_set_threads_and_a_chain_get_their_charts() {
        let result = |threads: usize, median: f64| {
            serde_json::json!({ "test": "files-copy", "variant": format!("small-{threads}t-cache-on"),
                "unit": "MB/s", "median": median, "samples": [median, median], "threads": threads,
                "method": "syncfs", "engine": "sync" })
        };
        let mut run: RunReport = serde_json::from_value(serde_json::json!({
            "settings": { "label": "nas" },
            "results": [ result(1, 10.0), result(2, 18.0), result(4, 30.0),
                { "test": "seq-write", "variant": "SEQ1M-Q8T1", "unit": "MB/s", "median": 33.0,
                  "method": "direct", "engine": "sync" } ],
        }))
        .unwrap();
        run.chain = Some(usb_chain());
        run.verdict = Some(Verdict {
            summary: "limited by USB 2.0 (BOT)".into(),
            details: vec!["33.0 MB/s of ~35".into()],
            measured_mb_s: Some(33.0),
            measured_by: Some("seq-write SEQ1M-Q8T1".into()),
            ..Verdict::default()
        });
        let records = [record(1, run.clone()), record(2, run)];
        let html = Html.serialize(&records);
        assert_eq!(
            html.matches("data-chart=\"threads\"").count(),
            1,
            "one thread-scaling chart for both runs' two lines"
        );
        assert!(
            html.contains("</svg>nas small-cache-on</li>"),
            "one line for the 1..4-thread variants: {html}"
        );
        // Past eight lines, a chart per run: no two lines of a chart share a colour.
        let mut many = records[0].clone();
        let sets = ["small", "medium", "large", "mixed", "source"];
        let results = sets.iter().flat_map(|set| [1, 4].map(move |t| (set, t)));
        many.run = serde_json::from_value(serde_json::json!({ "results": results
            .map(|(set, t)| serde_json::json!({ "test": "files-copy",
                "variant": format!("{set}-{t}t-cache-on"), "median": 1.0, "threads": t,
                "method": "syncfs", "engine": "sync" }))
            .collect::<Vec<_>>() }))
        .unwrap();
        let split = Html.serialize(&[many.clone(), many]);
        assert_eq!(split.matches("data-chart=\"threads\"").count(), 2);
        assert!(html.contains("data-chart=\"chain\"") && html.contains("USB 2.0"));
        assert!(html.contains("<b>Verdict:</b> limited by USB 2.0 (BOT) (33.0 MB/s of ~35)"));
        // The summary comes first: the verdict before the runs table and every chart.
        let verdict = html.find("<b>Verdict:</b>").unwrap();
        assert!(verdict < html.find("<h2>Runs</h2>").unwrap());
        assert!(verdict < html.find("<figure").unwrap());
        // A link of known speed: its ceiling and the measured rate against it; an unknown one
        // says so in words.
        assert!(
            html.contains("ceiling ~35 MB/s (rated 480 Mbit/s)"),
            "{html}"
        );
        assert!(
            html.contains("<meter min=\"0\" max=\"35\" value=\"33\""),
            "{html}"
        );
        assert!(html.contains("<b>virtio</b><span>speed unknown: virtual</span>"));
        // The headline: SEQ1M-Q8T1 written, small files per second from the copy a backup tool
        // makes (one thread; without a cache-off copy, the cached one), as on the first screen.
        assert!(
            html.contains(
                "<tr><td>SEQ1M-Q8T1</td><td class=\"n\">–</td><td class=\"n\">33.0</td></tr>"
            ),
            "{html}"
        );
        assert!(
            html.contains("<td>small files</td><td>files-copy small-1t-cache-on</td>"),
            "{html}"
        );
        assert!(html.contains("Repetitions in the order they ran"));
    }

    /// Runs made with different settings are flagged before their results are set side by side;
    /// runs made alike are not.
    #[test]
    fn differing_settings_are_warned_before_the_results() {
        let run = |runs: usize| -> RunReport {
            serde_json::from_value(serde_json::json!({ "settings": { "runs": runs } })).unwrap()
        };
        let html = Html.serialize(&[record(1, run(3)), record(2, run(5))]);
        let warning = html
            .find("data-settings-differ")
            .expect("no settings warning");
        assert!(warning < html.find("<h2>Results</h2>").unwrap());
        assert!(
            html.contains("<li>repetitions: [1] 3, [2] 5</li>"),
            "{html}"
        );
        let alike = Html.serialize(&[record(1, run(3)), record(2, run(3))]);
        assert!(!alike.contains("data-settings-differ"));
    }

    #[test]
    fn a_cached_figure_is_noted_beside_its_result() {
        let mut run: RunReport = serde_json::from_value(serde_json::json!({
            "results": [ { "test": "seq-read", "variant": "SEQ1M-Q8T1", "median": 120.0,
                "method": "evict", "engine": "sync" } ],
        }))
        .unwrap();
        run.chain = Some(usb_chain());
        run.verdict = Some(crate::verdict::of(&run));
        let html = Html.serialize(&[record(3, run)]);
        assert!(
            html.contains("warning: seq-read SEQ1M-Q8T1: likely cached: 120 MB/s"),
            "{html}"
        );
    }

    /// The chain of a run whose links report no speed is still drawn as boxes, and a run with no
    /// chain gets a sentence: never the chain's JSON.
    #[test]
    fn a_chain_without_a_chart_is_a_sentence_not_json() {
        let mut unknown = usb_chain();
        unknown.root.children.remove(0);
        let mut with_chain: RunReport =
            serde_json::from_value(serde_json::json!({ "settings": { "label": "vm \"disk\"" } }))
                .unwrap();
        with_chain.chain = Some(unknown);
        let without: RunReport = serde_json::from_value(serde_json::json!({})).unwrap();
        let html = Html.serialize(&[record(1, with_chain), record(2, without)]);
        // The summaries at the top carry the chains: a diagram of boxes, or a sentence.
        let section = &html[html.find("<section class=\"summary\">").unwrap()..];
        let section = &section[..section.find("<h2>Runs</h2>").unwrap_or(section.len())];
        assert!(section.contains("data-chart=\"chain\""), "{section}");
        assert!(
            section.contains("No chain recorded with this run."),
            "{section}"
        );
        for json in ["{", "}", "\\\"", "&quot;root", "\"kind\""] {
            assert!(!section.contains(json), "{json} in {section}");
        }
    }

    /// Time Machine's own logged checks (a Mac's run) follow destbench's tm-check lines.
    #[test]
    fn time_machines_own_checks_are_shown_after_destbenchs() {
        let run: RunReport = serde_json::from_value(serde_json::json!({
            "destination": { "path": "/Volumes/b", "time_machine_checks": [ { "concurrent": true,
                "files": 500, "file_size": "4 KB", "mb_s": 1.18, "destination": "/Volumes/b",
                "seconds": 1.736, "when": "2026-11-24 02:14:10" } ] },
            "results": [ { "test": "tm-check", "variant": "50MB", "median": 80.0,
                "method": "direct", "engine": "sync" } ],
            "time_machine_log": [ "Wrote 1 50 MB file at 80.00 MB/s to \"/Volumes/b\" in 0.625 seconds" ],
        }))
        .unwrap();
        let html = Html.serialize(&[record(1, run)]);
        let ours = html
            .find("Wrote 1 50 MB file at 80.00")
            .expect("destbench's line");
        let theirs = html
            .find("2026-11-24 02:14:10: Concurrently wrote 500 4 KB files at 1.18 MB/s in 1.736 seconds")
            .unwrap_or_else(|| panic!("Time Machine's line in {html}"));
        assert!(ours < theirs);
    }
}
