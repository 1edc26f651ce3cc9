//! Warnings grouped by kind for the terminal: one line per kind with how many results it
//! concerns ("short-sample: 10 results (seq-write 20-100MB, ...); see -v"), instead of one
//! long line per result. `-v` prints every warning whole.

use crate::results::RunReport;

/// One kind of warning and what it concerns.
struct Group {
    kind: String,
    /// The first warning's text, whole (shown when the kind concerns one thing only).
    first: String,
    /// "test variant" of each result it concerns; empty for a run-level warning.
    results: Vec<String>,
}

/// A warning's kind: its text up to the first colon or parenthesis, with its figures taken out,
/// so that "repetition 2 is an outlier" and "repetition 5 is an outlier" are one kind.
fn kind(text: &str) -> String {
    let head = text.split([':', '(']).next().unwrap_or(text);
    let words: Vec<&str> = head
        .split_whitespace()
        .filter(|w| !w.chars().any(|c| c.is_ascii_digit()))
        .collect();
    words.join(" ")
}

fn groups(report: &RunReport) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    let run_level = report.warnings.iter().map(|w| (None, w.clone()));
    let per_result = (0..report.results.len()).flat_map(|i| {
        let r = &report.results[i];
        let name = format!("{} {}", r.test, r.variant);
        report
            .result_warnings(i)
            .into_iter()
            .map(move |w| (Some(name.clone()), w))
    });
    for (result, text) in run_level.chain(per_result) {
        let kind = kind(&text);
        match groups.iter_mut().find(|g| g.kind == kind) {
            Some(g) => g.results.extend(result),
            None => groups.push(Group {
                kind,
                first: text,
                results: result.into_iter().collect(),
            }),
        }
    }
    groups
}

/// Cuts `text` to `width` characters, marking the cut with "…".
fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// The grouped warning lines, each at most `width` characters, at most `max_lines` of them
/// (the last then says how many kinds more `-v` shows).
pub fn grouped(report: &RunReport, width: usize, max_lines: usize) -> Vec<String> {
    let groups = groups(report);
    let mut lines: Vec<String> = groups
        .iter()
        .map(|g| match g.results.len() {
            0 => fit(&g.first, width),
            1 => fit(&format!("{}: {}", g.results[0], g.first), width),
            n => {
                let tail = "; see -v";
                let head = format!("{}: {n} results (", g.kind);
                let list = g.results.join(", ");
                let room = width.saturating_sub(head.chars().count() + tail.len() + 1);
                format!("{head}{}){tail}", fit(&list, room))
            }
        })
        .collect();
    if lines.len() > max_lines && max_lines > 0 {
        let more = lines.len() - (max_lines - 1);
        lines.truncate(max_lines - 1);
        lines.push(format!("and {more} more kinds of warning; see -v"));
    }
    lines
}

/// Every warning whole, as `-v` prints them.
pub fn all(report: &RunReport) -> Vec<String> {
    report
        .warnings
        .iter()
        .cloned()
        .chain(report.labelled_result_warnings())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_ignore_figures() {
        assert_eq!(
            kind("repetition 2 is an outlier: 3.00 MB/s"),
            kind("repetition 5 is an outlier: 9.00 MB/s")
        );
        assert_eq!(kind("short-sample: lasted 0.1 s"), "short-sample");
        assert_ne!(kind("large spread: 12%"), kind("short-sample: x"));
    }

    #[test]
    fn fit_cuts_to_width() {
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(fit("abc", 4), "abc");
    }
}
