//! The answer's words and its "how long will it take" table, as the terminal, the HTML report and
//! the page show them first. The words are the answer's own (`crate::answer` writes them once);
//! this only lays them out.

use maud::{Markup, html};

use crate::results::{Answer, AnswerRow, Range};
use crate::units::human_duration;

/// "about 2 h 10 min", or "at least …" where the time leaves out each file's cost.
fn cell(r: Range, bytes_only: bool) -> String {
    let about = if bytes_only { "at least" } else { "about" };
    format!("{about} {}", human_duration(r.expected))
}

/// A row's label: "your data (212 GB)", "100 GB".
fn label(row: &AnswerRow, first: bool) -> String {
    if first {
        format!("{} ({})", row.label, crate::units::decimal_bytes(row.bytes))
    } else {
        row.label.clone()
    }
}

/// The answer as HTML: its first sentence large, the others under it, then the table.
pub fn html(answer: &Answer) -> Markup {
    html! {
        div class="time-answer" data-answer="time" {
            @if let Some((first, rest)) = answer.words.split_first() {
                p.time { (first) }
                @for sentence in rest { p { (sentence) } }
            }
            table class="how-long" data-table="how-long" {
                caption { "How long will a first backup take?" }
                tr { th {} @for t in &answer.tools { th scope="col" { (t.tool) } } }
                @for (i, row) in answer.table.iter().enumerate() {
                    tr {
                        th scope="row" { (label(row, i == 0)) }
                        @for (seconds, tool) in row.seconds.iter().zip(&answer.tools) {
                            td data-seconds=(format!("{:.0}", seconds.expected)) {
                                (cell(*seconds, tool.bytes_only || row.files.is_none()))
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The answer's sentences for the terminal, each as `wrap` lays it out, the first `bold`, then
/// an empty line.
pub fn text(
    answer: &Answer,
    wrap: &dyn Fn(&str) -> String,
    bold: &dyn Fn(&str) -> String,
) -> String {
    let mut out = String::new();
    for (i, sentence) in answer.words.iter().enumerate() {
        let wrapped = wrap(sentence);
        out.push_str(&if i == 0 { bold(&wrapped) } else { wrapped });
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{AnswerTool, DataKind, ToolTimes, YourData};

    /// The words first and escaped; a cell per tool and row, each a duration.
    #[test]
    fn the_table_has_a_duration_per_tool_and_row() {
        let r = |s: f64| Range {
            low: s * 0.9,
            expected: s,
            high: s * 1.1,
        };
        let tool = |tool| ToolTimes {
            tool,
            first_seconds: r(7800.0),
            bytes_only: false,
            routine: None,
            basis: String::new(),
        };
        let answer = Answer {
            data: YourData {
                kind: DataKind::HomeVolume,
                path: "/home/u".into(),
                bytes: 212_000_000_000,
                files: Some(480_000),
                reads: None,
            },
            cache: None,
            tools: vec![tool(AnswerTool::TimeMachine), tool(AnswerTool::PlainCopy)],
            what_if: None,
            limited_by: None,
            table: vec![AnswerRow {
                label: "your data".into(),
                bytes: 212_000_000_000,
                files: Some(480_000),
                seconds: vec![r(7800.0), r(3600.0)],
            }],
            missing: Vec::new(),
            words: vec!["A <first> backup".into(), "then".into()],
        };
        let html = html(&answer).into_string();
        assert!(
            html.contains("<p class=\"time\">A &lt;first&gt; backup</p>"),
            "{html}"
        );
        assert!(
            html.contains("<th scope=\"row\">your data (212 GB)</th>"),
            "{html}"
        );
        assert!(
            html.contains("<td data-seconds=\"7800\">about 2 h 10 min</td>"),
            "{html}"
        );
        assert!(
            html.contains("<td data-seconds=\"3600\">about 1 h 00 min</td>"),
            "{html}"
        );
    }
}
