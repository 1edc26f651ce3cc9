//! `destbench report ID... --html FILE`: one self-contained HTML file. No script, no font, no
//! stylesheet from elsewhere; a Content-Security-Policy forbids the browser from fetching
//! anything, so opening the report never touches the network. Charts are inline SVG from
//! `charts`; every user-supplied text (labels, paths, chain names) is escaped.

use std::fmt::Write as _;

use super::Exporter;
use super::escape::html as escape;
use super::figures;
use super::table;
use crate::history::{Comparison, RunRecord, compare};
use crate::report::history::utc;

const STYLE: &str = "
body { font-family: sans-serif; margin: 2em auto; max-width: 1400px; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f3f3f3; }
figure.chart { margin: 0.5em 0 1.5em; }
.real { color: #b00; font-weight: bold; }
.note { color: #666; }
";

/// The policy that keeps the report offline: nothing may be loaded, inline styles may apply.
const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

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
         <title>destbench: {}</title>\n<style>{STYLE}</style>\n</head>\n<body>",
        escape(&names.join(" vs "))
    );
    let _ = writeln!(out, "<h1>destbench report</h1>");
    runs_table(&mut out, records);
    results(&mut out, cmp);
    figures::thread_scaling(&mut out, cmp);
    super::clients::html(&mut out, records);
    figures::over_time(&mut out, records);
    figures::latencies(&mut out, records);
    figures::chains(&mut out, records);
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
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{} (id {})</td><td>{}</td><td>{}</td><td>{} {}</td><td>{} {} {}</td>\
             <td>{} ({})</td><td>profile {}, {} runs, seed {}, engine {}</td></tr>",
            i + 1,
            escape(&r.name()),
            r.id,
            utc(r.run.started_unix_s as i64),
            escape(&r.run.destination.path.display().to_string()),
            or_dash(&env.fs_type),
            or_dash(&env.fs_uuid),
            or_dash(&env.device),
            or_dash(&env.device_model),
            or_dash(&env.device_serial),
            or_dash(&env.host),
            or_dash(&env.kernel),
            s.profile,
            s.runs,
            s.seed,
            escape(&s.engine)
        );
    }
    let _ = writeln!(out, "</table>");
}

fn results(out: &mut String, cmp: &Comparison) {
    let _ = writeln!(out, "<h2>Results</h2>");
    let names = table::run_names(cmp);
    for group in &cmp.groups {
        let _ = writeln!(out, "<h3>{}</h3>", escape(group.test.as_str()));
        out.push_str(&table::comparison(cmp, group, &names).html());
        figures::bars(out, cmp, group);
    }
}

/// The runs' warnings, each result's beside its name (the verdict's "likely cached" among
/// them), and the failures.
fn notes(out: &mut String, records: &[RunRecord]) {
    let mut items = String::new();
    for r in records {
        let run = &r.run;
        let warnings = run.warnings.iter().cloned();
        let all = warnings
            .chain(run.labelled_result_warnings())
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
            ..Verdict::default()
        });
        let records = [record(1, run)];
        let html = Html.serialize(&records);
        assert!(
            html.contains("data-chart=\"threads\""),
            "no thread-scaling chart"
        );
        assert!(
            html.contains("nas small-cache-on"),
            "one line for the 1..4-thread variants"
        );
        assert!(html.contains("data-chart=\"chain\"") && html.contains("USB 2.0"));
        assert!(html.contains("measured: seq-write SEQ1M-Q8T1 33.0 MB/s"));
        assert!(html.contains("<b>Verdict:</b> limited by USB 2.0 (BOT) (33.0 MB/s of ~35)"));
    }

    #[test]
    fn chain_links_walk_the_tree_and_keep_unknown_links_unknown() {
        assert_eq!(
            figures::chain_links(&usb_chain()),
            vec![
                ("USB 2.0 (BOT)".to_string(), Some(35.0)),
                ("virtio".to_string(), None)
            ]
        );
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
}
