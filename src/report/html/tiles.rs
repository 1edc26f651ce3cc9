//! The answer first, for a glance (`destbench ui`'s page, after a run): the time answer, the
//! verdict in words, one tile per headline figure, the chain. The figures are the headline
//! tables' cells (`headline::tables`, from `RunReport::headline`), so the page, the terminal and
//! the HTML report show the same ones.

use std::fmt::Write as _;

use crate::report::escape::html as escape;
use crate::report::table::{Align, Table};
use crate::results::RunReport;

/// What a page says of a run without a verdict, and of one that measured no headline figure.
const NO_VERDICT: &str = "<p class=\"note\">No verdict recorded with this run.</p>\n";
pub(in crate::report) const NO_HEADLINE: &str =
    "<p class=\"note\">This run measured none of the headline figures.</p>\n";

/// The run's verdict in words (escaped) as `draw` marks it up, or the note that it has none.
pub(in crate::report) fn verdict(out: &mut String, run: &RunReport, draw: impl Fn(&str) -> String) {
    match &run.verdict {
        Some(v) => {
            out.push_str(&draw(&escape(&v.in_words())));
            out.push('\n');
        }
        None => out.push_str(NO_VERDICT),
    }
}

/// The page's glance at a run, as an HTML fragment (text escaped): the time answer and its
/// "how long" table, the verdict and the headline's tiles, then the chain as the report draws it.
pub fn answer(run: &RunReport) -> String {
    let mut out = String::from("<div class=\"answer\">\n");
    if let Some(answer) = &run.answer {
        out.push_str(&crate::report::answer::html(answer));
    }
    out.push_str("<div class=\"tiles\">\n");
    verdict(&mut out, run, |words| {
        format!(
            "<div class=\"tile verdict\" data-tile=\"verdict\"><h3>Verdict</h3><p>{words}</p></div>"
        )
    });
    match crate::report::headline::tables(run) {
        Some(tables) => {
            tiles(&mut out, &tables.block);
            if let Some(backup) = &tables.backup {
                tiles(&mut out, backup);
            }
        }
        None => out.push_str(NO_HEADLINE),
    }
    out.push_str("</div>\n");
    if let Some(chain) = &run.chain {
        crate::report::html::diagram::chain(&mut out, chain, run.verdict.as_ref());
    }
    out.push_str("</div>\n");
    out
}

/// A table's tiles under its first column's title, said once (the unit, or the kind); one tile
/// per row: the first cell its title, the row's other words (which result it is from) under
/// it, then its figures (the right-aligned columns), each marked with its column so that read
/// and write can be told apart by colour.
fn tiles(out: &mut String, table: &Table) {
    let kind = table.columns.first().map_or("", |c| c.title.as_str());
    let _ = writeln!(out, "<p class=\"kind\">{}</p>", escape(kind));
    for row in &table.rows {
        let Some((title, rest)) = row.split_first() else {
            continue;
        };
        let cells = || rest.iter().zip(table.columns.iter().skip(1));
        let caption: Vec<String> = cells()
            .filter(|(_, c)| c.align == Align::Left)
            .map(|(cell, column)| format!("{} {}", column.title, cell.text))
            .collect();
        let _ = write!(
            out,
            "<div class=\"tile\" data-tile=\"figure\"><h3>{}</h3>",
            escape(&title.text)
        );
        if !caption.is_empty() {
            let _ = write!(out, "<small>{}</small>", escape(&caption.join(", ")));
        }
        out.push_str("<dl>");
        for (cell, column) in cells().filter(|(_, c)| c.align == Align::Right) {
            let column = escape(&column.title);
            let _ = write!(
                out,
                "<dt data-column=\"{column}\">{column}</dt><dd data-column=\"{column}\">{}</dd>",
                escape(&cell.text)
            );
        }
        out.push_str("</dl></div>\n");
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
        let mut run: RunReport = serde_json::from_value(serde_json::json!({
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
        };
        run.answer = crate::answer::of(&run, data);
        let mut root = Node::new(NodeKind::Mount, "ext4 at /mnt");
        root.children.push(Node::new(NodeKind::Disk, "disk <sdb>"));
        run.chain = Some(Chain {
            path: "/mnt".into(),
            root,
            notes: Vec::new(),
        });
        let html = answer(&run);
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
        let nothing: RunReport = serde_json::from_value(serde_json::json!({})).unwrap();
        let html = answer(&nothing);
        assert!(html.contains("No verdict recorded") && html.contains("none of the headline"));
        assert!(!html.contains("time-answer") && !html.contains("data-chart"));
    }
}
