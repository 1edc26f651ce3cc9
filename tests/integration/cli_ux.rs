//! The command line as a user meets it: bare `destbench`, short flags, `latest` as a run id,
//! `show -v`, shell completions and the man page.

use std::path::Path;
use std::process::Command;

use crate::history::Fixture;
use crate::support::{assert_success, destbench, each, exits, have_program, skip};

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
    // `ruin` is as near `ui` as `run`: clap names both.
    assert!(
        err.contains("tip: some similar subcommands exist: 'ui', 'run'"),
        "{err}"
    );
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
    let ids: Vec<i64> = each(&cmp["runs"], "id", serde_json::Value::as_i64);
    assert_eq!(ids, [1, 2]);
    // History tells destinations apart by path and filesystem.
    let history: serde_json::Value = serde_json::from_str(&f.ok(&["history", "-j"])).unwrap();
    let stored = history["runs"][0]["destination"].as_str().unwrap();
    assert!(Path::new(stored).is_absolute(), "{stored}");
    let table = f.ok(&["history"]);
    if let Some(fs) = history["runs"][0]["fs_type"].as_str() {
        assert!(table.contains(&format!("{stored} ({fs}")), "{table}");
    }
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
    assert_success(&out);
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
    assert_success(&out);
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
    // A subcommand's page, with its options.
    let page = exits(destbench().args(["man", "run"]), 0).0.stdout;
    std::fs::write(&path, page).unwrap();
    let out = Command::new("man")
        .args(["-l", "-P", "cat"])
        .arg(&path)
        .output()
        .expect("man");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("destbench-run - Run the benchmark"), "{text}");
    assert!(
        text.contains("--profile") && text.contains("--min-time"),
        "{text}"
    );
    let (_, err) = exits(destbench().args(["man", "nope"]), 2);
    assert!(err.contains("no subcommand 'nope'"), "{err}");
}

/// A backup-profile run (null engine, shortened: small sets, short block tests) as the terminal
/// shows it off a terminal: 80 columns.
fn backup_run_text(extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    backup_run_text_in(dir.path(), extra)
}

fn backup_run_text_in(dir: &std::path::Path, extra: &[&str]) -> String {
    let (out, _) = exits(
        destbench()
            .env_remove("COLUMNS")
            .args(["run", dir.to_str().unwrap(), "--engine", "null"])
            .args(["-p", "backup", "--min-time", "0.05", "--set-size", "4MiB"])
            .args(["--duration", "0.2", "--size", "16MiB", "--no-history"])
            .args(extra),
        0,
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The terminal's warnings, one entry each: "  - " starts one, deeper indents continue it.
fn warning_entries(text: &str) -> Vec<String> {
    let mut entries: Vec<String> = Vec::new();
    let lines = text.lines().skip_while(|l| *l != "warnings:").skip(1);
    for line in lines.take_while(|l| !l.is_empty()) {
        match line.strip_prefix("  - ") {
            Some(first) => entries.push(first.to_string()),
            None => entries
                .last_mut()
                .unwrap()
                .push_str(&format!(" {}", line.trim())),
        }
    }
    entries
}

/// After a killed run, the next run's first warning names the leftovers and the command that
/// removes them, whole and without -v, before the warnings about its own figures.
#[cfg(unix)]
#[test]
fn leftovers_of_a_killed_run_are_the_first_warning() {
    let dir = tempfile::tempdir().unwrap();
    let mut killed = destbench()
        .args([
            "run",
            dir.path().to_str().unwrap(),
            "-p",
            "quick",
            "--no-history",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // A scratch directory counts as ours once its marker is in: killed between the two (a
    // race CI's load once won), it would be no leftover to name.
    let scratch = || {
        crate::support::entries(dir.path()).iter().any(|e| {
            e.starts_with(".destbench-")
                && std::fs::metadata(dir.path().join(e).join(".destbench-marker"))
                    .is_ok_and(|m| m.len() > 0)
        })
    };
    let start = std::time::Instant::now();
    while !scratch() && start.elapsed().as_secs() < 30 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    killed.kill().unwrap();
    killed.wait().unwrap();
    assert!(scratch(), "the killed run left no marked scratch directory");
    let text = backup_run_text_in(dir.path(), &[]);
    let warnings = warning_entries(&text);
    assert!(warnings.len() >= 2, "other warnings besides: {warnings:#?}");
    assert!(
        warnings[0].contains("leftover scratch director")
            && warnings[0].contains(&format!("destbench clean {}", dir.path().display())),
        "{warnings:#?}"
    );
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("'{needle}' missing: {text}"))
}

/// The first line that starts with `name` (a table row).
fn row_of(text: &str, name: &str) -> usize {
    text.lines()
        .position(|l| l.starts_with(name))
        .unwrap_or_else(|| panic!("no row {name}: {text}"))
}

#[test]
fn backup_run_fits_80_columns_summary_first() {
    let text = backup_run_text(&[]);
    for line in text.lines() {
        assert!(line.chars().count() <= 80, "over 80 columns: {line:?}");
    }
    // The verdict, the four headline figures and the backup-shaped ones come before the details.
    let details = line_of(&text, "details:");
    let mut summary = vec![line_of(&text, "verdict: ")];
    for needle in ["SEQ1M-Q8T1", "SEQ1M-Q1T1", "RND4K-Q32T1", "RND4K-Q1T1"] {
        summary.push(row_of(&text, needle));
    }
    for needle in ["small files", "mixed set", "Time Machine check"] {
        summary.push(line_of(&text, needle));
    }
    assert!(summary.iter().all(|&l| l < details), "{text}");
    let headline = text.lines().nth(row_of(&text, "SEQ1M-Q8T1")).unwrap();
    assert_eq!(
        headline.split_whitespace().count(),
        3,
        "read and write: {headline}"
    );
    // Warnings grouped: at most 3 entries however many results they concern, none cut.
    let warnings = warning_entries(&text);
    assert!(
        !warnings.is_empty(),
        "the short samples are warned about: {text}"
    );
    assert!(warnings.len() <= 3, "{warnings:#?}");
    assert!(warnings.iter().all(|w| !w.contains('…')), "{warnings:#?}");
    // The answer first: a backup's time on the first line; then the destination as an absolute
    // path.
    let first = text.lines().next().unwrap();
    assert!(
        first.starts_with("A first backup of your data here: "),
        "{text}"
    );
    let title = text
        .lines()
        .find(|l| l.starts_with("destbench on "))
        .unwrap();
    assert!(title.contains(" on /"), "{text}");
}

#[test]
fn wide_and_verbose_show_every_column_and_warning() {
    let wide = backup_run_text(&["--wide"]);
    let header = wide.lines().nth(line_of(&wide, "details:") + 1).unwrap();
    for column in ["min", "max", "IOPS", "files/s", "p99.9 µs", "engine"] {
        assert!(header.contains(column), "{column}: {header}");
    }
    let verbose = backup_run_text(&["-v"]);
    let short = verbose
        .matches("short-sample: the shortest repetition")
        .count();
    assert!(short > 3, "every warning whole under -v: {verbose}");
    assert!(verbose.contains("repetitions, in the order they ran:"));
    // The null engine's figures repeat exactly: known at once, from the least repetitions.
    assert!(
        verbose.contains("(MB/s), median ±0.0% (95%), stopped: precise:"),
        "{verbose}"
    );
}

/// `--color` decides over the terminal check and NO_COLOR (which `destbench()` sets).
#[test]
fn color_flag_colours_a_pipe_or_never() {
    let report = |when: &str| {
        let dir = tempfile::tempdir().unwrap();
        let (out, _) = exits(
            destbench()
                .args(["run", dir.path().to_str().unwrap(), "--engine", "null"])
                .args(["--tests", "seq-write:SEQ1M-Q1T1", "--duration", "0.2"])
                .args(["--size", "16MiB", "--no-history", "--color", when]),
            0,
        );
        String::from_utf8(out.stdout).unwrap()
    };
    assert!(report("always").contains("\x1b["));
    assert!(!report("never").contains("\x1b["));
    assert!(
        !report("auto").contains("\x1b["),
        "a pipe is not a terminal"
    );
}

#[test]
fn list_has_a_header_aligned_columns_and_the_profiles() {
    let (out, _) = exits(destbench().arg("list"), 0);
    let text = String::from_utf8(out.stdout).unwrap();
    let header = text.lines().next().unwrap();
    assert!(header.starts_with("test "), "{header}");
    let columns: Vec<usize> = ["variant", "profiles", "what it does"]
        .iter()
        .map(|c| header.find(c).expect(c))
        .collect();
    for line in text.lines().skip(1) {
        for &at in &columns {
            let before = line.chars().nth(at - 1);
            assert_eq!(before, Some(' '), "column at {at} not aligned: {line}");
        }
    }
    let row = |test: &str, variant: &str| {
        text.lines()
            .find(|l| l.split_whitespace().take(2).eq([test, variant]))
            .unwrap_or_else(|| panic!("{test} {variant}: {text}"))
            .split_whitespace()
            .nth(2)
            .unwrap()
            .to_string()
    };
    assert_eq!(row("seq-read", "SEQ1M-Q8T1"), "quick,backup,full");
    assert_eq!(row("files-copy", "small-1t-cache-off"), "backup,full");
    assert_eq!(row("files-copy", "small-2t-cache-off"), "full");
}

/// destbench with `$XDG_CONFIG_HOME/destbench/config.toml` holding `config`.
fn with_config(config: &str) -> (tempfile::TempDir, Command) {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("destbench")).unwrap();
    std::fs::write(home.path().join("destbench/config.toml"), config).unwrap();
    let mut cmd = destbench();
    cmd.env_remove("DESTBENCH_CONFIG")
        .env("XDG_CONFIG_HOME", home.path());
    (home, cmd)
}

#[test]
fn a_config_file_gives_defaults_and_profiles_of_ones_own() {
    let (home, mut cmd) = with_config(
        "[defaults]\nprofile = \"mine\"\nduration = 0.2\n\n\
         [profiles.mine]\nbase = \"quick\"\ntests = [\"tm-check\"]\nruns = 2\n",
    );
    let dest = tempfile::tempdir().unwrap();
    let run = |cmd: &mut Command, extra: &[&str]| -> serde_json::Value {
        let (out, _) = exits(
            cmd.args(["run", dest.path().to_str().unwrap(), "--engine", "null"])
                .args(["-j", "--no-history"])
                .args(extra),
            0,
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let doc = run(&mut cmd, &[]);
    assert_eq!(doc["settings"]["profile"], "quick", "the base of mine");
    assert_eq!(doc["settings"]["runs"], 2);
    let tests: Vec<&str> = each(&doc["results"], "test", serde_json::Value::as_str);
    assert_eq!(tests, ["tm-check", "tm-check"]);
    // The command line wins over the file.
    let (_home, mut cmd) =
        with_config(&std::fs::read_to_string(home.path().join("destbench/config.toml")).unwrap());
    let doc = run(&mut cmd, &["-r", "3", "-t", "seq-write:SEQ1M-Q1T1"]);
    assert_eq!(doc["settings"]["runs"], 3);
    assert_eq!(
        doc["settings"]["block_duration_s"], 0.2,
        "[defaults] duration"
    );
    assert_eq!(doc["results"][0]["variant"], "SEQ1M-Q1T1");
}

#[test]
fn config_mistakes_are_one_line_naming_file_line_and_key() {
    for (config, needle) in [
        ("[defaults]\nrunz = 3\n", "runz = 3: unknown field `runz`"),
        ("[defaults]\nruns = -2\n", "runs = -2: "),
        (
            "[profiles.mine]\nsize = \"lots\"\n",
            "size = \"lots\": 'lots' is not a size",
        ),
    ] {
        let (home, mut cmd) = with_config(config);
        let (out, err) = exits(cmd.args(["run", "/nonexistent-dest"]), 2);
        assert!(out.stdout.is_empty());
        assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
        let file = home.path().join("destbench/config.toml");
        assert!(
            err.starts_with(&format!("destbench: config {}:2: ", file.display())),
            "{err}"
        );
        assert!(err.contains(needle), "'{needle}' in: {err}");
    }
    let (_home, mut cmd) = with_config("[profiles.mine]\nruns = 2\n");
    let (_, err) = exits(cmd.args(["run", "/tmp", "-p", "theirs"]), 2);
    assert!(err.contains("nor one of the config file's (mine)"), "{err}");
}

/// A value the config file gives is refused naming the file, its line and the key as written
/// there, not a flag the user never typed.
#[test]
fn a_bad_value_in_the_config_file_names_the_file_and_line_not_a_flag() {
    let (home, mut cmd) = with_config("[defaults]\nruns = 2\nduration = 0\n");
    let (out, err) = exits(
        cmd.args(["run", "/nonexistent-dest", "--engine", "null"]),
        2,
    );
    assert!(out.stdout.is_empty());
    let file = home.path().join("destbench/config.toml");
    assert_eq!(
        err.trim_end(),
        format!(
            "destbench: config {}:3: duration = 0: must be more than 0 and at most 3600 seconds",
            file.display()
        )
    );
    // The same value on the command line is named by its flag.
    let (_, err) = exits(
        destbench().args(["run", "/nonexistent-dest", "--duration", "0"]),
        2,
    );
    assert!(
        err.starts_with("destbench: --duration 0: must be more than 0"),
        "{err}"
    );
}

#[test]
fn output_file_takes_the_report_and_a_bad_one_is_refused_before_the_run() {
    let dest = tempfile::tempdir().unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    let file = out_dir.path().join("run.json");
    let d = dest.path().to_str().unwrap();
    let base = [
        "run",
        d,
        "--engine",
        "null",
        "-t",
        "tm-check",
        "-r",
        "1",
        "--no-history",
    ];
    let (out, _) = exits(destbench().args(base).args(["-j", "-o"]).arg(&file), 0);
    assert!(out.stdout.is_empty(), "the report went to the file");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(doc["schema"], "destbench.run/2");
    let missing = out_dir.path().join("no-such-dir/run.txt");
    let (_, err) = exits(destbench().args(base).arg("-o").arg(&missing), 2);
    assert!(err.contains("not a file in an existing directory"), "{err}");
    assert!(
        crate::support::entries(dest.path()).is_empty(),
        "nothing ran"
    );
}
