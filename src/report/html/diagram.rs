//! The chain as the HTML report draws it, from the destination to the wire: a box per link with
//! its practical ceiling and the measured rate against it, for the report's summary and the
//! page's glance alike.

use maud::{Markup, html};

use crate::probe::{Bandwidth, Chain, Node};
use crate::results::Verdict;

/// The chain as boxes, path to wire: a row while the chain is a line, a column of rows where it
/// branches (RAID members, the devices of a multi-device filesystem). A link with a known
/// ceiling shows it and a meter of the measured rate against it; a link of unknown speed says
/// why; parts without a speed of their own (filesystems, partitions) are drawn plain.
pub(in crate::report) fn chain(chain: &Chain, verdict: Option<&Verdict>) -> Markup {
    let measured = verdict.and_then(|v| v.measured_mb_s);
    let by = verdict.and_then(|v| v.measured_by.as_deref());
    html! {
        div class="chain" data-chart="chain" aria-label="the chain from the destination to the wire" {
            (boxes(&chain.root, verdict))
        }
        @if let (Some(m), Some(by)) = (measured, by) {
            p.note {
                "Measured: " (format!("{m:.1}")) " MB/s (" (by) "), drawn against each known ceiling."
            }
        }
    }
}

/// `node`'s box, then an arrow to its child's, or to a column of its children's.
fn boxes(node: &Node, verdict: Option<&Verdict>) -> Markup {
    html! {
        (link_box(node, verdict))
        @match node.children.as_slice() {
            [] => {}
            [child] => {
                span class="arrow" aria-hidden="true" { "→" }
                (boxes(child, verdict))
            }
            children => {
                span class="arrow" aria-hidden="true" { "→" }
                div.branches {
                    @for child in children { div.chain { (boxes(child, verdict)) } }
                }
            }
        }
    }
}

fn link_box(node: &Node, verdict: Option<&Verdict>) -> Markup {
    let measured = verdict.and_then(|v| v.measured_mb_s);
    let is_bottleneck = verdict
        .and_then(|v| v.bottleneck.as_ref())
        .is_some_and(|b| b.node == node.label);
    let narrowest = verdict
        .and_then(|v| v.percent_of_ceiling)
        .filter(|_| is_bottleneck);
    let class = match (&node.bandwidth, is_bottleneck) {
        (_, true) => "link bottleneck",
        (Bandwidth::Known(_), _) => "link",
        (Bandwidth::Unknown { .. }, _) => "link unknown",
        (Bandwidth::None, _) => "part",
    };
    html! {
        div class=(class) {
            b { (node.label) }
            @match &node.bandwidth {
                Bandwidth::Known(c) => {
                    span {
                        "ceiling ~" (c.practical_mb_s) " MB/s" @if c.declared { ", declared" }
                        " (rated " (c.rated) ")"
                    }
                    @if let Some(m) = measured {
                        meter min="0" max=(c.practical_mb_s) value=(m)
                            title={ "measured " (format!("{m:.1}")) " MB/s" } {}
                    }
                    @if let Some(p) = narrowest {
                        span { "the narrowest link: " (format!("{p:.0}")) "% of its ceiling" }
                    }
                }
                Bandwidth::Unknown { why } => span { "speed unknown: " (why) }
                Bandwidth::None => {}
            }
            @if let Some(health) = crate::probe::health::in_one_line(node) {
                span.health data-health { (health) }
            }
        }
    }
}
