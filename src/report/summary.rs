//! The top of the HTML report, one block per run: the verdict, the chain drawn as boxes from the
//! destination to the wire (each link's practical ceiling beside the measured rate, as a
//! `<meter>` the browser scales), and the headline table (the four block figures read and write,
//! small files per second, mixed MB/s, Time Machine's check). Everything shown is in the run
//! document: the verdict's figures, the chain's links, the results the headline picks.

use std::fmt::Write as _;

use super::escape::html as escape;
use super::tiles::{NO_HEADLINE, verdict};
use crate::history::RunRecord;
use crate::probe::{Bandwidth, Chain, Node};
use crate::results::{RunReport, Verdict};

/// The summary of every run.
pub(super) fn summaries(out: &mut String, records: &[RunRecord]) {
    for r in records {
        let _ = writeln!(
            out,
            "<section class=\"summary\">\n<h2>{}</h2>",
            escape(&format!("Summary: {}", r.name()))
        );
        let run = &r.run;
        if let Some(answer) = &run.answer {
            out.push_str(&super::answer::html(answer));
        }
        verdict(out, run, |words| {
            format!("<p class=\"verdict\"><b>Verdict:</b> {words}</p>")
        });
        match &run.chain {
            Some(chain) => chain_diagram(out, chain, run.verdict.as_ref()),
            None => {
                let _ = writeln!(
                    out,
                    "<p class=\"note\">No chain recorded with this run.</p>"
                );
            }
        }
        headline(out, run);
        let _ = writeln!(out, "</section>");
    }
}

/// The chain as boxes, path to wire: a row while the chain is a line, a column of rows where it
/// branches (RAID members, the devices of a multi-device filesystem). A link with a known
/// ceiling shows it and a meter of the measured rate against it; a link of unknown speed says
/// why; parts without a speed of their own (filesystems, partitions) are drawn plain.
fn chain_diagram(out: &mut String, chain: &Chain, verdict: Option<&Verdict>) {
    let _ = write!(
        out,
        "<div class=\"chain\" data-chart=\"chain\" aria-label=\"the chain from the destination to the wire\">"
    );
    boxes(out, &chain.root, verdict);
    let _ = writeln!(out, "</div>");
    let measured = verdict.and_then(|v| v.measured_mb_s);
    if let (Some(m), Some(by)) = (measured, verdict.and_then(|v| v.measured_by.as_deref())) {
        let _ = writeln!(
            out,
            "<p class=\"note\">Measured: {m:.1} MB/s ({}), drawn against each known ceiling.</p>",
            escape(by)
        );
    }
}

/// `node`'s box, then an arrow to its child's, or to a column of its children's.
fn boxes(out: &mut String, node: &Node, verdict: Option<&Verdict>) {
    link_box(out, node, verdict);
    match node.children.as_slice() {
        [] => {}
        [child] => {
            let _ = write!(out, "<span class=\"arrow\" aria-hidden=\"true\">→</span>");
            boxes(out, child, verdict);
        }
        children => {
            let _ = write!(
                out,
                "<span class=\"arrow\" aria-hidden=\"true\">→</span><div class=\"branches\">"
            );
            for child in children {
                let _ = write!(out, "<div class=\"chain\">");
                boxes(out, child, verdict);
                let _ = write!(out, "</div>");
            }
            let _ = write!(out, "</div>");
        }
    }
}

fn link_box(out: &mut String, node: &Node, verdict: Option<&Verdict>) {
    let measured = verdict.and_then(|v| v.measured_mb_s);
    let is_bottleneck = verdict
        .and_then(|v| v.bottleneck.as_ref())
        .is_some_and(|b| b.node == node.label);
    let class = match (&node.bandwidth, is_bottleneck) {
        (_, true) => "link bottleneck",
        (Bandwidth::Known(_), _) => "link",
        (Bandwidth::Unknown { .. }, _) => "link unknown",
        (Bandwidth::None, _) => "part",
    };
    let _ = write!(out, "<div class=\"{class}\"><b>{}</b>", escape(&node.label));
    match &node.bandwidth {
        Bandwidth::Known(c) => {
            let _ = write!(
                out,
                "<span>ceiling ~{} MB/s{} (rated {})</span>",
                c.practical_mb_s,
                if c.declared { ", declared" } else { "" },
                escape(&c.rated)
            );
            if let Some(m) = measured {
                let _ = write!(
                    out,
                    "<meter min=\"0\" max=\"{}\" value=\"{m}\" title=\"measured {m:.1} MB/s\"></meter>",
                    c.practical_mb_s
                );
            }
            if is_bottleneck && let Some(p) = verdict.and_then(|v| v.percent_of_ceiling) {
                let _ = write!(
                    out,
                    "<span>the narrowest link: {p:.0}% of its ceiling</span>"
                );
            }
        }
        Bandwidth::Unknown { why } => {
            let _ = write!(out, "<span>speed unknown: {}</span>", escape(why));
        }
        Bandwidth::None => {}
    }
    let _ = writeln!(out, "</div>");
}

/// The headline tables of one run (`report::headline`), then Time Machine's log lines.
fn headline(out: &mut String, run: &RunReport) {
    let Some(tables) = super::headline::tables(run) else {
        out.push_str(NO_HEADLINE);
        return;
    };
    let _ = writeln!(out, "<div class=\"headline\">");
    out.push_str(&tables.block.html());
    if let Some(backup) = &tables.backup {
        out.push_str(&backup.html());
    }
    let _ = writeln!(out, "</div>");
    if !run.time_machine_log.is_empty() {
        tm_log(out, &run.time_machine_log);
    }
    let own = &run.destination.time_machine_checks;
    if !own.is_empty() {
        let _ = writeln!(
            out,
            "<p>Time Machine's own checks of this volume (its unified log, last 7 days):</p>"
        );
        tm_log(out, own.iter().map(ToString::to_string));
    }
}

/// Time Machine's log lines as a list, each as code.
fn tm_log(out: &mut String, lines: impl IntoIterator<Item = impl AsRef<str>>) {
    let _ = writeln!(out, "<ul class=\"tm-log\">");
    for line in lines {
        let _ = writeln!(out, "<li><code>{}</code></li>", escape(line.as_ref()));
    }
    let _ = writeln!(out, "</ul>");
}
