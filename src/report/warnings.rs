//! Warnings grouped by kind for the terminal: one line per kind with how many results it
//! concerns ("short-sample: 10 results (seq-write 20-100MB, ...); see -v"), instead of one
//! long line per result, kinds in the order of [`WarningKind`]. `-v` prints every warning whole.

use crate::results::{RunReport, Warning, WarningKind};

/// One kind of warning and what it concerns.
struct Group {
    kind: WarningKind,
    /// The first warning's text, whole (shown when the kind concerns one thing only).
    first: String,
    /// "test variant" of each result it concerns; empty for a run-level warning.
    results: Vec<String>,
}

/// The warnings grouped by kind, in the order of the kinds. Warnings of documents written
/// before warnings had kinds are each a group of their own words.
fn groups(report: &RunReport) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for (result, Warning { kind, message }) in report.labelled_warnings() {
        let same =
            |g: &&mut Group| g.kind == kind && (kind != WarningKind::Other || g.first == message);
        match groups.iter_mut().find(same) {
            Some(g) => g.results.extend(result),
            None => groups.push(Group {
                kind,
                first: message,
                results: result.into_iter().collect(),
            }),
        }
    }
    groups.sort_by_key(|g| g.kind);
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
                let head = format!("{}: {n} results (", g.kind.title());
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

/// Every warning whole, as `-v` prints them: "test variant: warning" for a result's.
pub fn all(report: &RunReport) -> Vec<String> {
    report
        .labelled_warnings()
        .into_iter()
        .map(|(result, w)| match result {
            Some(name) => format!("{name}: {w}"),
            None => w.message,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_cuts_to_width() {
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(fit("abc", 4), "abc");
    }
}
