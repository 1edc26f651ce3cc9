//! Charts as inline SVG strings, drawn with `plotters`' SVG backend: grouped bars (one group per
//! variant, one bar per run, as magazine storage reviews draw them), lines (thread scaling,
//! throughput over time, latency percentiles) and horizontal bars (the chain's ceilings).
//!
//! The charts take plain series prepared by the HTML report; plotters escapes every text it
//! writes into the SVG, so labels from users cannot inject markup.

use plotters::coord::{CoordTranslate, Shift};
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

const HEIGHT: u32 = 380;
const FONT: &str = "sans-serif";

/// One named series of a line chart.
pub struct Line {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

type Drawn = Result<(), Box<dyn std::error::Error>>;
type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// An SVG of `size` on white, drawn by `draw`. A chart that could not be drawn becomes a
/// sentence instead; a report with one chart missing is still a report.
fn svg(title: &str, size: (u32, u32), draw: impl FnOnce(&Area<'_>) -> Drawn) -> String {
    let mut svg = String::new();
    let result = (|| -> Drawn {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE)?;
        draw(&root)?;
        root.present()?;
        Ok(())
    })();
    match result {
        Ok(()) => svg,
        Err(e) => format!(
            "<p class=\"note\">{title}: chart could not be drawn ({})</p>",
            super::escape::html(&e.to_string())
        ),
    }
}

/// The legend of the series, in a box at `position`.
fn legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
}

/// Grouped bars: `categories` along x, for each a bar per entry of `series` (name, one value
/// per category; None where that run lacks the variant).
pub fn grouped_bars(
    title: &str,
    unit: &str,
    categories: &[String],
    series: &[(String, Vec<Option<f64>>)],
) -> String {
    // Each bar is 2 units wide and each group has a 2-unit gap, so a group's centre is always an
    // integer and can carry the category's label on an integer tick.
    let k = series.len().max(1) as i32;
    let stride = 2 * k + 2;
    let total = stride * categories.len() as i32;
    let ymax = series
        .iter()
        .flat_map(|(_, v)| v.iter().flatten())
        .fold(0.0f64, |a, &b| a.max(b))
        .max(f64::MIN_POSITIVE)
        // Headroom for the legend above the tallest bar.
        * 1.4;
    let width = (160 + 28 * total as u32).clamp(640, 1400);
    svg(title, (width, HEIGHT), |root| {
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
        for (j, (name, values)) in series.iter().enumerate() {
            let c = color(j);
            let bars = values.iter().enumerate().filter_map(|(i, v)| {
                let x0 = i as i32 * stride + 1 + 2 * j as i32;
                v.map(|v| Rectangle::new([(x0, 0.0), (x0 + 2, v)], c.filled()))
            });
            chart
                .draw_series(bars)?
                .label(name.as_str())
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], c.filled()));
        }
        legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        Ok(())
    })
}

/// Lines with points; `log_y` for latencies, which span orders of magnitude.
pub fn lines(title: &str, x_desc: &str, y_desc: &str, series: &[Line], log_y: bool) -> String {
    let points = || series.iter().flat_map(|s| s.points.iter());
    let xmax = points().fold(0.0f64, |a, p| a.max(p.0)).max(1e-9);
    let xmin = points().fold(xmax, |a, p| a.min(p.0));
    let ymax = points()
        .fold(0.0f64, |a, p| a.max(p.1))
        .max(f64::MIN_POSITIVE);
    let ymin_positive = points()
        .map(|p| p.1)
        .filter(|y| *y > 0.0)
        .fold(ymax, f64::min);
    svg(title, (860, HEIGHT), |root| {
        let mut builder = ChartBuilder::on(root);
        builder
            .caption(title, (FONT, 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(72);
        let xrange = if xmax > xmin {
            xmin..xmax
        } else {
            xmin - 0.5..xmax + 0.5
        };
        macro_rules! draw {
            ($chart:expr) => {{
                let mut chart = $chart;
                chart
                    .configure_mesh()
                    .x_desc(x_desc)
                    .y_desc(y_desc)
                    .draw()?;
                for (j, s) in series.iter().enumerate() {
                    let c = color(j);
                    chart
                        .draw_series(LineSeries::new(s.points.iter().copied(), c.stroke_width(2)))?
                        .label(s.name.as_str())
                        .legend(move |(x, y)| {
                            PathElement::new([(x, y), (x + 14, y)], c.stroke_width(2))
                        });
                    chart.draw_series(s.points.iter().map(|&p| Circle::new(p, 3, c.filled())))?;
                }
                legend(&mut chart, SeriesLabelPosition::LowerRight)?;
            }};
        }
        if log_y {
            draw!(
                builder
                    .build_cartesian_2d(xrange, (ymin_positive / 1.5..ymax * 1.5).log_scale())?
            );
        } else {
            draw!(builder.build_cartesian_2d(xrange, 0.0..ymax * 1.15)?);
        }
        Ok(())
    })
}

/// Horizontal bars, one per link of the chain (its practical ceiling), with the measured rate
/// drawn across them as a red line.
pub fn ceilings(title: &str, links: &[(String, f64)], measured: Option<(String, f64)>) -> String {
    let n = links.len() as i32;
    let xmax = links
        .iter()
        .map(|l| l.1)
        .chain(measured.as_ref().map(|m| m.1))
        .fold(0.0f64, f64::max)
        .max(f64::MIN_POSITIVE)
        * 1.15;
    let height = (90 + 46 * n as u32).max(200);
    svg(title, (860, height), |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(title, (FONT, 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(190)
            .build_cartesian_2d(0.0..xmax, 0..2 * n)?;
        let label = |y: &i32| {
            if y % 2 == 1 {
                links
                    .get((y / 2) as usize)
                    .map(|l| l.0.clone())
                    .unwrap_or_default()
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(2 * n as usize + 1)
            .y_label_formatter(&label)
            .x_desc("MB/s")
            .draw()?;
        chart
            .draw_series(links.iter().enumerate().map(|(i, l)| {
                let y = 2 * i as i32;
                Rectangle::new([(0.0, y), (l.1, y + 2)], color(0).mix(0.6).filled())
            }))?
            .label("practical ceiling")
            .legend(|(x, y)| {
                Rectangle::new([(x, y - 5), (x + 12, y + 5)], color(0).mix(0.6).filled())
            });
        if let Some((name, rate)) = &measured {
            chart
                .draw_series(LineSeries::new(
                    [(*rate, 0), (*rate, 2 * n)],
                    RED.stroke_width(3),
                ))?
                .label(name.as_str())
                .legend(|(x, y)| PathElement::new([(x, y), (x + 14, y)], RED.stroke_width(3)));
        }
        legend(&mut chart, SeriesLabelPosition::LowerRight)?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_are_drawn_with_the_run_colours_and_escaped_labels() {
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
        );
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(
            svg.contains("#1F77B4") || svg.contains("#1f77b4"),
            "first run's colour"
        );
        assert!(svg.contains("SEQ1M-Q8T1"));
        assert!(!svg.contains("<script>"), "label not escaped");
        assert!(svg.contains("&lt;script&gt;"));
    }

    #[test]
    fn lines_on_a_log_scale() {
        let svg = lines(
            "latency",
            "percentile",
            "µs",
            &[Line {
                name: "RND4K".into(),
                points: vec![(0.0, 100.0), (1.0, 1000.0), (2.0, 50_000.0)],
            }],
            true,
        );
        assert!(
            svg.starts_with("<svg") && svg.contains("<polyline"),
            "{svg}"
        );
    }
}
