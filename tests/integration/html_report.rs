//! The HTML report in a real browser: headless Chromium opens it, takes a screenshot, and the
//! test checks that the charts rendered, that the page logged nothing to the console and that it
//! requested nothing from the network; that no raw JSON, `NaN` or `undefined` reaches the text
//! of the page; and, at 1280 px, that no legend overlaps a plot and nothing is wider than the
//! page. A deliberately broken page proves each check can fail.

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

/// Runs a browser test on the report of two runs: `test(html, work)`, `work` being the
/// fixture's directory for the test's own pages; skipped (see `skip`) without Chromium.
fn with_browser_report(test: impl FnOnce(&Path, &Path)) {
    if !have_program("chromium") {
        skip("needs chromium (Debian package chromium) for the browser test");
        return;
    }
    let f = Fixture::new();
    let html = report(&f);
    test(&html, f.dir.path());
}

/// Where screenshots are kept after the test: CI publishes them as artifacts.
fn artifacts() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("html-report");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_report_renders_in_chromium_offline_and_without_errors() {
    with_browser_report(|html, work| {
        let artifacts = artifacts();

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
        std::fs::copy(html, artifacts.join("report.html")).unwrap();
        let seen = visit(html, work, &screenshot);
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
    });
}

/// Text of the page that should never be there: raw JSON (an object or a key), and the words
/// JavaScript and Rust print for figures that are not numbers.
fn suspicious_text(dom: &str) -> Vec<String> {
    // The text of the DOM: tags and the stylesheet out, entities as written.
    let mut text = String::new();
    let mut rest = dom;
    while let Some(open) = rest.find('<') {
        text.push_str(&rest[..open]);
        text.push(' ');
        let after = &rest[open..];
        let skip_to = if after.starts_with("<style") {
            after
                .find("</style>")
                .map_or(after.len(), |i| i + "</style>".len())
        } else {
            after.find('>').map_or(after.len(), |i| i + 1)
        };
        rest = &after[skip_to..];
    }
    text.push_str(rest);
    let mut found = Vec::new();
    for needle in ["{\"", "\":", "&quot;", "\\\""] {
        if let Some(i) = text.find(needle) {
            let start = text.floor_char_boundary(i.saturating_sub(40));
            let end = text.ceil_char_boundary((i + 40).min(text.len()));
            found.push(format!("raw JSON {needle:?}: …{}…", &text[start..end]));
        }
    }
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        if ["NaN", "undefined", "inf", "Infinity"].contains(&word) {
            found.push(format!("the word {word:?}"));
        }
    }
    found
}

#[test]
fn no_raw_json_nan_or_undefined_reaches_the_page() {
    with_browser_report(|html, work| {
        // The control: each kind of leak is seen.
        let broken = work.join("leaky.html");
        std::fs::write(
            &broken,
            "<!DOCTYPE html><html><body><p>{\"kind\": \"link-unknown\"}</p><p>MB/s: NaN</p>\
             <svg><text>undefined</text></svg></body></html>",
        )
        .unwrap();
        let (dom, _) = chromium(&["--dump-dom"], &broken, work);
        let leaks = suspicious_text(&dom);
        assert!(
            leaks.len() >= 4 && leaks.iter().any(|l| l.contains("NaN")),
            "the check cannot see leaks: {leaks:?}"
        );

        let (dom, _) = chromium(&["--dump-dom"], html, work);
        assert!(
            dom.contains("<figure class=\"chart\""),
            "report not rendered"
        );
        let leaks = suspicious_text(&dom);
        assert!(leaks.is_empty(), "{leaks:?}");
    });
}

/// Lays the page out at 1280 px in Chromium and returns, from a script added to a copy of it,
/// the page's width and for every chart the rectangles of the figure, its plot (the SVG) and
/// each legend entry: `[left, top, right, bottom]` in CSS pixels.
fn geometry(page: &Path, work: &Path, extra_style: &str) -> serde_json::Value {
    let html = std::fs::read_to_string(page).unwrap();
    // The report forbids scripts (its CSP); the measuring copy drops that one line.
    let csp = html
        .find("<meta http-equiv=\"Content-Security-Policy\"")
        .unwrap();
    let csp_end = csp + html[csp..].find('>').unwrap() + 1;
    let script = r#"<style>EXTRA</style><script>
const rect = e => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
const figures = [...document.querySelectorAll('figure.chart')].map(f => ({
  chart: f.dataset.chart,
  figure: rect(f),
  plot: rect(f.querySelector(':scope > svg')),
  legend: [...f.querySelectorAll('ul.legend > li')].map(rect),
}));
const out = document.createElement('pre');
out.id = 'geometry';
out.textContent = JSON.stringify({ width: document.documentElement.clientWidth,
  scroll_width: document.documentElement.scrollWidth, figures });
document.body.appendChild(out);
</script>"#
        .replace("EXTRA", extra_style);
    let measured = format!(
        "{}{}",
        &html[..csp],
        html[csp_end..].replace("</body>", &format!("{script}</body>"))
    );
    let copy = work.join(format!(
        "measure-{}.html",
        page.file_stem().unwrap().to_str().unwrap()
    ));
    std::fs::write(&copy, measured).unwrap();
    let (dom, _) = chromium(&["--dump-dom", "--window-size=1280,4000"], &copy, work);
    let start = dom
        .find("<pre id=\"geometry\">")
        .expect("the measuring script ran")
        + "<pre id=\"geometry\">".len();
    let end = start + dom[start..].find("</pre>").unwrap();
    serde_json::from_str(&dom[start..end].replace("&amp;", "&")).unwrap()
}

/// What is wrong with a laid-out page: legends over plots or outside their chart, anything
/// wider than the page.
fn layout_problems(g: &serde_json::Value) -> Vec<String> {
    let r = |v: &serde_json::Value| -> [f64; 4] {
        let a: Vec<f64> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        [a[0], a[1], a[2], a[3]]
    };
    let overlap = |a: [f64; 4], b: [f64; 4]| {
        a[0] < b[2] - 0.5 && b[0] < a[2] - 0.5 && a[1] < b[3] - 0.5 && b[1] < a[3] - 0.5
    };
    let inside = |a: [f64; 4], b: [f64; 4]| {
        a[0] >= b[0] - 0.5 && a[1] >= b[1] - 0.5 && a[2] <= b[2] + 0.5 && a[3] <= b[3] + 0.5
    };
    let width = g["width"].as_f64().unwrap();
    let mut problems = Vec::new();
    if g["scroll_width"].as_f64().unwrap() > width {
        problems.push(format!(
            "the page scrolls sideways: {} > {width}",
            g["scroll_width"]
        ));
    }
    for (i, f) in g["figures"].as_array().unwrap().iter().enumerate() {
        let (figure, plot) = (r(&f["figure"]), r(&f["plot"]));
        let name = format!("chart {i} ({})", f["chart"]);
        if plot[2] - plot[0] < 200.0 {
            problems.push(format!("{name}: plot only {} px wide", plot[2] - plot[0]));
        }
        if figure[2] > width {
            problems.push(format!("{name}: beyond the page's right edge"));
        }
        for item in f["legend"].as_array().unwrap().iter().map(r) {
            if overlap(item, plot) {
                problems.push(format!(
                    "{name}: legend {item:?} overlaps the plot {plot:?}"
                ));
            }
            if !inside(item, figure) {
                problems.push(format!(
                    "{name}: legend {item:?} outside its chart {figure:?}"
                ));
            }
        }
    }
    problems
}

#[test]
fn at_1280_px_no_legend_overlaps_a_plot_and_the_charts_use_the_width() {
    with_browser_report(|html, work| {
        let artifacts = artifacts();
        chromium(
            &[
                "--window-size=1280,4000",
                &format!(
                    "--screenshot={}",
                    artifacts.join("report-1280.png").display()
                ),
            ],
            html,
            work,
        );

        // The control: legends moved over their plots must be caught.
        let moved = geometry(
            html,
            work,
            "figure.chart { position: relative; } ul.legend { position: absolute; top: 60px; left: 120px; }",
        );
        let problems = layout_problems(&moved);
        assert!(
            problems.iter().any(|p| p.contains("overlaps the plot")),
            "the check cannot see an overlap: {problems:?}"
        );

        let g = geometry(html, work, "");
        let figures = g["figures"].as_array().unwrap();
        assert!(figures.len() >= 9, "{} charts measured", figures.len());
        assert!(
            figures
                .iter()
                .all(|f| !f["legend"].as_array().unwrap().is_empty()),
            "a chart without a legend: {g}"
        );
        let problems = layout_problems(&g);
        assert!(problems.is_empty(), "{problems:#?}");
        // Full width: the charts reach across the page (two columns at 1280 px), not a narrow
        // column down the left.
        let width = g["width"].as_f64().unwrap();
        let rightmost = figures
            .iter()
            .map(|f| f["figure"][2].as_f64().unwrap())
            .fold(0.0, f64::max);
        assert!(
            rightmost > 0.9 * width,
            "charts end at {rightmost} of {width} px"
        );
    });
}
