//! The figures of the HTML report: the run documents' series and comparisons laid out for
//! `charts` (which only draws), as small multiples: one chart per test (per run where the chart
//! shows one run), each in a `<figure>` with its legend in HTML beside the plot, found by the
//! report's tests by its `data-chart`.

use maud::{Markup, html};

use crate::history::{Comparison, Group, RunRecord};
use crate::report::html::charts::{self, Line, XAxis};
use crate::results::TestResult;
use crate::workload::{TestId, Workload};

/// The percentiles of the latency charts, in the order of their x axis.
const PERCENTILES: [&str; 4] = ["p50", "p99", "p99.9", "max"];

/// One chart and its legend (series `i` in colour `i`).
pub(in crate::report) fn figure(kind: &str, svg: Markup, legend: &[&str]) -> Markup {
    html! {
        figure class="chart" data-chart=(kind) {
            (svg)
            ul.legend {
                @for (i, name) in legend.iter().enumerate() {
                    li {
                        svg class="swatch" width="14" height="14" aria-hidden="true" {
                            rect width="14" height="14" fill=(charts::css_color(i)) {}
                        }
                        (name)
                    }
                }
            }
        }
    }
}

/// Small multiples side by side: as many columns as the page is wide.
fn grid(figures: &[Markup]) -> Markup {
    html! {
        @if !figures.is_empty() {
            div.grid { @for f in figures { (f) } }
        }
    }
}

/// The bar chart of one test of a comparison: a group of bars per variant, a bar per run.
pub(in crate::report) fn bars(cmp: &Comparison, group: &Group) -> Markup {
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
    let names: Vec<&str> = series.iter().map(|(n, _)| n.as_str()).collect();
    figure(
        "bars",
        charts::grouped_bars(
            &format!("{} — median {unit}", group.test),
            unit,
            &categories,
            &series,
        ),
        &names,
    )
}

/// The thread-scaling lines of one test, per run: a line per variant family (the variant
/// without its thread count), points at each thread count.
fn scaling_lines(cmp: &Comparison, group: &Group) -> Vec<(String, Vec<Line>)> {
    let mut runs = Vec::new();
    for (i, run) in cmp.runs.iter().enumerate() {
        let mut series: Vec<Line> = Vec::new();
        for row in &group.rows {
            let (Some(threads), Some(cell)) = (row.threads, row.cells[i].as_ref()) else {
                continue;
            };
            let Some(name) = row.workload.as_ref().and_then(Workload::family) else {
                continue;
            };
            let point = (threads as f64, cell.median);
            match series.iter_mut().find(|l| l.name == name) {
                Some(line) => line.points.push(point),
                None => series.push(Line {
                    name,
                    points: vec![point],
                }),
            }
        }
        series.retain(|l| l.points.len() > 1);
        for line in &mut series {
            line.points.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        if !series.is_empty() {
            runs.push((run.name.clone(), series));
        }
    }
    runs
}

pub(in crate::report) fn thread_scaling(cmp: &Comparison) -> Markup {
    let mut figures = Vec::new();
    for group in &cmp.groups {
        let runs = scaling_lines(cmp, group);
        // One chart for all runs while every line keeps a colour of its own; past that, one
        // chart per run, so no two lines of a chart share a colour.
        let lines: usize = runs.iter().map(|(_, s)| s.len()).sum();
        let charts: Vec<(String, Vec<Line>)> = if runs.len() > 1 && lines <= charts::PALETTE.len() {
            let merged = runs.into_iter().flat_map(|(run, series)| {
                series.into_iter().map(move |l| Line {
                    name: format!("{run} {}", l.name),
                    points: l.points,
                })
            });
            vec![(String::new(), merged.collect())]
        } else {
            runs.into_iter()
                .map(|(run, series)| (format!("{run} — "), series))
                .collect()
        };
        // The group's own unit: files-delete counts files/s, the copies MB/s.
        let unit = group.rows.first().map_or("", |r| r.unit.as_str());
        for (run, series) in charts {
            let title = format!("{run}{} — median {unit} by threads", group.test);
            let names: Vec<&str> = series.iter().map(|l| l.name.as_str()).collect();
            let svg = charts::lines(&title, (XAxis::Integer, "threads"), unit, &series, false);
            figures.push(figure("threads", svg, &names));
        }
    }
    html! {
        @if !figures.is_empty() {
            h2 { "Thread scaling" }
            (grid(&figures))
        }
    }
}

pub(in crate::report) fn over_time(records: &[RunRecord]) -> Markup {
    let chart = RunChart {
        kind: "series",
        title: "MB/s over time",
        axes: (XAxis::Continuous, "seconds", "MB/s"),
        log_y: false,
        empty: Some("no series long enough to draw"),
    };
    let charts = chart.draw(records, |res| {
        let rep = res.median_repetition()?;
        let whole = rep.series_mb_s.len() - usize::from(rep.series_last_partial);
        (whole > 1).then(|| {
            rep.series_mb_s[..whole]
                .iter()
                .enumerate()
                .map(|(i, v)| ((i + 1) as f64 * res.series_interval_s, *v))
                .collect()
        })
    });
    html! {
        h2 { "Throughput over time" }
        p.note {
            "One chart per test and run: the repetition closest to the median of each variant, \
             per interval. A last interval cut short by the end of the repetition is left out: \
             its rate, scaled from a sliver of time, says nothing about the destination."
        }
        (charts)
    }
}

pub(in crate::report) fn latencies(records: &[RunRecord]) -> Markup {
    let chart = RunChart {
        kind: "latency",
        title: "latency percentiles",
        axes: (XAxis::Named(&PERCENTILES), "percentile", "µs"),
        log_y: true,
        empty: None,
    };
    let charts = chart.draw(records, |res| {
        let l = res.latency_us?;
        Some(vec![
            (0.0, l.p50),
            (1.0, l.p99),
            (2.0, l.p999),
            (3.0, l.max),
        ])
    });
    html! {
        h2 { "Latency percentiles" }
        p.note { "One chart per test and run; µs on a logarithmic axis." }
        (charts)
    }
}

/// Line charts of each run's results: one chart per test, a line per variant.
struct RunChart {
    /// `data-chart` of the figure.
    kind: &'static str,
    /// After the run's and the test's names.
    title: &'static str,
    axes: (XAxis<'static>, &'static str, &'static str),
    log_y: bool,
    /// What to say of a run without any line (None: nothing).
    empty: Option<&'static str>,
}

impl RunChart {
    /// The charts of every run, after the notes of the runs without any; `points` gives a
    /// result's line, if it has one.
    fn draw(
        &self,
        records: &[RunRecord],
        points: impl Fn(&TestResult) -> Option<Vec<(f64, f64)>>,
    ) -> Markup {
        let mut notes = Vec::new();
        let mut figures = Vec::new();
        for r in records {
            let mut tests: Vec<(TestId, Vec<Line>)> = Vec::new();
            for res in &r.run.results {
                let Some(points) = points(res) else { continue };
                let line = Line {
                    name: res.variant.clone(),
                    points,
                };
                match tests.iter_mut().find(|(t, _)| *t == res.test) {
                    Some((_, lines)) => lines.push(line),
                    None => tests.push((res.test, vec![line])),
                }
            }
            if tests.is_empty()
                && let Some(empty) = self.empty
            {
                notes.push(html! { p.note { (r.name()) ": " (empty) "." } });
            }
            let (x_axis, x, y) = self.axes;
            for (test, series) in tests {
                let title = format!("{} — {test} {}", r.name(), self.title);
                let names: Vec<&str> = series.iter().map(|l| l.name.as_str()).collect();
                let svg = charts::lines(&title, (x_axis, x), y, &series, self.log_y);
                figures.push(figure(self.kind, svg, &names));
            }
        }
        html! {
            @for note in &notes { (note) }
            (grid(&figures))
        }
    }
}

/// Each result's repetitions in the order they ran: the figure, how long it took, and the
/// bytes moved, in a details element under the test's table.
pub(in crate::report) fn repetitions(records: &[RunRecord], test: TestId) -> Markup {
    let rows: Vec<(String, &TestResult)> = records
        .iter()
        .flat_map(|r| {
            let results = r.run.results.iter().filter(|res| res.test == test);
            results.map(|res| (r.name(), res))
        })
        .collect();
    let most = rows.iter().map(|(_, res)| res.repetitions.len()).max();
    html! {
        @if let Some(most) = most {
            details.repetitions {
                summary { "Repetitions in the order they ran" }
                table {
                    tr { th { "run" } th { "variant" } @for n in 1..=most { th { (n) } } }
                    @for (name, res) in &rows {
                        tr {
                            td { (name) }
                            td { (res.variant) }
                            @for rep in &res.repetitions {
                                td.n {
                                    (format!("{:.2}", rep.rate)) " " (res.unit.as_str()) " "
                                    span.note { "in " (format!("{:.3}", rep.elapsed_s)) " s" }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
