//! The answer first, as tiles (`destbench ui`'s page, after a run): the verdict in words, then one
//! tile per headline figure. The figures are the headline tables' cells (`headline::tables`,
//! from `RunReport::headline`), so the page, the terminal and the HTML report show the same ones.

use std::fmt::Write as _;

use super::escape::html as escape;
use super::table::{Align, Table};
use crate::results::RunReport;

/// What a page says of a run without a verdict, and of one that measured no headline figure.
const NO_VERDICT: &str = "<p class=\"note\">No verdict recorded with this run.</p>\n";
pub(super) const NO_HEADLINE: &str =
    "<p class=\"note\">This run measured none of the headline figures.</p>\n";

/// The run's verdict in words (escaped) as `draw` marks it up, or the note that it has none.
pub(super) fn verdict(out: &mut String, run: &RunReport, draw: impl Fn(&str) -> String) {
    match &run.verdict {
        Some(v) => {
            out.push_str(&draw(&escape(&v.in_words())));
            out.push('\n');
        }
        None => out.push_str(NO_VERDICT),
    }
}

/// The verdict and the headline's tiles, as an HTML fragment (text escaped).
pub fn answer(run: &RunReport) -> String {
    let mut out = String::from("<div class=\"answer\">\n");
    if let Some(answer) = &run.answer {
        out.push_str(&super::answer::html(answer));
    }
    verdict(&mut out, run, |words| {
        format!(
            "<div class=\"tile verdict\" data-tile=\"verdict\"><h3>Verdict</h3><p>{words}</p></div>"
        )
    });
    match super::headline::tables(run) {
        Some(tables) => {
            tiles(&mut out, &tables.block);
            if let Some(backup) = &tables.backup {
                tiles(&mut out, backup);
            }
        }
        None => out.push_str(NO_HEADLINE),
    }
    out.push_str("</div>\n");
    out
}

/// One tile per row: the first cell its title; under it the first column's title (the unit or
/// the kind) and the row's other words (which result it is from); then its figures (the table's
/// right-aligned columns) under their columns' titles.
fn tiles(out: &mut String, table: &Table) {
    let kind = table.columns.first().map_or("", |c| c.title.as_str());
    for row in &table.rows {
        let Some((title, rest)) = row.split_first() else {
            continue;
        };
        let cells = || rest.iter().zip(table.columns.iter().skip(1));
        let mut caption = vec![kind.to_string()];
        for (cell, column) in cells().filter(|(_, c)| c.align == Align::Left) {
            caption.push(format!("{} {}", column.title, cell.text));
        }
        let _ = write!(
            out,
            "<div class=\"tile\" data-tile=\"figure\"><h3>{}</h3><small>{}</small><dl>",
            escape(&title.text),
            escape(&caption.join(", "))
        );
        for (cell, column) in cells().filter(|(_, c)| c.align == Align::Right) {
            let _ = write!(
                out,
                "<dt>{}</dt><dd>{}</dd>",
                escape(&column.title),
                escape(&cell.text)
            );
        }
        out.push_str("</dl></div>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verdict_then_a_tile_per_headline_row_escaped() {
        let mut run: RunReport = serde_json::from_value(serde_json::json!({
            "results": [
                { "test": "seq-write", "variant": "SEQ1M-Q8T1", "median": 33.84,
                  "method": "direct", "engine": "sync" },
                { "test": "seq-read", "variant": "SEQ1M-Q8T1", "median": 41.0,
                  "method": "direct", "engine": "sync" } ],
        }))
        .unwrap();
        let mut verdict = crate::verdict::of(&run);
        verdict.summary = "limited by <USB> & co".into();
        verdict.details.clear();
        run.verdict = Some(verdict);
        let html = answer(&run);
        let verdict = html
            .find("<p>limited by &lt;USB&gt; &amp; co</p>")
            .expect(&html);
        let tile = html
            .find("<h3>SEQ1M-Q8T1</h3><small>MB/s</small><dl><dt>read</dt><dd>41.0</dd><dt>write</dt><dd>33.8</dd></dl>")
            .expect(&html);
        assert!(verdict < tile, "the verdict first");
        let nothing: RunReport = serde_json::from_value(serde_json::json!({})).unwrap();
        let html = answer(&nothing);
        assert!(html.contains("No verdict recorded") && html.contains("none of the headline"));
    }
}
