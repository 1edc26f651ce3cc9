//! Warnings grouped by kind for the terminal: one entry per kind with how many results it
//! concerns ("short-sample: 10 results (seq-write 20-100MB, and 9 more); see -v"), instead of one
//! long line per result, kinds in the order of [`WarningKind`] (what the user must act on
//! first). A sentence is never cut (the terminal wraps it); `-v` prints every warning whole.

use crate::results::{RunDocument, Warning, WarningKind};

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
fn groups(report: &RunDocument) -> Vec<Group> {
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

/// As many of `items` as fit in `room` characters, whole, and how many more there are.
fn fit_list(items: &[String], room: usize) -> String {
    let mut shown = items[0].clone();
    for (i, item) in items.iter().enumerate().skip(1) {
        let rest = items.len() - i;
        let more = if rest > 1 {
            format!(", and {} more", rest - 1)
        } else {
            String::new()
        };
        if shown.chars().count() + 2 + item.chars().count() + more.chars().count() > room {
            return format!("{shown}, and {rest} more");
        }
        shown = format!("{shown}, {item}");
    }
    shown
}

/// The grouped warnings, most pressing first, at most `max_entries` of them (the last then
/// names the kinds `-v` shows besides). A kind's list of results is kept to two lines of
/// `width` characters by naming fewer results; a sentence is kept whole.
pub fn grouped(report: &RunDocument, width: usize, max_entries: usize) -> Vec<String> {
    let groups = groups(report);
    let mut entries: Vec<String> = groups
        .iter()
        .map(|g| match g.results.len() {
            0 => g.first.clone(),
            1 => format!("{}: {}", g.results[0], g.first),
            n => {
                let tail = "; see -v";
                let head = format!("{}: {n} results (", g.kind.title());
                // Two lines' worth of results: the terminal wraps the entry.
                let room = (2 * width).saturating_sub(head.chars().count() + tail.len() + 1);
                format!("{head}{}){tail}", fit_list(&g.results, room))
            }
        })
        .collect();
    if entries.len() > max_entries && max_entries > 0 {
        let kept = max_entries - 1;
        let titles: Vec<&str> = groups[kept..].iter().map(|g| g.kind.title()).collect();
        entries.truncate(kept);
        entries.push(format!(
            "and {} more kinds of warning ({}); see -v",
            titles.len(),
            titles.join(", ")
        ));
    }
    entries
}

/// Every warning whole, as `-v` prints them: "test variant: warning" for a result's.
pub fn all(report: &RunDocument) -> Vec<String> {
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

    fn items(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn a_list_keeps_whole_items_and_counts_the_rest() {
        let list = items(&["seq-write 20-100MB", "tm-check 50MB", "tm-check 500x4KB"]);
        assert_eq!(
            fit_list(&list, 200),
            "seq-write 20-100MB, tm-check 50MB, tm-check 500x4KB"
        );
        assert_eq!(fit_list(&list, 40), "seq-write 20-100MB, and 2 more");
        // The first item is always named, whatever the room.
        assert_eq!(fit_list(&list, 5), "seq-write 20-100MB, and 2 more");
    }
}
