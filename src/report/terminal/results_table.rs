//! The results table of the terminal report: narrow (fits 80 columns: the median, its spread and
//! the p99 latency) or wide (every figure, one unit per column).

use crate::report::table::{Align, Table};
use crate::results::{OpKind, TestResult, Unit};

pub(in crate::report) fn latency(us: f64) -> String {
    if us < 100.0 {
        format!("{us:.1}")
    } else {
        format!("{us:.0}")
    }
}

fn pct_cell(cv: f64) -> String {
    format!("{:.1}%", cv * 100.0)
}

/// The narrow results table (fits 80 columns): the median, its spread and the p99 latency.
pub(in crate::report) fn narrow_table(results: &[TestResult]) -> Table {
    let mut table =
        Table::text_then_figures(&["test", "variant"], &["median", "unit", "cv", "p99 µs"]);
    for r in results {
        table.push([
            r.test.to_string(),
            r.variant.clone(),
            format!("{:.2}", r.median),
            r.unit.as_str().to_string(),
            pct_cell(r.cv),
            r.latency_us.map_or("-".into(), |l| latency(l.p99)),
        ]);
    }
    table.columns[3].align = Align::Left;
    table
}

/// The full results table: one row per result, one unit per column (I/O operations and files
/// per second apart).
pub(in crate::report) fn wide_table(results: &[TestResult]) -> Table {
    let left = Align::Left;
    let right = Align::Right;
    let mut table = Table::new([
        ("test", left),
        ("variant", left),
        ("median", right),
        ("min", right),
        ("max", right),
        ("unit", left),
        ("cv", right),
        ("IOPS", right),
        ("files/s", right),
        ("p50 µs", right),
        ("p99 µs", right),
        ("p99.9 µs", right),
        ("method", left),
        ("engine", left),
    ]);
    for r in results {
        let lat = r.latency_us;
        // A figure already counting files or operations has no second rate column.
        let counted = matches!(r.unit, Unit::FilesPerSecond | Unit::OpsPerSecond);
        let rate = |kind: OpKind| {
            if r.op_kind == kind && !counted {
                format!("{:.0}", r.ops_per_s_median)
            } else {
                "-".to_string()
            }
        };
        table.push([
            r.test.to_string(),
            r.variant.clone(),
            format!("{:.2}", r.median),
            format!("{:.2}", r.min),
            format!("{:.2}", r.max),
            r.unit.as_str().to_string(),
            // One repetition (sustained, throttled) has no spread to show.
            if r.samples.len() < 2 {
                "-".to_string()
            } else {
                pct_cell(r.cv)
            },
            rate(OpKind::Io),
            rate(OpKind::File),
            lat.map_or("-".into(), |l| latency(l.p50)),
            lat.map_or("-".into(), |l| latency(l.p99)),
            lat.map_or("-".into(), |l| latency(l.p999)),
            r.method.as_str().to_string(),
            r.engine.name().to_string(),
        ]);
    }
    table
}
