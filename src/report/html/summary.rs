//! The top of the HTML report, one block per run: the time answer, the verdict, on a share its
//! time in parts (`share`), the chain drawn
//! as boxes from the destination to the wire (`diagram`: each link's practical ceiling beside the
//! measured rate, as a `<meter>` the browser scales), and the headline table (the four block figures read and write,
//! small files per second, mixed MB/s, Time Machine's check). Everything shown is in the run
//! document: the verdict's figures, the chain's links, the results the headline picks.

use maud::{Markup, html};

use crate::history::RunRecord;
use crate::report::html::tiles::{no_headline, opening, verdict};
use crate::results::RunDocument;

/// The summary of every run.
pub(in crate::report) fn summaries(records: &[RunRecord]) -> Markup {
    html! {
        @for r in records {
            section.summary {
                h2 { "Summary: " (r.name()) }
                (opening(&r.run))
                (verdict(&r.run, |words| html! { p.verdict { b { "Verdict:" } " " (words) } }))
                (crate::report::html::share::time(&r.run))
                @match &r.run.chain {
                    Some(chain) => {
                        (crate::report::html::diagram::chain(chain, r.run.verdict.as_ref()))
                    }
                    None => p.note { "No chain recorded with this run." },
                }
                (headline(&r.run))
            }
        }
    }
}

/// The headline tables of one run (`report::headline`), then Time Machine's log lines.
fn headline(run: &RunDocument) -> Markup {
    let Some(tables) = crate::report::headline::tables(run) else {
        return no_headline();
    };
    let own = &run.destination.time_machine_checks;
    html! {
        div.headline {
            (tables.block)
            @if let Some(backup) = &tables.backup { (backup) }
        }
        @if !run.time_machine_log.is_empty() { (tm_log(&run.time_machine_log)) }
        @if !own.is_empty() {
            p { "Time Machine's own checks of this volume (its unified log, last 7 days):" }
            (tm_log(own.iter().map(ToString::to_string)))
        }
    }
}

/// Time Machine's log lines as a list, each as code.
fn tm_log(lines: impl IntoIterator<Item = impl AsRef<str>>) -> Markup {
    html! {
        ul class="tm-log" {
            @for line in lines { li { code { (line.as_ref()) } } }
        }
    }
}
