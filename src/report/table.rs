//! One table model (columns, rows of cells) for every table destbench prints: the terminal lays
//! it out in aligned columns, Markdown and HTML render the same cells in their syntax. The
//! builders here decide what a table holds (the comparison of stored runs); the renderers only
//! lay it out.

use std::fmt::Write as _;

use maud::{Markup, Render, html};

use crate::history::{Comparison, Group};
use crate::report::escape;

/// How a column's cells line up: text to the left, numbers to the right.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub title: String,
    pub align: Align,
}

/// One cell: its text, and whether it deserves attention (a real difference).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cell {
    pub text: String,
    pub emphasis: bool,
}

impl From<String> for Cell {
    fn from(text: String) -> Cell {
        Cell {
            text,
            emphasis: false,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Table {
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Cell>>,
}

/// Shown where a run lacks a figure.
pub const MISSING: &str = "–";

impl Table {
    /// A table with these columns: `(title, align)`.
    /// Text columns first, left-aligned, then figures, right-aligned: the shape of most tables.
    pub fn text_then_figures(text: &[&str], figures: &[&str]) -> Table {
        let text = text.iter().map(|&t| (t, Align::Left));
        Table::new(text.chain(figures.iter().map(|&f| (f, Align::Right))))
    }

    pub fn new<S: Into<String>>(columns: impl IntoIterator<Item = (S, Align)>) -> Table {
        Table {
            columns: columns
                .into_iter()
                .map(|(title, align)| Column {
                    title: title.into(),
                    align,
                })
                .collect(),
            rows: Vec::new(),
        }
    }

    pub fn push(&mut self, row: impl IntoIterator<Item = impl Into<Cell>>) {
        self.rows.push(row.into_iter().map(Into::into).collect());
    }

    /// Aligned columns separated by two spaces, for the terminal; `header` styles the header
    /// line (bold on a colour terminal).
    pub fn text(&self, header: &dyn Fn(&str) -> String) -> String {
        let widths: Vec<usize> = self
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| {
                self.rows
                    .iter()
                    .filter_map(|r| r.get(i))
                    .map(|c| c.text.chars().count())
                    .chain([c.title.chars().count()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |cells: Vec<&str>| {
            let text = cells
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let pad = " ".repeat(widths[i].saturating_sub(c.chars().count()));
                    match self.columns[i].align {
                        Align::Left => format!("{c}{pad}"),
                        Align::Right => format!("{pad}{c}"),
                    }
                })
                .collect::<Vec<_>>()
                .join("  ");
            text.trim_end().to_string()
        };
        let mut out = header(&line(
            self.columns.iter().map(|c| c.title.as_str()).collect(),
        ));
        out.push('\n');
        for r in &self.rows {
            out.push_str(&line(r.iter().map(|c| c.text.as_str()).collect()));
            out.push('\n');
        }
        out
    }

    /// A Markdown table (text escaped for a table cell).
    pub fn markdown(&self) -> String {
        let row = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
        let mut out = row(self
            .columns
            .iter()
            .map(|c| escape::markdown_cell(&c.title))
            .collect());
        let rule: Vec<&str> = self
            .columns
            .iter()
            .map(|c| match c.align {
                Align::Left => "---",
                Align::Right => "---:",
            })
            .collect();
        let _ = writeln!(out, "|{}|", rule.join("|"));
        for r in &self.rows {
            out.push_str(&row(r
                .iter()
                .map(|c| escape::markdown_cell(&c.text))
                .collect()));
        }
        out
    }
}

/// An HTML table; numbers get `class="n"`, emphasised cells `class="real"`.
impl Render for Table {
    fn render(&self) -> Markup {
        html! {
            table {
                tr { @for c in &self.columns { th { (c.title) } } }
                @for r in &self.rows {
                    tr {
                        @for (cell, column) in r.iter().zip(&self.columns) {
                            td class=[cell.class(column.align)] { (cell.text) }
                        }
                    }
                }
            }
        }
    }
}

impl Cell {
    /// The HTML class of the cell in a column aligned so.
    fn class(&self, align: Align) -> Option<&'static str> {
        match (self.emphasis, align) {
            (true, _) => Some("real"),
            (false, Align::Right) => Some("n"),
            (false, Align::Left) => None,
        }
    }
}

/// One test of a comparison: per variant, each run's median, and for every run after the first
/// its ratio to the first and whether the difference is real. `names` head the runs' columns.
pub fn comparison(cmp: &Comparison, group: &Group, names: &[String]) -> Table {
    let mut columns = vec![("variant".to_string(), Align::Left)];
    for (i, name) in names.iter().enumerate().take(cmp.runs.len()) {
        columns.push((name.clone(), Align::Right));
        if i > 0 {
            columns.push(("ratio".into(), Align::Right));
            columns.push(("difference".into(), Align::Left));
        }
    }
    let mut table = Table::new(columns);
    for row in &group.rows {
        let mut cells = vec![Cell::from(format!(
            "{} ({})",
            row.variant,
            row.unit.as_str()
        ))];
        for (i, cell) in row.cells.iter().enumerate() {
            let c = cell.as_ref();
            cells.push(
                c.map_or(MISSING.into(), |c| format!("{:.2}", c.median))
                    .into(),
            );
            if i > 0 {
                cells.push(
                    c.and_then(|c| c.ratio)
                        .map_or(MISSING.into(), |r| format!("{r:.2}×"))
                        .into(),
                );
                cells.push(Cell {
                    text: c
                        .and_then(|c| c.verdict.clone())
                        .unwrap_or_else(|| MISSING.into()),
                    emphasis: c.and_then(|c| c.significance).is_some_and(|s| s.is_real()),
                });
            }
        }
        table.rows.push(cells);
    }
    table
}

/// The runs' names, for the comparison tables' column headers.
pub fn run_names(cmp: &Comparison) -> Vec<String> {
    cmp.runs.iter().map(|r| r.name.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Table {
        let mut t = Table::new([("name", Align::Left), ("MB/s", Align::Right)]);
        t.push(["a|b".to_string(), "1.50".to_string()]);
        t.rows.push(vec![
            "<long name>".to_string().into(),
            Cell {
                text: "12.00".into(),
                emphasis: true,
            },
        ]);
        t
    }

    #[test]
    fn one_table_three_renderings() {
        let t = sample();
        assert_eq!(
            t.text(&|h| h.to_string()),
            "name          MB/s\na|b           1.50\n<long name>  12.00\n"
        );
        assert_eq!(
            t.markdown(),
            "| name | MB/s |\n|---|---:|\n| a\\|b | 1.50 |\n| &lt;long name&gt; | 12.00 |\n"
        );
        assert_eq!(
            t.render().into_string(),
            "<table><tr><th>name</th><th>MB/s</th></tr><tr><td>a|b</td><td class=\"n\">1.50</td></tr>\
             <tr><td>&lt;long name&gt;</td><td class=\"real\">12.00</td></tr></table>"
        );
    }
}
