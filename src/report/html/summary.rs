//! The top of the HTML report, one block per run: the time answer, the verdict, the chain drawn
//! as boxes from the destination to the wire (`diagram`: each link's practical ceiling beside the
//! measured rate, as a `<meter>` the browser scales), and the headline table (the four block figures read and write,
//! small files per second, mixed MB/s, Time Machine's check). Everything shown is in the run
//! document: the verdict's figures, the chain's links, the results the headline picks.

use std::fmt::Write as _;

use crate::history::RunRecord;
use crate::report::escape::html as escape;
use crate::report::html::tiles::{NO_HEADLINE, verdict};
use crate::results::RunReport;

/// The summary of every run.
pub(in crate::report) fn summaries(out: &mut String, records: &[RunRecord]) {
    for r in records {
        let _ = writeln!(
            out,
            "<section class=\"summary\">\n<h2>{}</h2>",
            escape(&format!("Summary: {}", r.name()))
        );
        let run = &r.run;
        if let Some(answer) = &run.answer {
            out.push_str(&crate::report::answer::html(answer));
        }
        verdict(out, run, |words| {
            format!("<p class=\"verdict\"><b>Verdict:</b> {words}</p>")
        });
        match &run.chain {
            Some(chain) => crate::report::html::diagram::chain(out, chain, run.verdict.as_ref()),
            None => {
                let _ = writeln!(
                    out,
                    "<p class=\"note\">No chain recorded with this run.</p>"
                );
            }
        }
        headline(out, run);
        let _ = writeln!(out, "</section>");
    }
}

/// The headline tables of one run (`report::headline`), then Time Machine's log lines.
fn headline(out: &mut String, run: &RunReport) {
    let Some(tables) = crate::report::headline::tables(run) else {
        out.push_str(NO_HEADLINE);
        return;
    };
    let _ = writeln!(out, "<div class=\"headline\">");
    out.push_str(&tables.block.html());
    if let Some(backup) = &tables.backup {
        out.push_str(&backup.html());
    }
    let _ = writeln!(out, "</div>");
    if !run.time_machine_log.is_empty() {
        tm_log(out, &run.time_machine_log);
    }
    let own = &run.destination.time_machine_checks;
    if !own.is_empty() {
        let _ = writeln!(
            out,
            "<p>Time Machine's own checks of this volume (its unified log, last 7 days):</p>"
        );
        tm_log(out, own.iter().map(ToString::to_string));
    }
}

/// Time Machine's log lines as a list, each as code.
fn tm_log(out: &mut String, lines: impl IntoIterator<Item = impl AsRef<str>>) {
    let _ = writeln!(out, "<ul class=\"tm-log\">");
    for line in lines {
        let _ = writeln!(out, "<li><code>{}</code></li>", escape(line.as_ref()));
    }
    let _ = writeln!(out, "</ul>");
}
