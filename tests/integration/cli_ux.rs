//! The command line as a user meets it: bare `destbench`, short flags, `latest` as a run id,
//! `show -v`, shell completions and the man page.

use std::process::Command;

use crate::history::Fixture;
use crate::support::{destbench, exits, have_program, skip};

#[test]
fn bare_destbench_prints_usage_and_subcommands() {
    let (out, err) = exits(&mut destbench(), 2);
    assert!(out.stdout.is_empty());
    assert!(err.contains("Usage: destbench <COMMAND>"), "{err}");
    for sub in ["run", "history", "compare", "completions", "man"] {
        assert!(err.contains(&format!("\n  {sub} ")), "{sub} missing: {err}");
    }
}

#[test]
fn unknown_subcommand_keeps_the_did_you_mean_tip() {
    let (_, err) = exits(destbench().arg("ruin"), 2);
    assert!(
        err.starts_with("destbench: unrecognized subcommand 'ruin'"),
        "{err}"
    );
    assert!(err.contains("a similar subcommand exists: 'run'"), "{err}");
}

#[test]
fn short_flags_latest_and_show_verbose() {
    let f = Fixture::new();
    let dest = f.dest().to_str().unwrap().to_string();
    // -p -t -r -j: a quick profile with two tests, three repetitions, JSON.
    let (out, _) = exits(
        f.cmd().args([
            "run",
            &dest,
            "--engine",
            "null",
            "-p",
            "quick",
            "-t",
            "seq-write,tm-check",
            "-r",
            "3",
            "--duration",
            "0.3",
            "--size",
            "16MiB",
            "-j",
        ]),
        0,
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("-j is JSON");
    assert_eq!(doc["settings"]["profile"], "quick");
    assert_eq!(doc["settings"]["runs"], 3);
    f.run(&["--label", "second"]);
    // `latest` and `last` are the newest run; `show -v` lists every repetition in order.
    let shown = f.ok(&["show", "latest", "-v"]);
    assert!(shown.contains("second"), "{shown}");
    assert_eq!(shown, f.ok(&["show", "last", "-v"]));
    assert!(
        shown.contains("repetitions, in the order they ran:"),
        "{shown}"
    );
    let first_seq = shown
        .lines()
        .skip_while(|l| !l.contains("repetitions, in the order"))
        .skip_while(|l| !l.trim_start().starts_with("seq-write"))
        .skip(1)
        .take_while(|l| {
            l.trim_start()
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit())
        })
        .map(|l| l.trim_start().split('.').next().unwrap().to_string())
        .collect::<Vec<_>>();
    assert_eq!(first_seq, ["1", "2"], "{shown}");
    let cmp: serde_json::Value =
        serde_json::from_str(&f.ok(&["compare", "1", "latest", "-j"])).unwrap();
    let ids: Vec<i64> = cmp["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [1, 2]);
    assert_eq!(f.ok(&["forget", "latest"]), "forgot run 2\n");
    assert_eq!(f.ids(), [1]);
}

#[test]
fn latest_of_an_empty_history_says_so() {
    let f = Fixture::new();
    let (_, err) = exits(f.cmd().args(["show", "latest"]), 2);
    assert!(
        err.starts_with("destbench: no runs stored yet in "),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

/// Completes `words` (the last one being completed) with the generated bash script.
fn bash_complete(words: &str) -> Vec<String> {
    let script = exits(destbench().args(["completions", "bash"]), 0).0.stdout;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("destbench.bash");
    std::fs::write(&path, script).unwrap();
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "source {} || exit 3; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
             _destbench destbench \"${{COMP_WORDS[-1]}}\" \"${{COMP_WORDS[-2]}}\"; \
             printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            path.display()
        ))
        .output()
        .expect("bash");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "sourced cleanly: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn bash_completes_subcommands_and_test_names() {
    let subs = bash_complete("destbench ''");
    for sub in ["run", "history", "show", "compare", "completions", "man"] {
        assert!(subs.iter().any(|s| s == sub), "{sub} not offered: {subs:?}");
    }
    let tests = bash_complete("destbench run --tests ''");
    for test in [
        "seq-write",
        "4k-read",
        "tm-check",
        "files-copy",
        "sustained",
    ] {
        assert!(
            tests.iter().any(|s| s == test),
            "{test} not offered: {tests:?}"
        );
    }
    assert_eq!(bash_complete("destbench run -t files-c"), ["files-copy"]);
}

#[test]
fn other_shells_get_a_script_and_an_unknown_shell_is_refused() {
    for (shell, marker) in [
        ("zsh", "#compdef destbench"),
        ("fish", "complete -c destbench"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let out = exits(destbench().args(["completions", shell]), 0).0.stdout;
        assert!(String::from_utf8(out).unwrap().contains(marker), "{shell}");
    }
    let (_, err) = exits(destbench().args(["completions", "tcsh"]), 2);
    assert!(
        err.contains("invalid value 'tcsh'") && err.contains("bash"),
        "{err}"
    );
}

#[test]
fn man_page_renders() {
    if !have_program("man") {
        skip("needs man (man-db)");
        return;
    }
    let page = exits(destbench().arg("man"), 0).0.stdout;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("destbench.1");
    std::fs::write(&path, page).unwrap();
    let out = Command::new("man")
        .args(["-l", "-P", "cat"])
        .arg(&path)
        .env("MANWIDTH", "80")
        .output()
        .expect("man");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("NAME") && text.contains("destbench - Benchmarks"),
        "{text}"
    );
    for sub in ["run", "compare", "completions"] {
        assert!(text.contains(sub), "{sub} not in the page: {text}");
    }
    assert!(
        !text.contains(".TH") && !text.contains("\\fB"),
        "roff rendered: {text}"
    );
}
