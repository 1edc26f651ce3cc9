//! The HTML report's section for the runs of several clients: the tables of `report::clients`
//! and a scaling chart per result of a `--clients` run.

use maud::{Markup, html};

use crate::history::RunRecord;
use crate::report::clients::{aggregates_table, summary};
use crate::report::html::charts::{self, Line, XAxis};
use crate::report::html::figures::figure;
use crate::results::{Aggregate, ClusterInfo};

/// The HTML report's section for the runs of several clients: who, the aggregates beside the
/// per-client rates, and for `--clients` runs a scaling chart per result (aggregate and
/// per-client median against the number of clients).
pub(in crate::report) fn section(records: &[RunRecord]) -> Markup {
    html! {
        @for record in records {
            @if let Some(info) = record.run.cluster.as_ref() {
                h2 { "Run " (record.id) ": " (info.clients) " clients" }
                p { (summary(info)) }
                (aggregates_table(&info.aggregates))
                @for first in info.scaling.first().map_or(&[][..], |p| &p.aggregates[..]) {
                    (scaling_chart(info, first))
                }
            }
        }
    }
}

/// The chart of one result of a `--clients` run: aggregate and per-client median by clients.
fn scaling_chart(info: &ClusterInfo, first: &Aggregate) -> Markup {
    let same = |a: &&Aggregate| a.test == first.test && a.variant == first.variant;
    let point = |f: fn(&Aggregate) -> f64| {
        info.scaling
            .iter()
            .filter_map(|p| {
                p.aggregates
                    .iter()
                    .find(same)
                    .map(|a| (p.clients as f64, f(a)))
            })
            .collect::<Vec<_>>()
    };
    let series = [
        Line {
            name: "aggregate".into(),
            points: point(|a| a.aggregate),
        },
        Line {
            name: "per client (median)".into(),
            points: point(|a| a.per_client.median),
        },
    ];
    let title = format!("{} {} — by number of clients", first.test, first.variant);
    let svg = charts::lines(
        &title,
        (XAxis::Integer, "clients"),
        first.unit.as_str(),
        &series,
        false,
    );
    figure("clients", svg, &["aggregate", "per client (median)"])
}
