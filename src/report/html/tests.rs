//! The HTML report's tests: what each part shows, and a snapshot of a whole report.

use super::*;
use crate::probe::{Bandwidth, Ceiling, Chain, Node, NodeKind};
use crate::results::{RunDocument, Verdict};

fn record(id: i64, run: RunDocument) -> RunRecord {
    RunRecord {
        id,
        stored_unix_s: 0,
        environment: Default::default(),
        document: serde_json::to_value(&run).unwrap(),
        run,
    }
}

/// The HTML report of `records`, compared as the commands compare them first.
fn report(records: &[RunRecord]) -> String {
    render(records, &crate::history::compare::compare(records))
}

fn link(kind: NodeKind, label: &str, bandwidth: Bandwidth) -> Node {
    let mut node = Node::new(kind, label);
    node.bandwidth = bandwidth;
    node
}

fn usb_chain() -> Chain {
    let mut root = Node::new(NodeKind::Mount, "ext4 at /mnt");
    root.children.push(link(
        NodeKind::Transport,
        "USB 2.0 (BOT)",
        Bandwidth::Known(Ceiling {
            link: "USB 2.0 (BOT)".into(),
            row: "usb2-bot".into(),
            rated: "480 Mbit/s".into(),
            practical_mb_s: 35.0,
            practical_max_mb_s: 40.0,
            origin: "links table".into(),
            declared: false,
        }),
    ));
    root.children.push(link(
        NodeKind::Transport,
        "virtio",
        Bandwidth::Unknown {
            why: "virtual".into(),
        },
    ));
    Chain {
        path: "/mnt".into(),
        root,
        notes: Vec::new(),
    }
}

#[test]
fn file_set_threads_and_a_chain_get_their_charts() {
    let result = |threads: usize, median: f64| {
        serde_json::json!({ "test": "files-copy", "variant": format!("small-{threads}t-cache-on"),
            "unit": "MB/s", "median": median, "samples": [median, median], "threads": threads,
            "method": "syncfs", "engine": "sync" })
    };
    let mut run: RunDocument = serde_json::from_value(serde_json::json!({
        "settings": { "label": "nas" },
        "results": [ result(1, 10.0), result(2, 18.0), result(4, 30.0),
            { "test": "seq-write", "variant": "SEQ1M-Q8T1", "unit": "MB/s", "median": 33.0,
              "method": "direct", "engine": "sync" } ],
    }))
    .unwrap();
    run.chain = Some(usb_chain());
    run.verdict = Some(Verdict {
        summary: "limited by USB 2.0 (BOT)".into(),
        details: vec!["33.0 MB/s of ~35".into()],
        measured_mb_s: Some(33.0),
        measured_by: Some("seq-write SEQ1M-Q8T1".into()),
        ..Verdict::default()
    });
    let records = [record(1, run.clone()), record(2, run)];
    let html = report(&records);
    assert_eq!(
        html.matches("data-chart=\"threads\"").count(),
        1,
        "one thread-scaling chart for both runs' two lines"
    );
    assert!(
        html.contains("</svg>nas small-cache-on</li>"),
        "one line for the 1..4-thread variants: {html}"
    );
    // Past eight lines, a chart per run: no two lines of a chart share a colour.
    let mut many = records[0].clone();
    let sets = ["small", "medium", "large", "mixed", "source"];
    let results = sets.iter().flat_map(|set| [1, 4].map(move |t| (set, t)));
    many.run = serde_json::from_value(serde_json::json!({ "results": results
        .map(|(set, t)| serde_json::json!({ "test": "files-copy",
            "variant": format!("{set}-{t}t-cache-on"), "median": 1.0, "threads": t,
            "method": "syncfs", "engine": "sync" }))
        .collect::<Vec<_>>() }))
    .unwrap();
    let split = report(&[many.clone(), many]);
    assert_eq!(split.matches("data-chart=\"threads\"").count(), 2);
    assert!(html.contains("data-chart=\"chain\"") && html.contains("USB 2.0"));
    assert!(html.contains("<b>Verdict:</b> limited by USB 2.0 (BOT) (33.0 MB/s of ~35)"));
    // The summary comes first: the verdict before the runs table and every chart.
    let verdict = html.find("<b>Verdict:</b>").unwrap();
    assert!(verdict < html.find("<h2>Runs</h2>").unwrap());
    assert!(verdict < html.find("<figure").unwrap());
    // A link of known speed: its ceiling and the measured rate against it; an unknown one
    // says so in words.
    assert!(
        html.contains("ceiling ~35 MB/s (rated 480 Mbit/s)"),
        "{html}"
    );
    assert!(
        html.contains("<meter min=\"0\" max=\"35\" value=\"33\""),
        "{html}"
    );
    assert!(html.contains("<b>virtio</b><span>speed unknown: virtual</span>"));
    // The headline: SEQ1M-Q8T1 written, small files per second from the copy a backup tool
    // makes (one thread; without a cache-off copy, the cached one), as on the first screen.
    assert!(
        html.contains(
            "<tr><td>SEQ1M-Q8T1</td><td class=\"n\">–</td><td class=\"n\">33.0</td></tr>"
        ),
        "{html}"
    );
    assert!(
        html.contains("<td>small files</td><td>files-copy small-1t-cache-on</td>"),
        "{html}"
    );
    assert!(html.contains("Repetitions in the order they ran"));
}

/// Runs made with different settings are flagged before their results are set side by side;
/// runs made alike are not.
#[test]
fn differing_settings_are_warned_before_the_results() {
    let run = |runs: usize| -> RunDocument {
        serde_json::from_value(serde_json::json!({ "settings": { "runs": runs } })).unwrap()
    };
    let html = report(&[record(1, run(3)), record(2, run(5))]);
    let warning = html
        .find("data-settings-differ")
        .expect("no settings warning");
    assert!(warning < html.find("<h2>Results</h2>").unwrap());
    assert!(
        html.contains("<li>repetitions: [1] 3, [2] 5</li>"),
        "{html}"
    );
    let alike = report(&[record(1, run(3)), record(2, run(3))]);
    assert!(!alike.contains("data-settings-differ"));
}

#[test]
fn a_cached_figure_is_noted_beside_its_result() {
    let mut run: RunDocument = serde_json::from_value(serde_json::json!({
        "results": [ { "test": "seq-read", "variant": "SEQ1M-Q8T1", "median": 120.0,
            "method": "evict", "engine": "sync" } ],
    }))
    .unwrap();
    run.chain = Some(usb_chain());
    run.verdict = Some(crate::verdict::of(&run));
    let html = report(&[record(3, run)]);
    assert!(
        html.contains("warning: seq-read SEQ1M-Q8T1: likely cached: 120 MB/s"),
        "{html}"
    );
}

/// The chain of a run whose links report no speed is still drawn as boxes, and a run with no
/// chain gets a sentence: never the chain's JSON.
#[test]
fn a_chain_without_a_chart_is_a_sentence_not_json() {
    let mut unknown = usb_chain();
    unknown.root.children.remove(0);
    let mut with_chain: RunDocument =
        serde_json::from_value(serde_json::json!({ "settings": { "label": "vm \"disk\"" } }))
            .unwrap();
    with_chain.chain = Some(unknown);
    let without: RunDocument = serde_json::from_value(serde_json::json!({})).unwrap();
    let html = report(&[record(1, with_chain), record(2, without)]);
    // The summaries at the top carry the chains: a diagram of boxes, or a sentence.
    let section = &html[html.find("<section class=\"summary\">").unwrap()..];
    let section = &section[..section.find("<h2>Runs</h2>").unwrap_or(section.len())];
    assert!(section.contains("data-chart=\"chain\""), "{section}");
    assert!(
        section.contains("No chain recorded with this run."),
        "{section}"
    );
    for json in ["{", "}", "\\\"", "&quot;root", "\"kind\""] {
        assert!(!section.contains(json), "{json} in {section}");
    }
}

/// Time Machine's own logged checks (a Mac's run) follow destbench's tm-check lines.
#[test]
fn time_machines_own_checks_are_shown_after_destbenchs() {
    let run: RunDocument = serde_json::from_value(serde_json::json!({
        "destination": { "path": "/Volumes/b", "time_machine_checks": [ { "concurrent": true,
            "files": 500, "file_size": "4 KB", "mb_s": 1.18, "destination": "/Volumes/b",
            "seconds": 1.736, "when": "2026-11-24 02:14:10" } ] },
        "results": [ { "test": "tm-check", "variant": "50MB", "median": 80.0,
            "method": "direct", "engine": "sync" } ],
        "time_machine_log": [ "Wrote 1 50 MB file at 80.00 MB/s to \"/Volumes/b\" in 0.625 seconds" ],
    }))
    .unwrap();
    let html = report(&[record(1, run)]);
    let ours = html
        .find("Wrote 1 50 MB file at 80.00")
        .expect("destbench's line");
    let theirs = html
        .find(
            "2026-11-24 02:14:10: Concurrently wrote 500 4 KB files at 1.18 MB/s in 1.736 seconds",
        )
        .unwrap_or_else(|| panic!("Time Machine's line in {html}"));
    assert!(ours < theirs);
}

/// A result of `test`/`variant` whose repetitions ran at `rates` MB/s (a second each), with a
/// throughput series and latencies, as a run of the block tests records them.
fn result(test: &str, variant: &str, rates: &[f64]) -> serde_json::Value {
    let mut sorted = rates.to_vec();
    sorted.sort_by(f64::total_cmp);
    let repetitions: Vec<_> = rates
        .iter()
        .map(|&rate| {
            serde_json::json!({ "rate": rate, "bytes": 1_000_000, "elapsed_s": 1.25,
            "series_mb_s": [rate * 0.9, rate * 1.1, rate, rate / 2.0],
            "series_last_partial": true })
        })
        .collect();
    serde_json::json!({ "test": test, "variant": variant, "unit": "MB/s",
        "median": sorted[sorted.len() / 2], "min": sorted[0], "max": sorted[sorted.len() - 1],
        "samples": rates, "method": "direct", "engine": "sync", "series_interval_s": 0.5,
        "latency_us": { "p50": 120.0, "p99": 900.0, "p999": 4000.0, "mean": 150.0,
            "max": 12000.0 },
        "repetitions": repetitions })
}

/// A copy of the small file set with `threads` threads, at `rate` files/s.
fn copy(threads: usize, rate: f64) -> serde_json::Value {
    serde_json::json!({ "test": "files-copy", "variant": format!("small-{threads}t-cache-on"),
        "unit": "MB/s", "median": rate, "min": rate, "max": rate, "samples": [rate, rate],
        "threads": threads, "method": "syncfs", "engine": "sync" })
}

/// Two clients, measured at one and at two clients.
fn cluster() -> serde_json::Value {
    let aggregate = |rate: f64| {
        serde_json::json!({ "test": "seq-write", "variant": "SEQ1M-Q8T1", "unit": "MB/s",
            "aggregate": rate, "per_client": { "median": rate / 2.0, "min": rate / 2.5,
            "max": rate / 1.5, "spread": 0.25 } })
    };
    serde_json::json!({ "clients": 2, "hosts": ["a<1>", "b&2"], "mpi_library": "Open MPI",
        "worst_clock_offset_s": 0.000012, "stonewall": true,
        "aggregates": [aggregate(180.0)],
        "scaling": [ { "clients": 1, "aggregates": [aggregate(100.0)] },
            { "clients": 2, "aggregates": [aggregate(180.0)] } ] })
}

/// The first run of the snapshot: a hostile label and path, a chain, a verdict, an answer, two
/// clients, a warning, a failure and Time Machine's log.
fn hostile_run() -> RunDocument {
    let mut run: RunDocument = serde_json::from_value(serde_json::json!({
        "settings": { "label": "<script>alert(\"x\")</script> & 'q'", "runs": 3, "seed": 7 },
        "destination": { "path": "/mnt/<nas> & 'b'" },
        "started_unix_s": 1_767_225_600u64,
        "results": [ result("seq-write", "SEQ1M-Q8T1", &[100.0, 102.0, 98.0]),
            result("seq-read", "SEQ1M-Q8T1", &[150.0, 151.0, 149.0]),
            copy(1, 10.0), copy(2, 18.0), copy(4, 30.0),
            { "test": "tm-check", "variant": "50MB", "median": 80.0, "method": "direct",
              "engine": "sync" } ],
        "failures": [ { "test": "4k-write", "variant": "RND4K-Q32T1",
            "error": "no space <left> & \"full\"" } ],
        "warnings": [ { "kind": "leftovers", "message": "found <old> & 'stale' files" } ],
        "time_machine_log": [ "Wrote 1 50 MB file at 80.00 MB/s to \"/mnt/<nas>\"" ],
        "cluster": cluster(),
    }))
    .unwrap();
    run.chain = Some(usb_chain());
    run.verdict = Some(crate::verdict::of(&run));
    let data = crate::results::YourData {
        kind: crate::results::DataKind::HomeVolume,
        path: "/home/<u>".into(),
        bytes: 212_000_000_000,
        files: Some(480_000),
        reads: None,
    };
    run.answer = crate::answer::of(&run, data);
    run
}

/// The second run: other settings, faster writes (a real difference), no chain.
fn plain_run() -> RunDocument {
    serde_json::from_value(serde_json::json!({
        "settings": { "label": "sata", "runs": 5, "seed": 7 },
        "destination": { "path": "/mnt/sata" },
        "started_unix_s": 1_767_312_000u64,
        "results": [ result("seq-write", "SEQ1M-Q8T1", &[200.0, 201.0, 199.0, 200.5, 199.5]),
            result("seq-read", "SEQ1M-Q8T1", &[150.0, 152.0, 148.0, 151.0, 149.0]),
            copy(1, 12.0), copy(4, 40.0),
            result("4k-write", "RND4K-Q32T1", &[20.0, 21.0, 19.0]) ],
    }))
    .unwrap()
}

/// The whole report of a fixed pair of runs, to the byte: any change of the HTML shows here.
#[test]
fn the_whole_report_snapshot() {
    let mut first = record(1, hostile_run());
    first.environment.host = Some("host <h> & 'x'".into());
    first.environment.filesystem.fs_type = Some("ext4".into());
    let records = [first, record(2, plain_run())];
    insta::assert_snapshot!("whole_report", tag_per_line(&report(&records)));
    insta::assert_snapshot!(
        "answer_tiles",
        tag_per_line(&tiles::glance(&records[0].run).0)
    );
}

/// `html` with each tag that follows another on a line of its own, whether a line break
/// separated them or not: a snapshot whose diff can be read, blind to the line breaks between
/// tags (which a template does not write), as a browser is between block elements.
fn tag_per_line(html: &str) -> String {
    html.replace(">\n<", "><").replace("><", ">\n<")
}
