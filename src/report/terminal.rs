//! The terminal report: a table in the spirit of CrystalDiskMark, the Time Machine log lines, the
//! legend of methods, warnings and failures. Colour only on a terminal, and never with NO_COLOR.

use std::fmt::Write as _;
use std::io::IsTerminal;

use anstyle::{AnsiColor, Style as Ansi};

use super::table::{Align, Table};
use crate::results::{Method, OpKind, RunReport, TestResult, Unit, Verdict};
use crate::workload::Variant;

/// Whether to colour the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    pub color: bool,
}

impl Style {
    /// Colour when stdout is a terminal and `NO_COLOR` is unset or empty.
    pub fn detect() -> Style {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Style {
            color: !no_color && std::io::stdout().is_terminal(),
        }
    }

    fn paint(self, style: Ansi, text: &str) -> String {
        if self.color {
            format!("{}{text}{}", style.render(), style.render_reset())
        } else {
            text.to_string()
        }
    }
}

fn latency(us: f64) -> String {
    if us < 100.0 {
        format!("{us:.1}")
    } else {
        format!("{us:.0}")
    }
}

/// The results table: one row per result.
fn results_table(results: &[TestResult]) -> Table {
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
        ("p50 µs", right),
        ("p99 µs", right),
        ("p99.9 µs", right),
        ("method", left),
        ("engine", left),
    ]);
    for r in results {
        let lat = r.latency_us;
        let iops = match (r.op_kind, r.unit) {
            // The figure itself already counts files or operations.
            (_, Unit::FilesPerSecond | Unit::OpsPerSecond) => "-".to_string(),
            (OpKind::File, _) => format!("{:.0} files/s", r.ops_per_s_median),
            _ => format!("{:.0}", r.ops_per_s_median),
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
                format!("{:.1}%", r.cv * 100.0)
            },
            iops,
            lat.map_or("-".into(), |l| latency(l.p50)),
            lat.map_or("-".into(), |l| latency(l.p99)),
            lat.map_or("-".into(), |l| latency(l.p999)),
            r.method.as_str().to_string(),
            r.engine.name().to_string(),
        ]);
    }
    table
}

/// The whole terminal report.
pub fn render(report: &RunReport, style: Style) -> String {
    let mut out = String::new();
    let s = &report.settings;
    let _ = writeln!(
        out,
        "{}",
        style.paint(
            Ansi::new().bold(),
            &format!(
                "destbench {} on {}",
                report.destbench_version,
                super::escape::terminal(&report.destination.path.display().to_string())
            )
        )
    );
    let _ = writeln!(
        out,
        "profile {}, {} runs{}, {} block-test file, {:.1} s per block test, engine {}{}",
        s.profile,
        s.runs,
        if s.min_time_s > 0.0 {
            format!(" of at least {} s", s.min_time_s)
        } else {
            String::new()
        },
        crate::units::format_bytes(s.file_size_bytes),
        s.block_duration_s,
        s.engine,
        s.label
            .as_ref()
            .map(|l| format!(", label \"{}\"", super::escape::terminal(l)))
            .unwrap_or_default()
    );
    let _ = writeln!(out, "access: {}", report.access.note);
    let _ = writeln!(out);
    if report.results.is_empty() {
        let _ = writeln!(out, "no results");
    } else {
        let bold = |header: &str| style.paint(Ansi::new().bold(), header);
        out.push_str(&results_table(&report.results).text(&bold));
        out.push_str(&super::clients::text(report.cluster.as_ref(), &bold));
    }

    let mut sets: Vec<String> = Vec::new();
    for set in report.results.iter().filter_map(|r| r.file_set.as_ref()) {
        if set.source_path.is_empty() {
            continue;
        }
        let sizes = match (
            set.file_size_p50_bytes,
            set.file_size_p90_bytes,
            set.file_size_max_bytes,
        ) {
            (Some(p50), Some(p90), Some(max)) => format!(
                " (file sizes: median {}, p90 {}, largest {})",
                crate::units::format_bytes(p50),
                crate::units::format_bytes(p90),
                crate::units::format_bytes(max)
            ),
            _ => String::new(),
        };
        let line = format!(
            "{}: {} files in {} directories, {}{sizes} {} {}{}",
            set.name,
            set.files,
            set.dirs,
            crate::units::format_bytes(set.bytes),
            if set.generated {
                "generated in"
            } else {
                "read from"
            },
            set.source_path,
            set.source_cached
                .map(|c| format!(" ({:.0}% in the page cache before copying)", c * 100.0))
                .unwrap_or_default()
        );
        if !sets.contains(&line) {
            sets.push(line);
        }
    }
    if !sets.is_empty() {
        let _ = writeln!(out, "\nfile sets:");
        for line in sets {
            let _ = writeln!(out, "  {line}");
        }
    }

    let tm = &report.time_machine_log;
    if !tm.is_empty() {
        let _ = writeln!(
            out,
            "\nTime Machine's destination check, as backupd would log it:"
        );
        for line in tm {
            let _ = writeln!(out, "  {line}");
        }
    }

    let details: Vec<String> = report
        .results
        .iter()
        .flat_map(super::details::lines)
        .collect();
    if !details.is_empty() {
        let _ = writeln!(out);
        for line in details {
            let _ = writeln!(out, "{line}");
        }
    }

    let mut methods: Vec<Method> = Vec::new();
    for r in &report.results {
        if !methods.contains(&r.method) {
            methods.push(r.method);
        }
    }
    if !methods.is_empty() {
        let _ = writeln!(out, "\nmethods:");
        for m in methods {
            let _ = writeln!(out, "  {:<12} {}", m.as_str(), m.explain());
        }
    }
    let _ = writeln!(
        out,
        "MB/s = 10^6 bytes/s; figures are medians of the runs; every write figure includes the flush to stable storage"
    );

    let result_warnings = report.labelled_result_warnings();
    if !report.warnings.is_empty() || !result_warnings.is_empty() {
        let _ = writeln!(
            out,
            "\n{}",
            style.paint(AnsiColor::Yellow.on_default().bold(), "warnings:")
        );
        for w in report.warnings.iter().chain(&result_warnings) {
            let _ = writeln!(out, "  - {w}");
        }
    }
    if !report.failures.is_empty() {
        let _ = writeln!(
            out,
            "\n{}",
            style.paint(AnsiColor::Red.on_default().bold(), "failed:")
        );
        for f in &report.failures {
            let _ = writeln!(out, "  - {} {}: {}", f.test, f.variant, f.error);
        }
    }
    if let Some(v) = &report.verdict {
        verdict(&mut out, v, style);
    }
    out
}

/// The verdict section, last: what holds the destination back.
fn verdict(out: &mut String, v: &Verdict, style: Style) {
    let _ = writeln!(
        out,
        "\n{} {}",
        style.paint(Ansi::new().bold(), "verdict:"),
        v.summary
    );
    for line in &v.details {
        let _ = writeln!(out, "  - {line}");
    }
}

/// `-v`: every result's repetitions in the order they ran, each with its figure, its time to the
/// microsecond and what it moved.
pub fn repetitions(report: &RunReport) -> String {
    let mut out = String::from("\nrepetitions, in the order they ran:\n");
    for r in &report.results {
        let _ = writeln!(out, "  {} {} ({}):", r.test, r.variant, r.unit.as_str());
        for (i, rep) in r.repetitions.iter().enumerate() {
            let passes = match rep.passes {
                Some(p) if p > 1 => format!(", the set {p} times"),
                _ => String::new(),
            };
            let _ = writeln!(
                out,
                "    {:>3}. {:>10.2} in {:.6} s ({}, {} {}{passes})",
                i + 1,
                rep.rate,
                rep.elapsed_s,
                crate::units::format_bytes(rep.bytes),
                rep.ops,
                match r.op_kind {
                    OpKind::Io => "I/Os",
                    OpKind::File => "files",
                    OpKind::Op => "operations",
                },
            );
        }
    }
    out
}

/// `destbench list`: every test variant with what it does.
pub fn list_tests(variants: &[Variant]) -> String {
    let mut out = String::new();
    for v in variants {
        let _ = writeln!(out, "{:<10} {:<12} {}", v.test.as_str(), v.name, v.about);
    }
    out
}
