//! `destbench ui` in a real browser: `ui_browser.py` drives headless Chromium through Selenium
//! (Debian's chromium and chromium-driver, PyPI's selenium) against a served page, starts a
//! quick run on the testbed's slow disk (held to 100 MB/s), watches the progress move, reads the
//! time answer first and the "how long" table's durations, the verdict tile, the sequential
//! figures against the disk's rate and the history row, and screenshots the page at 1280x800
//! and 390x844, light and dark, into target/tmp/ui-screenshots/ (CI's artifacts; docs/images/
//! keeps a copy of the four).

use std::path::Path;
use std::process::Command;

use crate::support::{have_program, skip};
use crate::testbed::Testbed;
use crate::ui::Ui;

fn selenium_installed() -> bool {
    Command::new("python3")
        .args(["-c", "import selenium"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The testbed's disk is offered; the FUSE helper mount behind it (nbdfuse's, 0 B free, its
/// source named /dev/fuse) is not.
fn check_volumes(ui: &Ui, disk: &Path) {
    let (code, body) = ui.get("/api/destinations");
    assert_eq!(code, 200, "{body}");
    let list: serde_json::Value = serde_json::from_str(&body).unwrap();
    let paths: Vec<&str> = crate::support::each(&list, "path", serde_json::Value::as_str);
    let helper = disk.with_file_name("fuse");
    assert!(
        helper.is_dir(),
        "the testbed's FUSE mount moved: {}",
        helper.display()
    );
    assert!(paths.contains(&disk.to_str().unwrap()), "{paths:?}");
    assert!(!paths.contains(&helper.to_str().unwrap()), "{paths:?}");
}

#[test]
#[ignore = "a quick run in a real browser on the testbed: about a minute; CI runs it"]
fn the_page_runs_and_answers_in_chromium() {
    if !have_program("chromium") || !have_program("chromedriver") || !selenium_installed() {
        skip("needs chromium, chromium-driver (Debian) and selenium (pip) for the browser test");
        return;
    }
    // Shared, not alone: the page's figures are checked loosely (below the ceiling, above half).
    let Some(tb) = Testbed::up("slow-disk", &["--rate", "100"]) else {
        return;
    };
    let ceiling = tb.ceiling_mb_s().expect("slow-disk has a known ceiling");
    let dir = tempfile::tempdir().unwrap();
    let artifacts = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ui-screenshots");
    // A last run's shots must not pass for this one's.
    let _ = std::fs::remove_dir_all(&artifacts);
    std::fs::create_dir_all(&artifacts).unwrap();
    let ui = Ui::start(dir.path(), "auto");
    check_volumes(&ui, tb.mount());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/integration/ui_browser.py");
    let out = Command::new("python3")
        // The driver is Debian's: Selenium's own manager must not look for one on the network.
        .env("SE_OFFLINE", "true")
        .arg(script)
        .arg(format!("http://127.0.0.1:{}/?t={}", ui.port, ui.token))
        .arg(tb.mount())
        .arg(ceiling.to_string())
        .arg(&artifacts)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the browser test failed:\n{stdout}");
    let shots = [
        "1280x800-light",
        "1280x800-dark",
        "390x844-light",
        "390x844-dark",
    ];
    for shot in shots.map(|s| format!("ui-{s}.png")) {
        let len = std::fs::metadata(artifacts.join(&shot)).map_or(0, |m| m.len());
        assert!(len > 10_000, "{shot}: {len} bytes");
    }
    let left = crate::support::entries(tb.mount());
    assert!(
        left.iter().all(|e| e == "lost+found"),
        "the run left {left:?} in its destination"
    );
}
