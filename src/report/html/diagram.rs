//! The chain as the HTML report draws it, from the destination to the wire: a box per link with
//! its practical ceiling and the measured rate against it, for the report's summary and the
//! page's glance alike.

use std::fmt::Write as _;

use crate::probe::{Bandwidth, Chain, Node};
use crate::report::escape::html as escape;
use crate::results::Verdict;

/// The chain as boxes, path to wire: a row while the chain is a line, a column of rows where it
/// branches (RAID members, the devices of a multi-device filesystem). A link with a known
/// ceiling shows it and a meter of the measured rate against it; a link of unknown speed says
/// why; parts without a speed of their own (filesystems, partitions) are drawn plain.
pub(in crate::report) fn chain(out: &mut String, chain: &Chain, verdict: Option<&Verdict>) {
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
