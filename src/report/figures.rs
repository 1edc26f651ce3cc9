//! The figures of the HTML report: the run documents' series, ceilings and comparisons laid out
//! for `charts` (which only draws), each in a `<figure>` the report's tests can find by its
//! `data-chart`.

use std::fmt::Write as _;

use super::charts::{self, Line};
use super::escape::html as escape;
use crate::history::{Comparison, Group, RunRecord};
use crate::probe::{Bandwidth, Chain};
use crate::results::TestResult;
use crate::workload::TestId;

pub(super) fn figure(out: &mut String, kind: &str, svg: String) {
    let _ = writeln!(
        out,
        "<figure class=\"chart\" data-chart=\"{kind}\">{svg}</figure>"
    );
}

/// The bar chart of one test of a comparison: a group of bars per variant, a bar per run.
pub(super) fn bars(out: &mut String, cmp: &Comparison, group: &Group) {
    let categories: Vec<String> = group.rows.iter().map(|r| r.variant.clone()).collect();
    let series: Vec<(String, Vec<Option<f64>>)> = cmp
        .runs
        .iter()
        .enumerate()
        .map(|(i, run)| {
            let values = group
                .rows
                .iter()
                .map(|r| r.cells[i].as_ref().map(|c| c.median));
            (run.name.clone(), values.collect())
        })
        .collect();
    let unit = group.rows.first().map_or("", |r| r.unit.as_str());
    figure(
        out,
        "bars",
        charts::grouped_bars(
            &format!("{} — median {unit}", group.test),
            unit,
            &categories,
            &series,
        ),
    );
}

/// The variant's name with its thread count taken out (`small-4t-cache-on` -> `small-cache-on`),
/// so that the 1..4-thread variants form one line.
fn without_threads(variant: &str, threads: usize) -> String {
    let token = format!("{threads}t");
    variant
        .split('-')
        .filter(|part| *part != token)
        .collect::<Vec<_>>()
        .join("-")
}

pub(super) fn thread_scaling(out: &mut String, cmp: &Comparison) {
    let mut heading = false;
    for group in &cmp.groups {
        let mut series: Vec<Line> = Vec::new();
        for (i, run) in cmp.runs.iter().enumerate() {
            for row in &group.rows {
                let (Some(threads), Some(cell)) = (row.threads, row.cells[i].as_ref()) else {
                    continue;
                };
                let name = format!("{} {}", run.name, without_threads(&row.variant, threads));
                match series.iter_mut().find(|l| l.name == name) {
                    Some(line) => line.points.push((threads as f64, cell.median)),
                    None => series.push(Line {
                        name,
                        points: vec![(threads as f64, cell.median)],
                    }),
                }
            }
        }
        series.retain(|l| l.points.len() > 1);
        if series.is_empty() {
            continue;
        }
        if !heading {
            let _ = writeln!(out, "<h2>Thread scaling</h2>");
            heading = true;
        }
        for line in &mut series {
            line.points.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        let title = format!("{} — median by copy threads", group.test);
        figure(
            out,
            "threads",
            charts::lines(&title, "threads", "MB/s", &series, false),
        );
    }
}

pub(super) fn over_time(out: &mut String, records: &[RunRecord]) {
    let _ = writeln!(
        out,
        "<h2>Throughput over time</h2>\n<p class=\"note\">The repetition closest to the median of \
         each variant, per interval.</p>"
    );
    let chart = RunChart {
        kind: "series",
        title: "MB/s over time",
        axes: ("seconds", "MB/s"),
        log_y: false,
        empty: Some("no series long enough to draw"),
    };
    chart.draw(out, records, |res| {
        let rep = res.median_repetition()?;
        (rep.series_mb_s.len() > 1).then(|| {
            rep.series_mb_s
                .iter()
                .enumerate()
                .map(|(i, v)| ((i + 1) as f64 * res.series_interval_s, *v))
                .collect()
        })
    });
}

pub(super) fn latencies(out: &mut String, records: &[RunRecord]) {
    let _ = writeln!(
        out,
        "<h2>Latency percentiles</h2>\n<p class=\"note\">x: 0 = p50, 1 = p99, 2 = p99.9, 3 = max \
         (µs, logarithmic).</p>"
    );
    let chart = RunChart {
        kind: "latency",
        title: "latency percentiles",
        axes: ("percentile", "µs"),
        log_y: true,
        empty: None,
    };
    chart.draw(out, records, |res| {
        let l = res.latency_us?;
        Some(vec![
            (0.0, l.p50),
            (1.0, l.p99),
            (2.0, l.p999),
            (3.0, l.max),
        ])
    });
}

/// A line chart per run with a line per result.
struct RunChart {
    /// `data-chart` of the figure.
    kind: &'static str,
    /// After the run's name.
    title: &'static str,
    axes: (&'static str, &'static str),
    log_y: bool,
    /// What to say of a run without any line (None: nothing).
    empty: Option<&'static str>,
}

impl RunChart {
    /// Draws the chart of every run; `points` gives a result's line, if it has one.
    fn draw(
        &self,
        out: &mut String,
        records: &[RunRecord],
        points: impl Fn(&TestResult) -> Option<Vec<(f64, f64)>>,
    ) {
        for r in records {
            let series: Vec<Line> = r
                .run
                .results
                .iter()
                .filter_map(|res| {
                    Some(Line {
                        name: format!("{} {}", res.test, res.variant),
                        points: points(res)?,
                    })
                })
                .collect();
            if series.is_empty() {
                if let Some(empty) = self.empty {
                    let _ = writeln!(out, "<p class=\"note\">{}: {empty}.</p>", escape(&r.name()));
                }
                continue;
            }
            let title = format!("{} — {}", r.name(), self.title);
            let (x, y) = self.axes;
            figure(
                out,
                self.kind,
                charts::lines(&title, x, y, &series, self.log_y),
            );
        }
    }
}

/// The links of a chain, path to wire, each with its label and practical ceiling in MB/s; a
/// link whose speed is unknown has no ceiling. Nodes without a bandwidth of their own
/// (filesystems, partitions) are not links.
pub(super) fn chain_links(chain: &Chain) -> Vec<(String, Option<f64>)> {
    chain
        .nodes()
        .into_iter()
        .filter_map(|n| match &n.bandwidth {
            Bandwidth::Known(c) => Some((n.label.clone(), Some(c.practical_mb_s))),
            Bandwidth::Unknown { .. } => Some((n.label.clone(), None)),
            Bandwidth::None => None,
        })
        .collect()
}

pub(super) fn chains(out: &mut String, records: &[RunRecord]) {
    let _ = writeln!(out, "<h2>The chain</h2>");
    for r in records {
        let Some(chain) = &r.run.chain else {
            let _ = writeln!(
                out,
                "<p class=\"note\">{}: no chain recorded with this run.</p>",
                escape(&r.name())
            );
            continue;
        };
        let links = chain_links(chain);
        let drawn: Vec<(String, f64)> = links
            .iter()
            .filter_map(|(n, c)| c.map(|c| (n.clone(), c)))
            .collect();
        // The best sequential figure of the run is what the link ceilings limit.
        let measured = r
            .run
            .results
            .iter()
            .filter(|res| matches!(res.test, TestId::SeqWrite | TestId::SeqRead))
            .max_by(|a, b| a.median.total_cmp(&b.median))
            .map(|res| {
                (
                    format!(
                        "measured: {} {} {:.1} MB/s",
                        res.test, res.variant, res.median
                    ),
                    res.median,
                )
            });
        if drawn.is_empty() {
            let unknown: Vec<&str> = links.iter().map(|(n, _)| n.as_str()).collect();
            let _ = writeln!(
                out,
                "<p>{}: {} (no link on the path reported its speed{})</p>",
                escape(&r.name()),
                escape(&chain.root.label),
                escape(&if unknown.is_empty() {
                    String::new()
                } else {
                    format!(": {}", unknown.join(", "))
                })
            );
        } else {
            let title = format!("{} — the chain and its ceilings", r.name());
            figure(out, "chain", charts::ceilings(&title, &drawn, measured));
        }
        if let Some(verdict) = &r.run.verdict {
            let _ = writeln!(
                out,
                "<p><b>Verdict:</b> {}</p>",
                escape(&verdict.in_words())
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_tokens_are_removed_from_variant_names() {
        assert_eq!(without_threads("small-4t-cache-on", 4), "small-cache-on");
        assert_eq!(without_threads("large-1t", 1), "large");
    }
}
