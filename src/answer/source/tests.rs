//! The slower side over run documents built in code: data whose reads were sampled at known
//! costs, against the destination's copies of the answer's tests.

use crate::answer::of;
use crate::answer::tests::{home, run, sets};
use crate::results::{Range, Side, YourData};
use crate::verdict::tests::assert_plain;

/// `data` read at `per_file_ms` a file and `mb_s`, from a sample of 180 files (cold or not),
/// each figure 5% either side.
fn read_at(mut data: YourData, per_file_ms: f64, mb_s: f64, cold: bool) -> YourData {
    let r = |x: f64| Range {
        low: x * 0.95,
        expected: x,
        high: x * 1.05,
    };
    let seconds =
        data.files.unwrap_or(0) as f64 * per_file_ms / 1e3 + data.bytes as f64 / 1e6 / mb_s;
    data.reads = Some(crate::results::DataReads {
        path: data.path.clone(),
        files_sampled: 180,
        bytes_sampled: 30_000_000,
        sample_seconds: 1.5,
        per_file_s: r(per_file_ms / 1e3),
        mb_s: r(mb_s),
        seconds: r(seconds),
        cold,
        cache: "read cold".into(),
    });
    data
}

/// 100,000 files read at 5 ms each take 500 s, far longer than this disk writes 1 GB of them:
/// every first backup, and the table's rows, take reading and writing one after the other,
/// reading's range reaching as far as a copy's reading strays; the words say reading limits,
/// and a faster port shortens only the writing.
#[test]
fn reading_the_data_limits_where_it_takes_longer() {
    let run = run(Some("usb2-bot"), 33.0, sets());
    let data = read_at(home(1_000_000_000, Some(100_000)), 5.0, 30.0, true);
    let before = of(&run, home(1_000_000_000, Some(100_000))).unwrap();
    let answer = of(&run, data).unwrap();
    assert_eq!(answer.limited_by, Some(Side::Source));
    let reading = answer.data.reads.as_ref().unwrap().seconds;
    let (writing, t) = (before.tools[0].first_seconds, answer.tools[0].first_seconds);
    assert!(writing.expected < reading.expected);
    assert!(
        (t.expected - writing.expected - reading.expected).abs() < 1e-9,
        "{t:?}"
    );
    assert_eq!(t.low, writing.low.max(reading.low));
    assert!(
        (t.high - writing.high - 1.45 * reading.expected).abs() < 1e-9,
        "{t:?}"
    );
    assert!(
        answer.tools[0]
            .basis
            .starts_with("reading your data: 5.00 ms a file"),
        "{}",
        answer.tools[0].basis
    );
    // 100 GB of the data's files take 100 times as long to read.
    let row = answer.table[1].seconds[0].expected - before.table[1].seconds[0].expected;
    assert!((row / reading.expected - 100.0).abs() < 1e-6, "{row}");
    let (was, w) = (before.what_if.unwrap(), answer.what_if.unwrap());
    assert!((w.first_seconds - was.first_seconds - reading.expected).abs() < 1e-9);
    assert_eq!(w.bounded_by, "reading your data");
    let said = answer
        .words
        .iter()
        .find(|w| w.starts_with("Reading your data is the limit here: "))
        .unwrap_or_else(|| panic!("{:?}", answer.words));
    assert!(
        said.contains("1.9 MB/s in all, 5.00 ms a file and 30 MB/s"),
        "{said}"
    );
    assert!(said.contains("read cold from 180 of its files"), "{said}");
    assert_plain(said, 30);
}

/// Reading faster than the disk writes: its time adds to the destination's, the words say the
/// data reads faster, and where a faster port would make reading the slower side, it says so.
#[test]
fn a_faster_source_adds_its_time_to_the_destinations() {
    let run = run(Some("usb2-bot"), 33.0, sets());
    let data = home(10_000_000_000, Some(50_000));
    let before = of(&run, data.clone()).unwrap();
    // 50,000 files at 0.1 ms and 10 GB at 50 MB/s: 205 s, slower than on USB 3, not now.
    let answer = of(&run, read_at(data, 0.1, 50.0, true)).unwrap();
    assert_eq!(answer.limited_by, Some(Side::Destination));
    let (writing, t) = (before.tools[0].first_seconds, answer.tools[0].first_seconds);
    assert!(writing.expected > 205.0);
    assert!(
        (t.expected - writing.expected - 205.0).abs() < 1e-6,
        "{t:?}"
    );
    assert_eq!(t.low, writing.low);
    let basis = &answer.tools[0].basis;
    assert!(
        basis.contains("; then reading your data, about 3.4 min: 0.10 ms a file"),
        "{basis}"
    );
    let (was, w) = (before.what_if.unwrap(), answer.what_if.unwrap());
    assert!(was.first_seconds < 205.0);
    assert!(
        (w.first_seconds - was.first_seconds - 205.0).abs() < 1e-6,
        "{w:?}"
    );
    assert_eq!(w.bounded_by, "reading your data");
    let said = answer
        .words
        .iter()
        .find(|w| w.starts_with("Your data reads faster than this destination writes it: "))
        .unwrap_or_else(|| panic!("{:?}", answer.words));
    assert_plain(said, 30);
    assert!(
        answer
            .words
            .iter()
            .any(|w| w.ends_with("where reading your data then limits.")),
        "{:?}",
        answer.words
    );
}

/// A sample the system could not make cold (macOS, Windows) is said to have possibly come from
/// memory; without a sample the answer has no side.
#[test]
fn a_possibly_cached_sample_is_named_so() {
    let run = run(Some("usb2-bot"), 33.0, sets());
    let data = read_at(home(1_000_000_000, Some(100_000)), 2.0, 30.0, false);
    let answer = of(&run, data).unwrap();
    assert!(
        answer
            .words
            .iter()
            .any(|w| w.contains("read from 180 of its files, possibly from memory")),
        "{:?}",
        answer.words
    );
    let none = of(&run, home(1_000_000_000, Some(100_000))).unwrap();
    assert_eq!(none.limited_by, None);
    assert!(
        !none
            .words
            .iter()
            .any(|w| w.contains("your data is") || w.contains("reads your data"))
    );
}
