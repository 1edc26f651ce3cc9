//! A share's time drawn in its parts ([`Share::time_for`]): one horizontal stacked bar, the wire,
//! the server's disks and the round trips, each part labelled with its seconds, for the answer's
//! data where the run has one (else for 1 GB in 1,000 files, as the caption says), with the
//! limit named. The report's summary and the page's glance both draw it; a run off a network
//! has no share and draws nothing.

use maud::{Markup, html};

use crate::results::{EXAMPLE_BYTES, EXAMPLE_FILES, RunDocument, Share};
use crate::units::{decimal_bytes, human_duration, thousands};

/// The bar's drawn width; the page scales it to its column.
const WIDTH: f64 = 1000.0;

/// The share's time split for the run's answer's data (or the example), or nothing off a share.
pub(in crate::report) fn time(run: &RunDocument) -> Markup {
    let Some(share) = &run.share else {
        return html! {};
    };
    let data = run
        .answer
        .as_ref()
        .and_then(|a| Some((a.data.bytes, a.data.files?)));
    let (bytes, files, what) = match data {
        Some((bytes, files)) => (bytes, files, "your data"),
        None => (
            EXAMPLE_BYTES,
            EXAMPLE_FILES,
            "an example (the run has no answer for your data)",
        ),
    };
    let amount = format!("{} in {} files", decimal_bytes(bytes), thousands(files));
    let figures = crate::report::share::figures(share);
    html! {
        figure class="share-time" data-chart="share" {
            figcaption {
                b { "Where a share's time goes" } ", for " (what) ": " (amount) ". "
                span.note { "A split of the run's figures for drawing, not the answer's estimate." }
            }
            (bar(share, bytes, files))
            p.share-limit {
                b { "The limit: " (share.limit) "." }
                @if !figures.is_empty() { " Measured: " (figures) "." }
            }
        }
    }
}

/// The bar and its parts' labels, each part as wide as its share of the whole.
fn bar(share: &Share, bytes: u64, files: u64) -> Markup {
    let time = share.time_for(bytes, files);
    let total = time.total_s();
    // Where the run read nothing back, the bytes' time is the new files' rate, undivided.
    let wire = match share.wire_mb_s {
        Some(_) => "the wire",
        None => "the bytes (no read told the wire from the disks)",
    };
    let parts = [
        ("wire", wire, time.wire_s),
        ("server-disks", "the server's disks", time.server_disks_s),
        ("round-trips", "round trips", time.round_trips_s),
    ];
    let measured = [
        share.wire_mb_s.or(share.durable_write_mb_s).is_some(),
        share.wire_mb_s.is_some() && share.durable_write_mb_s.is_some(),
        share.requests_per_file.is_some() && share.request_ms.is_some(),
    ];
    let mut x = 0.0;
    let rects: Vec<(&str, String, f64, f64)> = parts
        .iter()
        .filter(|(_, _, s)| *s > 0.0 && total > 0.0)
        .map(|(class, name, s)| {
            let width = s / total * WIDTH;
            let at = x;
            x += width;
            (*class, format!("{name}: {}", human_duration(*s)), at, width)
        })
        .collect();
    html! {
        @if !rects.is_empty() {
            svg class="share-bar" viewBox=(format!("0 0 {WIDTH} 24")) preserveAspectRatio="none"
                role="img" aria-label=(format!("about {} in all", human_duration(total))) {
                @for (class, label, at, width) in &rects {
                    rect class=(class) x=(format!("{at:.1}")) y="0" width=(format!("{width:.1}"))
                        height="24" { title { (label) } }
                }
            }
        }
        ul.share-parts {
            @for ((class, name, s), known) in parts.into_iter().zip(measured) {
                li data-part=(class) {
                    span class={ "swatch " (class) } aria-hidden="true" {}
                    (name) ": "
                    @if known { (human_duration(s)) } @else { "not measured" }
                }
            }
            li data-part="total" { "in all: about " (human_duration(total)) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::tests::share;

    /// A run on a share: its share, and an answer for `data` (bytes, files) where given.
    fn run(share: Share, data: Option<(u64, Option<u64>)>) -> RunDocument {
        let answer = data.map(|(bytes, files)| {
            serde_json::from_value(serde_json::json!({
                "data": { "kind": "home-volume", "path": "/home/u", "bytes": bytes,
                          "files": files, "reads": null },
                "tools": [], "what_if": null, "limited_by": null, "table": [],
                "missing": [], "words": []
            }))
            .expect("an answer")
        });
        RunDocument {
            share: Some(share),
            answer,
            ..RunDocument::default()
        }
    }

    /// The widths the bar gives its parts, in order.
    fn widths(html: &str) -> Vec<f64> {
        html.split("<rect ")
            .skip(1)
            .map(|r| {
                let w = r.split("width=\"").nth(1).and_then(|w| w.split('"').next());
                w.expect("a width").parse().expect("a number")
            })
            .collect()
    }

    /// The bar is drawn for the answer's data: each part as wide as its share of the time,
    /// labelled with its seconds, the limit named.
    #[test]
    fn the_bar_splits_the_answers_data_into_its_parts() {
        let html = time(&run(share(), Some((1_000_000_000, Some(1000))))).into_string();
        assert!(
            html.contains(", for your data: 1.0 GB in 1,000 files"),
            "{html}"
        );
        // 10 s of the wire, 30 of the disks, 20 of round trips (results::tests::share).
        let w = widths(&html);
        assert_eq!(w.len(), 3, "{html}");
        for (width, seconds) in w.iter().zip([10.0, 30.0, 20.0]) {
            assert!((width - seconds / 60.0 * WIDTH).abs() < 0.1, "{w:?}");
        }
        assert!(html.contains("the wire: 10 s"), "{html}");
        assert!(html.contains("the server's disks: 30 s"), "{html}");
        assert!(html.contains("round trips: 20 s"), "{html}");
        assert!(html.contains("The limit: the server's disks."), "{html}");
    }

    /// Without an answer (or one whose files were not counted), the example's 1 GB in 1,000
    /// files, said so; parts not measured are said so, not drawn as 0.
    #[test]
    fn without_an_answer_the_bar_is_for_an_example_and_says_what_was_not_measured() {
        let unmeasured = Share {
            request_ms: None,
            ..share()
        };
        for data in [None, Some((5_000_000_000, None))] {
            let html = time(&run(unmeasured.clone(), data)).into_string();
            assert!(
                html.contains(
                    "for an example (the run has no answer for your data): 1.0 GB in 1,000 files"
                ),
                "{html}"
            );
            assert!(html.contains("round trips: not measured"), "{html}");
            assert_eq!(widths(&html).len(), 2, "{html}");
        }
        let off_a_share = RunDocument::default();
        assert_eq!(time(&off_a_share).into_string(), "");
    }

    /// What the document says is escaped: a result's name cannot become markup.
    #[test]
    fn a_shares_words_are_escaped() {
        let hostile = Share {
            wire_by: Some("<script>x</script>".into()),
            ..share()
        };
        let html = time(&run(hostile, None)).into_string();
        assert!(!html.contains("<script>"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
    }

    /// The report's summary and the page's glance both draw it, after the verdict.
    #[test]
    fn the_report_and_the_page_draw_a_shares_time_after_the_verdict() {
        let mut on_a_share = run(share(), None);
        on_a_share.verdict = Some(crate::results::Verdict {
            summary: "The server's disks are the limit.".into(),
            ..Default::default()
        });
        let record = crate::history::RunRecord {
            id: 1,
            stored_unix_s: 0,
            environment: Default::default(),
            document: serde_json::Value::Null,
            run: on_a_share.clone(),
        };
        let report = crate::report::html::summary::summaries(&[record]).into_string();
        let glance = crate::report::html::tiles::glance(&on_a_share).into_string();
        for html in [report, glance] {
            let verdict = html
                .find("The server's disks are the limit.")
                .expect("a verdict");
            let share = html.find("data-chart=\"share\"").expect("the share's time");
            assert!(verdict < share, "{html}");
        }
    }

    /// The figure as the report draws it, to the byte.
    #[test]
    fn the_share_time_snapshot() {
        let html = time(&run(share(), Some((212_000_000_000, Some(480_000))))).into_string();
        insta::assert_snapshot!("share_time", html.replace("><", ">\n<"));
    }
}
