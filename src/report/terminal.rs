//! The terminal report: a table in the spirit of CrystalDiskMark, the Time Machine log lines, the
//! legend of methods, warnings and failures. Colour only on a terminal, and never with NO_COLOR.

use std::fmt::Write as _;
use std::io::IsTerminal;

use anstyle::{AnsiColor, Style as Ansi};

use crate::results::{Method, RunReport, TestResult, Unit};
use crate::runner::time_machine_lines;
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

const HEADER: [&str; 13] = [
    "test",
    "variant",
    "median",
    "min",
    "max",
    "unit",
    "cv",
    "IOPS",
    "p50 µs",
    "p99 µs",
    "p99.9 µs",
    "method",
    "engine",
];
/// Columns shown left-aligned (text); the others are numbers.
const TEXT_COLUMNS: [usize; 5] = [0, 1, 5, 11, 12];

fn latency(us: f64) -> String {
    if us < 100.0 {
        format!("{us:.1}")
    } else {
        format!("{us:.0}")
    }
}

fn row(r: &TestResult) -> [String; 13] {
    let lat = r.latency_us;
    let iops = match (r.op_kind, r.unit) {
        // The figure itself already counts files or operations.
        (_, Unit::FilesPerSecond | Unit::OpsPerSecond) => "-".to_string(),
        ("file", _) => format!("{:.0} files/s", r.ops_per_s.median),
        _ => format!("{:.0}", r.ops_per_s.median),
    };
    [
        r.test.to_string(),
        r.variant.clone(),
        format!("{:.2}", r.summary.median),
        format!("{:.2}", r.summary.min),
        format!("{:.2}", r.summary.max),
        r.unit.as_str().to_string(),
        format!("{:.1}%", r.summary.cv * 100.0),
        iops,
        lat.map_or("-".into(), |l| latency(l.p50)),
        lat.map_or("-".into(), |l| latency(l.p99)),
        lat.map_or("-".into(), |l| latency(l.p999)),
        r.method.as_str().to_string(),
        r.engine.name().to_string(),
    ]
}

/// Lays out rows in columns: text left-aligned in the first two, numbers right-aligned after.
fn table(rows: &[[String; 13]], style: Style) -> String {
    let width = |i: usize| {
        rows.iter()
            .map(|r| r[i].chars().count())
            .chain([HEADER[i].chars().count()])
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..HEADER.len()).map(width).collect();
    let line = |cells: Vec<&str>| {
        cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let pad = widths[i] - c.chars().count();
                if TEXT_COLUMNS.contains(&i) {
                    format!("{c}{}", " ".repeat(pad))
                } else {
                    format!("{}{c}", " ".repeat(pad))
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    let mut out = String::new();
    let header = line(HEADER.to_vec());
    let _ = writeln!(out, "{}", style.paint(Ansi::new().bold(), &header));
    for r in rows {
        let text = line(r.iter().map(String::as_str).collect());
        let _ = writeln!(out, "{text}");
    }
    out
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
                report.destination.display()
            )
        )
    );
    let _ = writeln!(
        out,
        "profile {}, {} runs, {} block-test file, {:.1} s per block test, engine {}{}",
        s.profile,
        s.runs,
        crate::units::format_bytes(s.file_size_bytes),
        s.block_duration_s,
        s.engine,
        s.label
            .as_ref()
            .map(|l| format!(", label \"{l}\""))
            .unwrap_or_default()
    );
    let _ = writeln!(out, "access: {}", report.access.note);
    let _ = writeln!(out);
    let rows: Vec<[String; 13]> = report.results.iter().map(row).collect();
    if rows.is_empty() {
        let _ = writeln!(out, "no results");
    } else {
        out.push_str(&table(&rows, style));
    }

    let mut sets: Vec<String> = Vec::new();
    for set in report.results.iter().filter_map(|r| r.file_set.as_ref()) {
        if set.source_path.is_empty() {
            continue;
        }
        let line = format!(
            "{}: {} files in {} directories, {} {} {}{}",
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

    let tm = time_machine_lines(report);
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

    let result_warnings: Vec<String> = report
        .results
        .iter()
        .flat_map(|r| {
            r.warnings
                .iter()
                .map(move |w| format!("{} {}: {w}", r.test, r.variant))
        })
        .collect();
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
fn verdict(out: &mut String, v: &crate::verdict::Verdict, style: Style) {
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

/// `destbench list`: every test variant with what it does.
pub fn list_tests(variants: &[Variant]) -> String {
    let mut out = String::new();
    for v in variants {
        let _ = writeln!(out, "{:<10} {:<12} {}", v.test.as_str(), v.name, v.about);
    }
    out
}
