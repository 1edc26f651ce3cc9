//! The terminal report: the summary first (verdict, CrystalDiskMark-style headline, backup-shaped
//! figures), then the details (the results table, file sets, the Time Machine log lines, the
//! legend of methods, warnings grouped by kind, failures). It fits the terminal's width (80 off a
//! terminal); colour as `--color` says (by default on a terminal, never with NO_COLOR).

pub mod details;
pub mod history;
pub mod progress;
pub mod results_table;

use std::fmt::Write as _;

use anstyle::{AnsiColor, Style as Ansi};

use crate::probe::NodeKind;
use crate::report::table::Table;
use crate::report::terminal::results_table::{narrow_table, wide_table};
use crate::results::{FileSizes, Method, OpKind, RunDocument, TestResult, Verdict};
use crate::settings::defs;
use crate::workload::Variant;

/// Whether to colour the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    pub color: bool,
}

impl Style {
    /// Colour as `--color` says; under `auto`, when stdout is a terminal and `NO_COLOR` is
    /// unset or empty.
    pub fn detect() -> Style {
        let choice = anstream::AutoStream::choice(&std::io::stdout());
        Style {
            color: choice != anstream::ColorChoice::Never,
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

/// How wide the report may be, and how much it shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// The most characters a line may have (80 off a terminal).
    pub width: usize,
    /// The full results table (`--wide`, `-v`) even when wider than `width`.
    pub wide: bool,
    /// Every warning whole (`-v`), not grouped.
    pub verbose: bool,
}

/// The width when stdout is not a terminal (or `COLUMNS` does not say).
pub const DEFAULT_WIDTH: usize = 80;
/// Grouped warnings (each wrapped whole) shown without `-v`.
const MAX_WARNING_ENTRIES: usize = 3;

impl Layout {
    /// `COLUMNS` when set, else the terminal's width when stdout is one, else 80.
    pub fn detect(wide: bool, verbose: bool) -> Layout {
        let columns = std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.trim().parse::<usize>().ok());
        let terminal =
            terminal_size::terminal_size_of(std::io::stdout()).map(|(w, _)| usize::from(w.0));
        Layout {
            width: columns.or(terminal).unwrap_or(DEFAULT_WIDTH).max(40),
            wide,
            verbose,
        }
    }
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
            width: DEFAULT_WIDTH,
            wide: false,
            verbose: false,
        }
    }
}

/// `text` wrapped to `width`, continuation lines indented by `indent` more than the first.
fn wrap(out: &mut String, first: &str, text: &str, width: usize) {
    let rest = " ".repeat(first.chars().count() + 2);
    let options = textwrap::Options::new(width)
        .initial_indent(first)
        .subsequent_indent(&rest)
        .break_words(true);
    for line in textwrap::wrap(text, options) {
        let _ = writeln!(out, "{line}");
    }
}

/// The whole terminal report: the summary first (what the destination is, the verdict, the
/// headline and backup-shaped figures), then the details.
pub fn render(report: &RunDocument, style: Style, layout: Layout) -> String {
    let mut out = String::new();
    // The answer's words open with the alarm; without an answer it opens the report itself.
    let alarm = report.verdict.as_ref().and_then(|v| v.alarm.as_deref());
    if let (None, Some(alarm)) = (&report.answer, alarm) {
        wrap(&mut out, "", alarm, layout.width);
        out.push('\n');
    }
    if let Some(answer) = &report.answer {
        let wrapped = |text: &str| {
            let mut lines = String::new();
            wrap(&mut lines, "", text, layout.width);
            lines
        };
        let bold = |text: &str| style.paint(Ansi::new().bold(), text);
        out.push_str(&crate::report::answer::text(answer, &wrapped, &bold));
    }
    title(&mut out, report, style, layout.width);
    summary(&mut out, report, style, layout.width);
    details(&mut out, report, style, layout);
    legend(&mut out, report, layout.width);
    problems(&mut out, report, style, layout);
    out
}

/// What was measured and how: the destination with its filesystem, the settings, the access.
fn title(out: &mut String, report: &RunDocument, style: Style, width: usize) {
    let s = &report.settings;
    // The destination with its filesystem's identity (the mount the chain starts from).
    let filesystem = report
        .chain
        .as_ref()
        .filter(|c| c.root.kind == NodeKind::Mount)
        .map(|c| format!(" ({})", c.root.label))
        .unwrap_or_default();
    let title = format!(
        "destbench on {}{filesystem}",
        crate::report::escape::terminal(&report.destination.path.display().to_string())
    );
    let mut wrapped = String::new();
    wrap(&mut wrapped, "", &title, width);
    let _ = write!(out, "{}", style.paint(Ansi::new().bold(), &wrapped));
    let share = s.adaptive.map_or(1.0, |a| a.size_share);
    let settings = format!(
        "profile {}, {} runs{}, {} block-test file{}, {:.1} s per block test, engine {}{}",
        s.profile,
        s.runs,
        if s.min_time_s > 0.0 {
            format!(" of at least {} s", s.min_time_s)
        } else {
            String::new()
        },
        crate::units::format_bytes(s.file_size_bytes),
        if share < 1.0 {
            format!(
                " (work sized to 1/{:.0} of the profile's for the destination's rate)",
                1.0 / share
            )
        } else {
            String::new()
        },
        s.block_duration_s,
        s.engine,
        s.label
            .as_ref()
            .map(|l| format!(", label \"{}\"", crate::report::escape::terminal(l)))
            .unwrap_or_default()
    );
    wrap(out, "", &settings, width);
    wrap(out, "", &format!("access: {}", report.access.note), width);
    wrap(
        out,
        "",
        &format!("build: destbench {}", report.destbench_version),
        width,
    );
}

/// The verdict (a share's parts under it), the headline figures and the backup-shaped ones.
fn summary(out: &mut String, report: &RunDocument, style: Style, width: usize) {
    if let Some(v) = &report.verdict {
        verdict(out, v, style, width);
    }
    if let Some(share) = &report.share {
        wrap(out, "share: ", &crate::report::share::words(share), width);
    }
    if let Some(headline) = crate::report::headline::tables(report) {
        let plain = |h: &str| h.to_string();
        let _ = writeln!(out);
        out.push_str(&headline.block.text(&plain));
        if let Some(backup) = headline.backup {
            let _ = writeln!(out);
            out.push_str(&backup.text(&plain));
        }
    }
}

/// Every result in a table (narrowed to the width unless asked), the clients, the file sets,
/// Time Machine's log lines and each result's own details.
fn details(out: &mut String, report: &RunDocument, style: Style, layout: Layout) {
    let width = layout.width;
    let _ = writeln!(out, "\n{}", style.paint(Ansi::new().bold(), "details:"));
    let bold = |header: &str| style.paint(Ansi::new().bold(), header);
    if report.results.is_empty() {
        let _ = writeln!(out, "no results");
    } else {
        let wide = wide_table(&report.results).text(&bold);
        let fits = wide.lines().all(|l| l.chars().count() <= width);
        if layout.wide || fits {
            out.push_str(&wide);
        } else {
            out.push_str(&narrow_table(&report.results).text(&bold));
            let _ = writeln!(
                out,
                "(min, max, IOPS, files/s, p50, p99.9, method, engine: {} or -v)",
                defs::WIDE
            );
        }
    }
    out.push_str(&crate::report::clients::text(
        report.cluster.as_ref(),
        &bold,
    ));
    file_sets(out, report, width);

    let tm = &report.time_machine_log;
    if !tm.is_empty() {
        let _ = writeln!(
            out,
            "\nTime Machine's destination check, as backupd would log it:"
        );
        for line in tm {
            wrap(out, "  ", line, width);
        }
    }
    let own = &report.destination.time_machine_checks;
    if !own.is_empty() {
        let _ = writeln!(
            out,
            "Time Machine's own checks of this volume (its unified log, last 7 days):"
        );
        for check in own {
            wrap(out, "  ", &check.to_string(), width);
        }
    }

    let details: Vec<String> = report
        .results
        .iter()
        .flat_map(crate::report::terminal::details::lines)
        .collect();
    if !details.is_empty() {
        let _ = writeln!(out);
        for line in details {
            wrap(out, "", &line, width);
        }
    }
}

/// What each method shown means, and how to read the figures.
fn legend(out: &mut String, report: &RunDocument, width: usize) {
    let mut methods: Vec<Method> = Vec::new();
    for r in &report.results {
        if !methods.contains(&r.method) {
            methods.push(r.method);
        }
    }
    if !methods.is_empty() {
        let _ = writeln!(out, "\nmethods:");
        for m in methods {
            wrap(out, &format!("  {:<12} ", m.as_str()), m.explain(), width);
        }
    }
    wrap(
        out,
        "",
        "MB/s = 10^6 bytes/s; figures are medians of the runs; every write figure includes the flush to stable storage",
        width,
    );
}

/// The warnings (grouped unless verbose) and the failures.
fn problems(out: &mut String, report: &RunDocument, style: Style, layout: Layout) {
    let width = layout.width;
    let warnings = if layout.verbose {
        crate::report::warnings::all(report)
    } else {
        crate::report::warnings::grouped(report, width.saturating_sub(4), MAX_WARNING_ENTRIES)
    };
    if !warnings.is_empty() {
        let _ = writeln!(
            out,
            "\n{}",
            style.paint(AnsiColor::Yellow.on_default().bold(), "warnings:")
        );
        for w in warnings {
            wrap(out, "  - ", &w, width);
        }
    }
    if !report.failures.is_empty() {
        let _ = writeln!(
            out,
            "\n{}",
            style.paint(AnsiColor::Red.on_default().bold(), "failed:")
        );
        for f in &report.failures {
            let line = format!("{} {}: {}", f.test, f.variant, f.error);
            wrap(out, "  - ", &line, width);
        }
    }
}

/// The file sets the tree tests used, each once.
fn file_sets(out: &mut String, report: &RunDocument, width: usize) {
    let mut sets: Vec<String> = Vec::new();
    for set in report.results.iter().filter_map(|r| r.file_set.as_ref()) {
        if set.source_path.is_empty() {
            continue;
        }
        let FileSizes {
            file_size_p50_bytes,
            file_size_p90_bytes,
            file_size_max_bytes,
        } = set.file_sizes;
        let sizes = match (
            file_size_p50_bytes,
            file_size_p90_bytes,
            file_size_max_bytes,
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
            wrap(out, "  ", &line, width);
        }
    }
}

/// The verdict, first: what holds the destination back, and what the next link allows.
fn verdict(out: &mut String, v: &Verdict, style: Style, width: usize) {
    let _ = writeln!(out);
    let label = style.paint(Ansi::new().bold(), "verdict:");
    // Wrapped without the label's colour codes, which take no columns.
    let mut first = String::new();
    wrap(&mut first, "verdict: ", &v.summary, width);
    out.push_str(&first.replacen("verdict:", &label, 1));
    for line in &v.details {
        wrap(out, "  - ", line, width);
    }
}

/// `-v`: every result's repetitions in the order they ran, each with its figure, its time to the
/// microsecond and what it moved; with how well they know the median and why they stopped.
pub fn repetitions(report: &RunDocument) -> String {
    let mut out = String::from("\nrepetitions, in the order they ran:\n");
    for r in &report.results {
        let _ = writeln!(
            out,
            "  {} {} ({}){}:",
            r.test,
            r.variant,
            r.unit.as_str(),
            precision(r)
        );
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

/// How well a result knows its median and why it stopped: ", median ±1.2% (95%), stopped:
/// precise"; empty for documents that recorded neither.
fn precision(r: &TestResult) -> String {
    let known = r
        .precision
        .map(|p| format!(", median ±{:.1}% (95%)", p * 100.0));
    let stopped = r.stopped.map(|s| format!(", stopped: {s}"));
    known.unwrap_or_default() + &stopped.unwrap_or_default()
}

/// `destbench list`: every test variant, the profiles that run it (`-` for none: only with
/// `--tests`), and what it does.
pub fn list_tests(rows: &[(&Variant, Vec<String>)]) -> String {
    let mut table = Table::text_then_figures(&["test", "variant", "profiles", "what it does"], &[]);
    for (v, profiles) in rows {
        let profiles = if profiles.is_empty() {
            "-".to_string()
        } else {
            profiles.join(",")
        };
        table.push([
            v.test.to_string(),
            v.name.clone(),
            profiles,
            v.about.clone(),
        ]);
    }
    table.text(&|h: &str| h.to_string())
}

#[cfg(test)]
mod tests;
