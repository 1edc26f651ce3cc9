//! The answer first, for a glance (`destbench ui`'s page, after a run): the time answer, the
//! verdict in words, one tile per headline figure, the chain. The figures are the headline
//! tables' cells (`headline::tables`, from `RunDocument::headline`), so the page, the terminal and
//! the HTML report show the same ones.

use maud::{Markup, html};

use crate::report::table::{Align, Cell, Column, Table};
use crate::results::RunDocument;

/// What a page says of a run without a verdict.
fn no_verdict() -> Markup {
    html! { p.note { "No verdict recorded with this run." } }
}

/// What a page says of a run that measured no headline figure.
pub(in crate::report) fn no_headline() -> Markup {
    html! { p.note { "This run measured none of the headline figures." } }
}

/// The run's verdict in words as `draw` marks it up, or the note that it has none.
pub(in crate::report) fn verdict(run: &RunDocument, draw: impl Fn(String) -> Markup) -> Markup {
    match &run.verdict {
        Some(v) => draw(v.in_words()),
        None => no_verdict(),
    }
}

/// What a run's page opens with: the answer, whose words open with the disk's alarm; without an
/// answer, the alarm alone.
pub(in crate::report) fn opening(run: &RunDocument) -> Markup {
    html! {
        @match (&run.answer, run.verdict.as_ref().and_then(|v| v.alarm.as_deref())) {
            (Some(answer), _) => (crate::report::answer::html(answer)),
            (None, Some(alarm)) => p.alarm data-alarm { (alarm) },
            (None, None) => {},
        }
    }
}

/// The page's glance at a run, as an HTML fragment: the time answer and its "how long" table,
/// the verdict and the headline's tiles, a share's time in parts, then the chain as the report
/// draws it.
pub fn glance(run: &RunDocument) -> Markup {
    html! {
        div.answer {
            (opening(run))
            div.tiles {
                (verdict(run, |words| html! {
                    div class="tile verdict" data-tile="verdict" { h3 { "Verdict" } p { (words) } }
                }))
                @match crate::report::headline::tables(run) {
                    Some(tables) => {
                        (tiles(&tables.block))
                        @if let Some(backup) = &tables.backup { (tiles(backup)) }
                    }
                    None => (no_headline()),
                }
            }
            (crate::report::html::share::time(run))
            @if let Some(chain) = &run.chain {
                (crate::report::html::diagram::chain(chain, run.verdict.as_ref()))
            }
        }
    }
}

/// A table's tiles under its first column's title, said once (the unit, or the kind); one tile
/// per row.
fn tiles(table: &Table) -> Markup {
    let kind = table.columns.first().map_or("", |c| c.title.as_str());
    html! {
        p.kind { (kind) }
        @for row in &table.rows {
            @if let Some((title, rest)) = row.split_first() {
                (tile(title, rest.iter().zip(table.columns.iter().skip(1))))
            }
        }
    }
}

/// One row's tile: the first cell its title, the row's other words (which result it is from)
/// under it, then its figures (the right-aligned columns), each marked with its column so that
/// read and write can be told apart by colour.
fn tile<'a>(title: &Cell, cells: impl Iterator<Item = (&'a Cell, &'a Column)> + Clone) -> Markup {
    let caption: Vec<String> = cells
        .clone()
        .filter(|(_, c)| c.align == Align::Left)
        .map(|(cell, column)| format!("{} {}", column.title, cell.text))
        .collect();
    html! {
        div.tile data-tile="figure" {
            h3 { (title.text) }
            @if !caption.is_empty() { small { (caption.join(", ")) } }
            dl {
                @for (cell, column) in cells.filter(|(_, c)| c.align == Align::Right) {
                    dt data-column=(column.title) { (column.title) }
                    dd data-column=(column.title) { (cell.text) }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::{Chain, Node, NodeKind};
    use crate::results::{DataKind, YourData};

    /// In the order a glance reads: the time, its table, the verdict, the unit once, a tile per
    /// headline row (read and write marked), the chain; text escaped.
    #[test]
    fn the_time_then_the_verdict_the_tiles_and_the_chain_escaped() {
        let mut run: RunDocument = serde_json::from_value(serde_json::json!({
            "results": [
                { "test": "seq-write", "variant": "SEQ1M-Q8T1", "median": 33.84, "min": 33.0,
                  "max": 34.5, "method": "direct", "engine": "sync" },
                { "test": "seq-read", "variant": "SEQ1M-Q8T1", "median": 41.0,
                  "method": "direct", "engine": "sync" } ],
        }))
        .unwrap();
        let mut verdict = crate::verdict::of(&run);
        verdict.summary = "limited by <USB> & co".into();
        verdict.details.clear();
        run.verdict = Some(verdict);
        let data = YourData {
            kind: DataKind::HomeVolume,
            path: "/home/u".into(),
            bytes: 212_000_000_000,
            files: Some(480_000),
            reads: None,
        };
        run.answer = crate::answer::of(&run, data);
        let mut root = Node::new(NodeKind::Mount, "ext4 at /mnt");
        root.children.push(Node::new(NodeKind::Disk, "disk <sdb>"));
        run.chain = Some(Chain {
            path: "/mnt".into(),
            root,
            notes: Vec::new(),
        });
        let html = glance(&run).into_string();
        let at = |what: &str| {
            html.find(what)
                .unwrap_or_else(|| panic!("{what} in {html}"))
        };
        let order = [
            at("<p class=\"time\">"),
            at("<table class=\"how-long\""),
            at(
                "<div class=\"tile verdict\" data-tile=\"verdict\"><h3>Verdict</h3><p>limited by &lt;USB&gt; &amp; co</p>",
            ),
            at("<p class=\"kind\">MB/s</p>"),
            at(
                "<h3>SEQ1M-Q8T1</h3><dl><dt data-column=\"read\">read</dt><dd data-column=\"read\">41.0</dd>\
                <dt data-column=\"write\">write</dt><dd data-column=\"write\">33.8</dd></dl>",
            ),
            at("<b>disk &lt;sdb&gt;</b>"),
        ];
        assert!(order.is_sorted(), "{order:?} in {html}");
        assert_eq!(
            html.matches("<p class=\"kind\">").count(),
            1,
            "one table: {html}"
        );
        assert!(
            !html.contains("<small>MB/s"),
            "the unit once, not per tile: {html}"
        );
        let nothing: RunDocument = serde_json::from_value(serde_json::json!({})).unwrap();
        let html = glance(&nothing).into_string();
        assert!(html.contains("No verdict recorded") && html.contains("none of the headline"));
        assert!(!html.contains("time-answer") && !html.contains("data-chart"));
    }
}
