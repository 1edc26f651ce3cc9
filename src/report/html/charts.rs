//! Charts as inline SVG strings, drawn with `plotters`' SVG backend: grouped bars (one group per
//! variant, one bar per run, as magazine storage reviews draw them) and lines (thread scaling,
//! throughput over time, latency percentiles). Each is one small chart of the report's small
//! multiples; the page scales it to its column.
//!
//! The charts draw no legend: the report puts the legend beside the SVG, in HTML, inside the
//! chart's figure, so it can never cover the plot. Series `i` has colour [`color`]`(i)` in both.
//!
//! The charts take plain series prepared by the HTML report; plotters escapes every text it
//! writes into the SVG (`plotters_escapes_the_text_it_draws` below), so labels from users cannot
//! inject markup, and the report inserts the SVG as it is.

use maud::{Markup, PreEscaped, html};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Series colours, in order: in the bar charts series `i` is run `i`, so a run keeps its colour
/// across the tests. The HTML report test looks for the first two in a screenshot.
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

pub fn color(index: usize) -> RGBColor {
    PALETTE[index % PALETTE.len()]
}

/// The colour as CSS writes it, for the HTML legend.
pub fn css_color(index: usize) -> String {
    let RGBColor(r, g, b) = color(index);
    format!("#{r:02X}{g:02X}{b:02X}")
}

/// Drawn size of one small multiple; the page scales it to its column.
const WIDTH: u32 = 640;
const HEIGHT: u32 = 340;
const FONT: &str = "sans-serif";

/// One named series of a line chart.
pub struct Line {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// The largest value a chart draws. Stored documents come from older writers, damaged files and
/// imports: a value past this (or negative, or not a number) is left out of the chart, never
/// allowed to overflow the pixel arithmetic. The tables beside the chart still show it.
const DRAWABLE_MAX: f64 = 1e15;

/// `value` if a chart can draw it: finite, not negative, at most [`DRAWABLE_MAX`].
fn drawable(value: f64) -> Option<f64> {
    (value.is_finite() && (0.0..=DRAWABLE_MAX).contains(&value)).then_some(value)
}

/// What the x axis of a line chart counts.
#[derive(Clone, Copy)]
pub enum XAxis<'a> {
    /// Any value (seconds).
    Continuous,
    /// Whole numbers only (threads): ticks and labels at integers.
    Integer,
    /// Names at 0, 1, 2, ... (percentiles: p50, p99, ...).
    Named(&'a [&'a str]),
}

impl XAxis<'_> {
    /// The drawn range from `min` to `max`: half a step wider either side for whole numbers, so
    /// the first and last are not on the edge.
    fn range(self, min: f64, max: f64) -> std::ops::Range<f64> {
        match self {
            XAxis::Continuous if max > min => min..max,
            _ => min - 0.5..max + 0.5,
        }
    }

    /// The label at tick `x` (none between whole numbers, unless continuous).
    fn label(self, x: f64) -> String {
        let whole = ((x - x.round()).abs() < 1e-9).then_some(x.round());
        match self {
            // Tick positions are sums of floats (0.30000000000000004): two decimals at most.
            XAxis::Continuous => format!("{x:.2}")
                .trim_end_matches('0')
                .trim_end_matches('.')
                .to_string(),
            XAxis::Integer => whole.map_or(String::new(), |x| format!("{x:.0}")),
            XAxis::Named(names) => whole
                .and_then(|x| names.get(x as usize))
                .map_or(String::new(), |n| n.to_string()),
        }
    }

    /// Candidate ticks: enough that every whole number in the range gets one (a damaged
    /// document's range of millions gets a readable few instead).
    fn ticks(self, min: f64, max: f64) -> usize {
        match self {
            XAxis::Continuous => 10,
            _ => (((max - min) as usize).min(100) + 2) * 2,
        }
    }
}

/// Each line's points that can be drawn: finite, and on a log scale above zero.
fn drawable_points(series: &[Line], log_y: bool) -> Vec<Vec<(f64, f64)>> {
    series
        .iter()
        .map(|s| {
            s.points
                .iter()
                .filter_map(|&(x, y)| {
                    Some((drawable(x)?, drawable(y).filter(|y| !log_y || *y > 0.0)?))
                })
                .collect()
        })
        .collect()
}

type Drawn = Result<(), Box<dyn std::error::Error>>;
type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// An SVG of `size` on white, drawn by `draw`. A chart that could not be drawn becomes a
/// sentence instead; a report with one chart missing is still a report.
fn svg(title: &str, size: (u32, u32), draw: impl FnOnce(&Area<'_>) -> Drawn) -> Markup {
    let mut svg = String::new();
    let result = (|| -> Drawn {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE)?;
        draw(&root)?;
        root.present()?;
        Ok(())
    })();
    match result {
        // Markup as it is: plotters escaped every text it drew.
        Ok(()) => PreEscaped(svg),
        Err(e) => html! { p.note { (title) ": chart could not be drawn (" (e) ")" } },
    }
}

/// Grouped bars: `categories` along x, for each a bar per entry of `series` (name, one value
/// per category; None where that run lacks the variant).
pub fn grouped_bars(
    title: &str,
    unit: &str,
    categories: &[String],
    series: &[(String, Vec<Option<f64>>)],
) -> Markup {
    // Each bar is 2 units wide and each group has a 2-unit gap, so a group's centre is always an
    // integer and can carry the category's label on an integer tick.
    let series: Vec<Vec<Option<f64>>> = series
        .iter()
        .map(|(_, values)| values.iter().map(|v| v.and_then(drawable)).collect())
        .collect();
    let k = series.len().max(1) as i32;
    let stride = 2 * k + 2;
    let total = stride * categories.len() as i32;
    let ymax = series
        .iter()
        .flat_map(|v| v.iter().flatten())
        .fold(0.0f64, |a, &b| a.max(b))
        .max(f64::MIN_POSITIVE)
        * 1.1;
    svg(title, (WIDTH, HEIGHT), |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(title, (FONT, 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(72)
            .build_cartesian_2d(0..total, 0.0..ymax)?;
        let label = |x: &i32| {
            let group = (*x - k) / stride;
            if (*x - k).rem_euclid(stride) == 0 && group >= 0 {
                categories.get(group as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(total as usize + 1)
            .x_label_formatter(&label)
            .y_desc(unit)
            .draw()?;
        for (j, values) in series.iter().enumerate() {
            let c = color(j);
            let bars = values.iter().enumerate().filter_map(|(i, v)| {
                let x0 = i as i32 * stride + 1 + 2 * j as i32;
                v.map(|v| Rectangle::new([(x0, 0.0), (x0 + 2, v)], c.filled()))
            });
            chart.draw_series(bars)?;
        }
        Ok(())
    })
}

/// Lines with points; `log_y` for latencies, which span orders of magnitude.
pub fn lines(
    title: &str,
    (x_axis, x_desc): (XAxis<'_>, &str),
    y_desc: &str,
    series: &[Line],
    log_y: bool,
) -> Markup {
    let series = drawable_points(series, log_y);
    let points = || series.iter().flatten();
    let xmax = points().fold(0.0f64, |a, p| a.max(p.0)).max(1e-9);
    let xmin = points().fold(xmax, |a, p| a.min(p.0));
    let ymax = points()
        .fold(0.0f64, |a, p| a.max(p.1))
        .max(f64::MIN_POSITIVE);
    let ymin_positive = points()
        .map(|p| p.1)
        .filter(|y| *y > 0.0)
        .fold(ymax, f64::min);
    svg(title, (WIDTH, HEIGHT), |root| {
        let mut builder = ChartBuilder::on(root);
        builder
            .caption(title, (FONT, 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(72);
        let xrange = x_axis.range(xmin, xmax);
        let x_label = |x: &f64| x_axis.label(*x);
        let x_ticks = x_axis.ticks(xmin, xmax);
        macro_rules! draw {
            ($chart:expr) => {{
                let mut chart = $chart;
                chart
                    .configure_mesh()
                    .x_labels(x_ticks)
                    .x_label_formatter(&x_label)
                    .x_desc(x_desc)
                    .y_desc(y_desc)
                    .draw()?;
                for (j, points) in series.iter().enumerate() {
                    let c = color(j);
                    chart
                        .draw_series(LineSeries::new(points.iter().copied(), c.stroke_width(2)))?;
                    chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, c.filled())))?;
                }
            }};
        }
        if log_y {
            draw!(
                builder
                    .build_cartesian_2d(xrange, (ymin_positive / 1.5..ymax * 1.5).log_scale())?
            );
        } else {
            draw!(builder.build_cartesian_2d(xrange, 0.0..ymax * 1.1)?);
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_are_drawn_in_the_run_colours_without_series_names() {
        let svg = grouped_bars(
            "seq-write",
            "MB/s",
            &["20-100MB".into(), "SEQ1M-Q8T1".into()],
            &[
                (
                    "<script>alert(1)</script>".into(),
                    vec![Some(100.0), Some(200.0)],
                ),
                ("sata".into(), vec![Some(150.0), None]),
            ],
        )
        .into_string();
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(
            svg.contains("#1F77B4") || svg.contains("#1f77b4"),
            "first run's colour"
        );
        assert!(svg.contains("SEQ1M-Q8T1"));
        // The legend is the report's, in HTML: no series name reaches the SVG.
        assert!(!svg.contains("script"), "{svg}");
    }

    /// What a damaged or foreign document can hold; none of it may panic, hang or overflow.
    #[test]
    fn values_a_chart_cannot_draw_are_left_out() {
        let hostile = [-1.0, -3e225, f64::NAN, f64::INFINITY, f64::MAX, 1e300, 0.0];
        let bars = grouped_bars(
            "t",
            "MB/s",
            &["a".into(), "b".into()],
            &hostile
                .iter()
                .map(|&v| ("run".to_string(), vec![Some(v), Some(10.0)]))
                .collect::<Vec<_>>(),
        )
        .into_string();
        assert!(bars.starts_with("<svg"), "{bars}");
        for (axis, log_y) in [(XAxis::Integer, false), (XAxis::Continuous, true)] {
            let svg = lines(
                "t",
                (axis, "threads"),
                "MB/s",
                &[Line {
                    name: "x".into(),
                    points: hostile
                        .iter()
                        .map(|&v| (v, v))
                        .chain([(1.0, 5.0)])
                        .collect(),
                }],
                log_y,
            )
            .into_string();
            assert!(svg.starts_with("<svg"), "{svg}");
        }
        // Only hostile points: an empty chart, still a chart.
        let empty = lines(
            "t",
            (XAxis::Integer, "threads"),
            "MB/s",
            &[Line {
                name: "x".into(),
                points: vec![(f64::NAN, -1.0)],
            }],
            true,
        )
        .into_string();
        assert!(
            empty.starts_with("<svg") || empty.contains("could not be drawn"),
            "{empty}"
        );
    }

    #[test]
    fn lines_on_a_log_scale() {
        let svg = lines(
            "latency",
            (XAxis::Named(&["p50", "p99", "p99.9"]), "percentile"),
            "µs",
            &[Line {
                name: "RND4K".into(),
                points: vec![(0.0, 100.0), (1.0, 1000.0), (2.0, 50_000.0)],
            }],
            true,
        )
        .into_string();
        assert!(
            svg.starts_with("<svg") && svg.contains("<polyline"),
            "{svg}"
        );
        assert!(
            svg.contains("\np99.9\n") && !svg.contains("\n0.5\n"),
            "{svg}"
        );
    }

    /// Titles, axis names and labels come from users (run labels, imported variants): plotters
    /// must escape them, as the report inserts its SVG unescaped.
    #[test]
    fn plotters_escapes_the_text_it_draws() {
        let hostile = "<script>alert(\"x\")</script> & 'q'";
        let svg = grouped_bars(
            hostile,
            hostile,
            &[hostile.into()],
            &[("r".into(), vec![Some(1.0)])],
        )
        .into_string();
        let line = Line {
            name: hostile.into(),
            points: vec![(0.0, 1.0), (1.0, 2.0)],
        };
        let lines = lines(
            hostile,
            (XAxis::Named(&[hostile]), hostile),
            hostile,
            &[line],
            false,
        )
        .into_string();
        for svg in [svg, lines] {
            assert!(!svg.contains("<script") && !svg.contains("& "), "{svg}");
            assert!(
                svg.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp;"),
                "{svg}"
            );
        }
    }
}
