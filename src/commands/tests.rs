//! Property-based fuzzing (proptest) of everything that parses user input: sizes, rates,
//! durations, test and variant lists, `--threads`, labels (the whole `run` command line through
//! clap and `RunOptions::plan`), and run documents read back from the history database. Each
//! property: no panic, an answer within a second, and an error that is one non-empty line.
//!
//! It runs in `cargo test` with a fixed number of cases per property (about ten seconds in all
//! in a debug build); `PROPTEST_CASES` raises it for a longer session.

use std::time::{Duration, Instant};

use clap::Parser;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use crate::cli::{Cli, Command};
use crate::history::{HistoryEntry, RunRecord, Store};
use crate::probe::DeclaredLink;
use crate::report::{self, export::Exporter};
use crate::results::RunDocument;
use crate::units::{ByteSize, MAX_SIZE};
use crate::workload::{TestId, TestSelector};

/// A bound far above what any of these parsers needs: a case slower than this is a hang in
/// the making.
const SLOW: Duration = Duration::from_secs(1);

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(cases),
        // Shrunk failures are printed; nothing is written into the source tree.
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// An error as the user sees it: something to read, on one line.
fn one_line(message: &str) -> Result<(), TestCaseError> {
    prop_assert!(
        !message.trim().is_empty() && !message.contains(['\n', '\r']),
        "not one line: {message:?}"
    );
    Ok(())
}

fn quick(started: Instant) -> Result<(), TestCaseError> {
    prop_assert!(started.elapsed() < SLOW, "took {:?}", started.elapsed());
    Ok(())
}

/// Numbers as people mistype them: signs, exponents, dots, huge and special values.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        "-?[0-9]{0,25}(\\.[0-9]{0,6})?(e-?[0-9]{1,4})?",
        Just("inf".to_string()),
        Just("NaN".to_string()),
        Just("1e309".to_string()),
        Just("-0".to_string()),
        Just("18446744073709551616".to_string()),
        Just(" ".to_string()),
    ]
}

/// A size or rate: a number, a unit (real, near-real or junk), stray spaces.
fn quantity() -> impl Strategy<Value = String> {
    let unit = prop_oneof![
        prop::sample::select(vec![
            "", "B", "k", "K", "M", "G", "T", "P", "kB", "MB", "GB", "TB", "PB", "KiB", "MiB",
            "GiB", "TiB", "PiB", "kbit", "mbit", "gbit", "tbit", "MBps", "mbps", "iB", "Bk",
            "\u{212a}", "ｋ",
        ])
        .prop_map(str::to_string),
        "[a-zA-Z ]{0,4}",
    ];
    (" ?", number(), " ?", unit).prop_map(|(a, n, b, u)| format!("{a}{n}{b}{u}"))
}

/// Any characters at all, control characters included (proptest's `any::<String>()` has
/// none), and escape sequences as a hostile label would carry them.
fn anything() -> impl Strategy<Value = String> {
    prop_oneof![
        "(?s:.){0,24}",
        r"[a-z ]{0,4}(\x1b\[[0-9;]{0,6}[a-zA-Z]|\n|\r|\t|\x00|\x7f|\x{9b}|\x{85}|\x{2028}){1,3}[a-z ]{0,4}",
        any::<String>(),
    ]
}

/// Any text, and text that looks like what a flag takes.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        anything(),
        quantity(),
        "[a-z0-9:,\\- ]{0,24}",
        Just(String::new()),
    ]
}

/// `--tests` entries: known ids with real, wrong or hostile variants, and junk.
fn selector() -> impl Strategy<Value = String> {
    let test = prop_oneof![
        prop::sample::select(TestId::ALL.iter().map(|t| t.as_str()).collect::<Vec<_>>())
            .prop_map(str::to_string),
        "[a-z0-9\\-]{0,12}",
    ];
    let variant = prop_oneof![
        Just(None),
        "[A-Za-z0-9\\-]{0,14}".prop_map(Some),
        anything().prop_map(Some),
    ];
    (test, variant).prop_map(|(t, v)| match v {
        Some(v) => format!("{t}:{v}"),
        None => t,
    })
}

/// One flag of `run` with a value that may or may not fit it.
fn flag() -> impl Strategy<Value = Vec<String>> {
    const VALUED: &[&str] = &[
        "--size",
        "--set-size",
        "--runs",
        "--duration",
        "--time",
        "--min-time",
        "--threads",
        "--label",
        "--sets",
        "--files",
        "--link-speed",
        "--profile",
        "--seed",
        "--engine",
    ];
    prop_oneof![
        (prop::sample::select(VALUED), text()).prop_map(|(f, v)| vec![f.to_string(), v]),
        (prop::sample::select(VALUED), number()).prop_map(|(f, v)| vec![f.to_string(), v]),
        ("--tests", prop::collection::vec(selector(), 0..4))
            .prop_map(|(f, v)| vec![f.to_string(), v.join(",")]),
        ("--threads", prop::collection::vec(number(), 0..5))
            .prop_map(|(f, v)| vec![f.to_string(), v.join(",")]),
        prop::sample::select(vec!["--verify", "--no-verify", "--buffered", "--json"])
            .prop_map(|f| vec![f.to_string()]),
    ]
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn sizes_parse_or_say_why(input in prop_oneof![quantity(), anything()]) {
        let started = Instant::now();
        match input.parse::<ByteSize>() {
            Ok(size) => prop_assert!(size.0 <= MAX_SIZE, "{input:?} gave {size:?}"),
            Err(e) => one_line(&e.to_string())?,
        }
        quick(started)?;
    }

    /// Every well-formed size means exactly its number times its unit.
    #[test]
    fn well_formed_sizes_are_exact(n in 0u64..1 << 20, unit in 0usize..7) {
        let (suffix, factor) = [("", 1), ("k", 1 << 10), ("MiB", 1 << 20), ("G", 1 << 30),
            ("kB", 1000), ("MB", 1_000_000), ("GB", 1_000_000_000)][unit];
        let size: ByteSize = format!("{n}{suffix}").parse().unwrap();
        prop_assert_eq!(size.0, n * factor);
    }

    #[test]
    fn rates_parse_or_say_why(input in prop_oneof![quantity(), anything()]) {
        let started = Instant::now();
        match input.parse::<DeclaredLink>() {
            Ok(link) => prop_assert!(link.mbit_s.is_finite() && link.mbit_s > 0.0, "{link:?}"),
            Err(e) => one_line(&e)?,
        }
        quick(started)?;
    }

    #[test]
    fn test_selectors_parse_or_say_why(input in prop_oneof![selector(), anything()]) {
        let started = Instant::now();
        match input.parse::<TestSelector>() {
            Ok(s) => prop_assert_eq!(s.test.as_str(), input.split(':').next().unwrap().trim()),
            Err(e) => one_line(&e)?,
        }
        quick(started)?;
    }
}

proptest! {
    #![proptest_config(config(600))]

    /// The whole `run` command line: clap, then the plan's checks of every value and of how
    /// they combine (runs, durations, threads, tests and variants, sets). Nothing is run.
    #[test]
    fn run_command_lines_plan_or_say_why(flags in prop::collection::vec(flag(), 0..6)) {
        let started = Instant::now();
        let argv = ["destbench", "run", "/nonexistent/destination"]
            .into_iter()
            .map(String::from)
            .chain(flags.into_iter().flatten());
        if let Ok(Cli { command: Command::Run(args), .. }) = Cli::try_parse_from(argv) {
            match super::run::options(&args, None).and_then(|o| o.plan()) {
                Ok(plan) => prop_assert!(!plan.variants.is_empty()),
                Err(e) => {
                    one_line(&e.to_string())?;
                    prop_assert_eq!(e.exit_code(), crate::error::EXIT_USAGE, "{}", e);
                }
            }
            // However odd the label, the history's table shows it without control characters.
            let listed = report::terminal::history::list(&[HistoryEntry {
                id: 1,
                stored_unix_s: 0,
                started_unix_s: 0,
                label: args.options.label.clone(),
                destination: args.path.unwrap_or_default().display().to_string(),
                host: None,
                failures: 0,
                sequential: Default::default(),
                filesystem: Default::default(),
            }]);
            prop_assert!(!listed.chars().any(|c| c.is_control() && c != '\n'), "{listed:?}");
        }
        quick(started)?;
    }
}

/// A run document as destbench writes it (null engine: block, Time Machine and file-set tests,
/// the chain of a virtual disk, a verdict): the seed the document fuzzer mutates.
fn seed_document() -> serde_json::Value {
    serde_json::from_str(include_str!("../../tests/fixtures/fuzz/run.json")).unwrap()
}

/// Any JSON value, its object keys mostly names the run document uses.
fn json() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        anything().prop_map(Value::from),
        prop::sample::select(vec![
            "seq-write",
            "files-copy",
            "MB/s",
            "IOPS",
            "null",
            "direct",
            "known",
            "unknown",
            "mount",
            "SEQ1M-Q8T1",
            "small-2t",
            "",
        ])
        .prop_map(Value::from),
    ];
    let key = prop_oneof![
        prop::sample::select(vec![
            "schema",
            "settings",
            "label",
            "results",
            "failures",
            "warnings",
            "chain",
            "root",
            "children",
            "bandwidth",
            "verdict",
            "test",
            "variant",
            "unit",
            "median",
            "samples",
            "latency_us",
            "file_set",
            "threads",
            "repetitions",
            "series",
            "kind",
            "profile",
            "runs",
            "destination",
            "path",
            "started_unix_s",
            "details",
            "summary",
        ])
        .prop_map(str::to_string),
        anything(),
    ];
    leaf.prop_recursive(4, 32, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(key.clone(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Replaces the node that `path` (a list of choices) leads to in `doc` with `value`.
fn graft(doc: &mut serde_json::Value, path: &[usize], value: serde_json::Value) {
    let Some((&choice, rest)) = path.split_first() else {
        *doc = value;
        return;
    };
    match doc {
        serde_json::Value::Array(items) if !items.is_empty() => {
            let n = items.len();
            graft(&mut items[choice % n], rest, value);
        }
        serde_json::Value::Object(map) if !map.is_empty() => {
            let n = map.len();
            graft(map.values_mut().nth(choice % n).unwrap(), rest, value);
        }
        _ => *doc = value,
    }
}

/// Every way a stored document is read back and shown: load, `show`, exports, HTML, compare.
fn read_back(store: &Store, id: i64) -> Result<(), TestCaseError> {
    match store.get(id) {
        Ok(record) => {
            let records: Vec<RunRecord> = vec![record];
            let _ = report::terminal::history::show(&records[0], true);
            let layout = report::terminal::Layout {
                width: 80,
                wide: false,
                verbose: true,
            };
            let _ = report::terminal::render(
                &records[0].run,
                report::terminal::Style { color: false },
                layout,
            );
            let markdown =
                report::export::markdown::Markdown(crate::history::compare::compare(&records));
            for exporter in [
                &report::export::json::Json as &dyn Exporter,
                &report::export::csv::Csv,
                &markdown,
            ] {
                let _ = exporter.serialize(&records);
            }
            let _ = report::html::render(&records, &markdown.0);
        }
        Err(e) => one_line(&e.to_string())?,
    }
    Ok(())
}

/// A history with one real run in it, whose stored document each case overwrites.
fn fuzz_store() -> (tempfile::TempDir, Store, rusqlite::Connection) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.sqlite");
    let mut store = Store::open(&path).unwrap();
    let run: RunDocument = serde_json::from_value(seed_document()).unwrap();
    store
        .insert(&run, &crate::history::Environment::default())
        .unwrap();
    let raw = rusqlite::Connection::open(&path).unwrap();
    (dir, store, raw)
}

proptest! {
    #![proptest_config(config(400))]

    /// Documents as an older, newer or damaged writer may have left them: the seed with parts
    /// replaced by arbitrary JSON.
    #[test]
    fn stored_documents_load_or_say_why(
        grafts in prop::collection::vec((prop::collection::vec(any::<usize>(), 0..6), json()), 1..4)
    ) {
        thread_local!(static STORE: (tempfile::TempDir, Store, rusqlite::Connection) = fuzz_store());
        let mut doc = seed_document();
        for (path, value) in grafts {
            graft(&mut doc, &path, value);
        }
        let started = Instant::now();
        STORE.with(|(_, store, raw)| {
            raw.execute("UPDATE runs SET document = ?1 WHERE id = 1", [doc.to_string()]).unwrap();
            read_back(store, 1)
        })?;
        quick(started)?;
    }

    /// Stored text that is not JSON at all, or JSON of another shape.
    #[test]
    fn stored_text_loads_or_says_why(text in prop_oneof![anything(), json().prop_map(|v| v.to_string())]) {
        thread_local!(static STORE: (tempfile::TempDir, Store, rusqlite::Connection) = fuzz_store());
        let started = Instant::now();
        STORE.with(|(_, store, raw)| {
            raw.execute("UPDATE runs SET document = ?1 WHERE id = 1", [&text]).unwrap();
            read_back(store, 1)
        })?;
        quick(started)?;
    }
}
