//! The headline as tables, drawn alike by the terminal's first screen, the HTML summary and the
//! Markdown export: the four CrystalDiskMark-style block figures (read and write), then the
//! backup-shaped ones, each naming the result it comes from. Which results they are is
//! `RunDocument::headline`'s choice; every figure is a stored result's median.

use crate::report::table::{MISSING, Table};
use crate::results::{OpKind, RunDocument, TestResult};

/// The headline's two tables: the block figures, and the backup-shaped ones (None when the run
/// measured none of them).
pub struct HeadlineTables {
    pub block: Table,
    pub backup: Option<Table>,
}

/// The run's headline, or None when it measured none of its figures.
pub fn tables(run: &RunDocument) -> Option<HeadlineTables> {
    let h = run.headline();
    if h.is_empty() {
        return None;
    }
    let mb = |i: Option<usize>| {
        i.map_or(MISSING.to_string(), |i| {
            format!("{:.1}", run.results[i].median)
        })
    };
    let mut block = Table::text_then_figures(&["MB/s"], &["read", "write"]);
    for row in &h.block {
        block.push([row.name.clone(), mb(row.read), mb(row.write)]);
    }
    let mut backup = Table::text_then_figures(&["backup-shaped", "from"], &["figure"]);
    let mut push = |what: &str, i: usize, figure: String| {
        let r = &run.results[i];
        backup.push([
            what.to_string(),
            format!("{} {}", r.test, r.variant),
            figure,
        ]);
    };
    if let Some(i) = h.small_files {
        let r = &run.results[i];
        push(
            "small files",
            i,
            format!("{:.0} files/s ({:.1} MB/s)", r.ops_per_s_median, r.median),
        );
    }
    if let Some(i) = h.mixed {
        let r = &run.results[i];
        push(
            "mixed set",
            i,
            format!("{:.1} MB/s ({:.0} files/s)", r.median, r.ops_per_s_median),
        );
    }
    for &i in &h.tm_check {
        push(
            "Time Machine check",
            i,
            time_machine_figure(&run.results[i]),
        );
    }
    Some(HeadlineTables {
        block,
        backup: (!backup.rows.is_empty()).then_some(backup),
    })
}

/// A tm-check figure in Time Machine's own terms: files per second for the many small files,
/// MB/s for the big one.
fn time_machine_figure(r: &TestResult) -> String {
    if r.op_kind == OpKind::File {
        format!("{:.0} files/s", r.ops_per_s_median)
    } else {
        format!("{:.1} {}", r.median, r.unit.as_str())
    }
}
