//! The HTML report in a real browser: headless Chromium opens it, takes a screenshot, and the
//! test checks that the charts rendered, that the page logged nothing to the console and that it
//! requested nothing from the network. A deliberately broken page proves both checks can fail.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::history::Fixture;
use crate::support::{have_program, skip};

/// The first two run colours of the charts (`report::charts::PALETTE`), as RGB.
const RUN_COLOURS: [[u8; 3]; 2] = [[31, 119, 180], [255, 127, 14]];
const HOSTILE_LABEL: &str = "<script>alert(1)</script>";

fn report(f: &Fixture) -> PathBuf {
    let every_test = ["--tests", "seq-write,seq-read,4k-write,4k-read,tm-check"];
    f.run(&[&every_test[..], &["--label", HOSTILE_LABEL]].concat());
    f.run(&[&every_test[..], &["--label", "sata", "--duration", "1"]].concat());
    let html = f.dir.path().join("report.html");
    f.ok(&["report", "1", "2", "--html", html.to_str().unwrap()]);
    html
}

#[test]
fn the_report_is_self_contained_and_escapes_labels() {
    let f = Fixture::new();
    let text = std::fs::read_to_string(report(&f)).unwrap();
    assert!(!text.contains("<script"), "a script in the report");
    assert!(text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    for fetch in [
        "src=", "href=", "url(", "@import", "<link", "<img", "<iframe",
    ] {
        assert!(
            !text.contains(fetch),
            "the report could fetch something: {fetch}"
        );
    }
    assert!(text.contains("Content-Security-Policy\" content=\"default-src 'none'"));
    assert!(
        text.matches("data-chart=\"bars\"").count() >= 5,
        "one bar chart per test"
    );
    assert!(text.contains("data-chart=\"series\"") && text.contains("data-chart=\"latency\""));
}

/// What one headless Chromium visit of a page showed.
struct Visit {
    /// Messages the page wrote to the console (errors, CSP violations, logs).
    console: Vec<String>,
    /// URLs the page (not the browser's own services) asked the network for.
    page_requests: Vec<String>,
    /// `--dump-dom` output: the DOM after parsing.
    dom: String,
}

/// Runs Chromium with a fresh profile; kills it after a minute. Returns stdout and stderr,
/// which go to files: Chromium's logging fills a pipe that nobody reads until it exits.
fn chromium(extra: &[&str], page: &Path, work: &Path) -> (String, String) {
    let profile = tempfile::tempdir_in(work).unwrap();
    let stdout_path = profile.path().join("stdout");
    let stderr_path = profile.path().join("stderr");
    let mut child = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdout(std::fs::File::create(&stdout_path).unwrap())
        .stderr(std::fs::File::create(&stderr_path).unwrap())
        .stdin(Stdio::null())
        .spawn()
        .expect("start chromium");
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("chromium did not finish within a minute");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let read = |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
    (read(&stdout_path), read(&stderr_path))
}

/// URLs requested on behalf of a `file://` page, from Chromium's net log. The browser's own
/// background requests (update checks and the like) have no page behind them and are not
/// counted: the question is whether the report fetches anything.
fn page_requests(net_log: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(net_log).expect("net log written");
    // Chromium may end the log without closing the events list when it exits quickly.
    let log: serde_json::Value = serde_json::from_str(&text)
        .or_else(|_| serde_json::from_str(&format!("{}]}}", text.trim_end().trim_end_matches(','))))
        .expect("net log is JSON");
    let start_job = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
        .as_u64()
        .expect("URL_REQUEST_START_JOB in the net log's constants");
    log["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"].as_u64() == Some(start_job))
        .map(|e| &e["params"])
        .filter(|p| {
            p["network_isolation_key"]
                .as_str()
                .is_some_and(|k| k.contains("file://"))
        })
        .filter_map(|p| p["url"].as_str().map(str::to_string))
        .collect()
}

fn visit(page: &Path, work: &Path, screenshot: &Path) -> Visit {
    let net_log = work.join(format!(
        "{}.netlog.json",
        page.file_stem().unwrap().to_str().unwrap()
    ));
    let (_, stderr) = chromium(
        &[
            "--window-size=1400,4000",
            &format!("--screenshot={}", screenshot.display()),
            &format!("--log-net-log={}", net_log.display()),
        ],
        page,
        work,
    );
    let console = stderr
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect();
    let (dom, _) = chromium(&["--dump-dom"], page, work);
    Visit {
        console,
        page_requests: page_requests(&net_log),
        dom,
    }
}

/// Pixels of exactly `rgb` in a PNG screenshot.
fn pixels_of(png_path: &Path, rgb: [u8; 3]) -> usize {
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(png_path).unwrap(),
    ));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    assert!(
        channels >= 3,
        "unexpected PNG colour type {:?}",
        info.color_type
    );
    buf[..info.buffer_size()]
        .chunks_exact(channels)
        .filter(|px| px[..3] == rgb)
        .count()
}

#[test]
fn the_report_renders_in_chromium_offline_and_without_errors() {
    if !have_program("chromium") {
        skip("needs chromium (Debian package chromium) for the browser test");
        return;
    }
    let f = Fixture::new();
    let html = report(&f);
    // Kept after the test: CI publishes it as an artifact.
    let artifacts = Path::new(env!("CARGO_TARGET_TMPDIR")).join("html-report");
    std::fs::create_dir_all(&artifacts).unwrap();
    let work = f.dir.path();

    // The control: a page with a script error and an external image must be caught by both
    // checks, or the checks prove nothing.
    let broken = work.join("broken.html");
    std::fs::write(
        &broken,
        "<!DOCTYPE html><html><body><p>broken</p>\
         <img src=\"http://destbench-probe.invalid/pixel.png\">\
         <script>thisFunctionDoesNotExist();</script></body></html>",
    )
    .unwrap();
    let control = visit(&broken, work, &artifacts.join("broken.png"));
    for (seen, needle, check) in [
        (
            &control.console,
            "thisFunctionDoesNotExist",
            "console check cannot see errors",
        ),
        (
            &control.page_requests,
            "destbench-probe.invalid",
            "network check cannot see requests",
        ),
    ] {
        assert!(
            seen.iter().any(|l| l.contains(needle)),
            "the {check}: {seen:?}"
        );
    }

    let screenshot = artifacts.join("report.png");
    let _ = std::fs::remove_file(&screenshot);
    std::fs::copy(&html, artifacts.join("report.html")).unwrap();
    let seen = visit(&html, work, &screenshot);
    eprintln!("HTML report screenshot: {}", screenshot.display());
    assert!(
        seen.console.is_empty(),
        "console messages: {:?}",
        seen.console
    );
    assert!(
        seen.page_requests.is_empty(),
        "network requests: {:?}",
        seen.page_requests
    );

    // The DOM as parsed: the charts are SVG elements with bars and lines in them.
    let charts = seen.dom.matches("<figure class=\"chart\"").count();
    let bars = seen.dom.matches("fill=\"#1F77B4\"").count();
    assert!(charts >= 9, "{charts} charts in the DOM");
    assert!(seen.dom.matches("<svg").count() >= charts);
    assert!(bars >= 15, "{bars} bars of the first run in the DOM");
    assert!(seen.dom.contains("<polyline"), "no line chart in the DOM");
    assert!(
        seen.dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "label not shown as text"
    );
    assert!(!seen.dom.contains("<script>alert"), "label became markup");

    // The screenshot: the two runs' bar colours are on screen, so the SVG was painted.
    for rgb in RUN_COLOURS {
        let n = pixels_of(&screenshot, rgb);
        assert!(
            n > 5000,
            "only {n} pixels of {rgb:?} in {}",
            screenshot.display()
        );
    }
}
