//! The command line's tests: the help is written from the tables, argv parses as documented,
//! and no flag is named outside its declaration (a scan of `src/`).

use super::*;
use crate::engine::EngineChoice;
use crate::units::ByteSize;
use crate::workload::{Profile, ProfileName, SetKind, TestId};
use clap::CommandFactory;

fn parse(args: &[&str]) -> std::result::Result<Cli, clap::Error> {
    Cli::try_parse_from(std::iter::once("destbench").chain(args.iter().copied()))
}

/// The help is written from the tables the code runs: nothing in them can be missing.
#[test]
fn run_help_lists_every_test_profile_and_set() {
    // Unwrapped (the help wraps to the terminal), so that each entry is on one line.
    let cli = Cli::command();
    let mut run = cli.find_subcommand("run").unwrap().clone().term_width(0);
    let long = run.render_long_help().to_string();
    let short = run.render_help().to_string();
    for test in TestId::ALL {
        assert!(long.contains(test.about()), "{test} missing from --help");
        assert!(short.contains(test.as_str()), "{test} missing from -h");
    }
    for profile in ProfileName::ALL {
        assert!(
            long.contains(&format!(
                "{:<7} about {} s, {}-{} runs",
                profile.to_string(),
                Profile::get(profile).budget.as_secs(),
                Profile::get(profile).min_runs,
                Profile::get(profile).max_runs
            )),
            "{profile} not in --help"
        );
        assert!(short.contains(&profile.to_string()));
    }
    for set in SetKind::ALL {
        assert!(long.contains(&format!("{:<7} files of", set.as_str())));
        assert!(short.contains(set.as_str()));
    }
}

#[test]
fn color_is_global_and_auto_by_default() {
    assert_eq!(parse(&["list"]).unwrap().color, ColorChoice::Auto);
    assert_eq!(
        parse(&["--color", "never", "list"]).unwrap().color,
        ColorChoice::Never
    );
    assert_eq!(
        parse(&["history", "--color", "always"]).unwrap().color,
        ColorChoice::Always
    );
}

#[test]
fn run_defaults() {
    let Command::Run(run) = parse(&["run"]).unwrap().command else {
        panic!("not run")
    };
    assert_eq!(run.profile, None);
    assert_eq!(run.options.engine, EngineChoice::Auto);
    assert!(run.path.is_none() && run.options.tests.is_none() && !run.json);
}

#[test]
fn run_every_flag() {
    let Command::Run(run) = parse(&[
        "run",
        "/mnt",
        "--profile",
        "quick",
        "--tests",
        "seq-read,tm-check:50MB",
        "--size",
        "1GiB",
        "--runs",
        "4",
        "--engine",
        "uring",
        "--json",
        "--label",
        "usb",
        "--duration",
        "1.5",
        "--buffered",
        "--no-drop-caches",
        "--seed",
        "9",
    ])
    .unwrap()
    .command
    else {
        panic!("not run")
    };
    assert_eq!(run.path, Some(PathBuf::from("/mnt")));
    assert_eq!(run.profile.as_deref(), Some("quick"));
    let o = &run.options;
    assert_eq!(o.tests.as_ref().map(|t| t.value.len()), Some(2));
    assert_eq!(o.size, Some(ByteSize(1 << 30).into()));
    assert_eq!(
        (o.runs.clone(), o.block_duration.clone(), o.seed),
        (Some(4.into()), Some(1.5.into()), Some(9))
    );
    assert_eq!(o.engine, EngineChoice::Uring);
    assert!(run.json && o.force_buffered && !o.allow_drop_caches);
    assert_eq!(o.label.as_deref(), Some("usb"));
}

#[test]
fn info_and_link_speed() {
    let Command::Info(info) = parse(&["info", "/mnt", "--json", "--link-speed", "1gbit"])
        .unwrap()
        .command
    else {
        panic!("not info")
    };
    assert_eq!(info.path, PathBuf::from("/mnt"));
    assert!(info.json);
    assert_eq!(info.link_speed.unwrap().mbit_s, 1000.0);
    assert!(parse(&["info"]).is_err(), "PATH is required");
    assert!(parse(&["run", "--link-speed", "fast"]).is_err());
}

#[test]
fn malformed_values_are_rejected() {
    assert!(parse(&["run", "--size", "lots"]).is_err());
    assert!(parse(&["run", "--tests", "seq-sideways"]).is_err());
    assert!(parse(&["run", "--engine", "aio"]).is_err());
    assert!(parse(&["run", "--runs", "-1"]).is_err());
    let both = parse(&["run", "--verify", "--no-verify"]).unwrap_err();
    assert_eq!(both.kind(), clap::error::ErrorKind::ArgumentConflict);
    assert!(parse(&["run", "--no-verify", "--verify"]).is_err());
}

/// Every long flag of the command line as typed (`--runs`), but clap's own `--help` and
/// `--version`.
fn declared_flags() -> Vec<String> {
    fn walk(cmd: &clap::Command, out: &mut Vec<String>) {
        let longs = cmd.get_arguments().filter_map(|a| a.get_long());
        out.extend(
            longs
                .filter(|l| !["help", "version"].contains(l))
                .map(|l| format!("--{l}")),
        );
        cmd.get_subcommands().for_each(|sub| walk(sub, out));
    }
    let mut out = Vec::new();
    walk(&Cli::command(), &mut out);
    out.sort();
    out.dedup();
    out
}

/// The string literals of `text` (Rust source) outside comments and `#[cfg(test)]` items,
/// each with its line; and the modules it declares under `#[cfg(test)]` (`mod tests;`).
fn literals(text: &str) -> (Vec<(usize, String)>, Vec<String>) {
    let s: Vec<char> = text.chars().collect();
    let at = |i: usize| s.get(i).copied().unwrap_or('\0');
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let (mut i, mut line, mut depth) = (0, 1, 0);
    let (mut out, mut test_mods) = (Vec::new(), Vec::new());
    // The depth of the `#[cfg(test)]` item being skipped; whether one is announced.
    let (mut skipping, mut announced): (Option<usize>, Option<usize>) = (None, None);
    while i < s.len() {
        let rest: String = s[i..(i + 24).min(s.len())].iter().collect();
        let raw = at(i) == 'r' && (at(i + 1) == '"' || at(i + 1) == '#') && {
            let hashes = s[i + 1..].iter().take_while(|&&c| c == '#').count();
            at(i + 1 + hashes) == '"' && (i == 0 || !ident(at(i - 1)) || at(i - 1) == 'b')
        };
        if rest.starts_with("//") {
            while i < s.len() && at(i) != '\n' {
                i += 1;
            }
        } else if rest.starts_with("/*") {
            while i < s.len() && !(at(i) == '*' && at(i + 1) == '/') {
                line += usize::from(at(i) == '\n');
                i += 1;
            }
            i += 2;
        } else if at(i) == '"' || raw {
            let hashes = if raw {
                s[i + 1..].iter().take_while(|&&c| c == '#').count()
            } else {
                0
            };
            let start = if raw { i + 2 + hashes } else { i + 1 };
            let (first, mut j) = (line, start);
            while j < s.len() {
                if at(j) == '"'
                    && s[j + 1..]
                        .iter()
                        .take(hashes)
                        .filter(|&&c| c == '#')
                        .count()
                        == hashes
                {
                    break;
                }
                j += if at(j) == '\\' && !raw { 2 } else { 1 };
            }
            line += s[i..j].iter().filter(|&&c| c == '\n').count();
            if skipping.is_none() {
                out.push((first, s[start..j].iter().collect()));
            }
            i = j + 1 + hashes;
        } else if at(i) == '\'' && (at(i + 1) == '\\' || at(i + 2) == '\'') {
            // A character, not a lifetime: '{', '"', '\''.
            i += 3;
            while i < s.len() && at(i - 1) != '\'' {
                i += 1;
            }
        } else if rest.starts_with("#[cfg(test)]") || rest.starts_with("#[cfg(all(test,") {
            announced = announced.or(Some(depth));
            i += 1;
        } else {
            match at(i) {
                '\n' => line += 1,
                '{' => {
                    depth += 1;
                    if announced.take().is_some() && skipping.is_none() {
                        skipping = Some(depth);
                    }
                }
                '}' => {
                    if skipping == Some(depth) {
                        skipping = None;
                    }
                    depth -= 1;
                }
                ';' if announced.take().is_some() && skipping.is_none() => {
                    let item: String = s[..i].iter().rev().take_while(|&&c| c != ']').collect();
                    let item: String = item.chars().rev().collect();
                    if let Some((_, name)) = item.rsplit_once("mod ") {
                        test_mods.push(name.trim().to_string());
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
    (out, test_mods)
}

/// The flags `text` names: `--to` in "--to PATH" (not "--tool", nor "x--to").
fn dashed(text: &str) -> Vec<String> {
    let part = |c: char| c.is_ascii_alphanumeric() || c == '-';
    let mut out = Vec::new();
    for (at, _) in text.match_indices("--") {
        let name: String = text[at + 2..].chars().take_while(|&c| part(c)).collect();
        let starts = name.chars().next().is_some_and(|c| c.is_ascii_lowercase());
        if starts && !text[..at].chars().next_back().is_some_and(part) {
            out.push(format!("--{name}"));
        }
    }
    out
}

/// The layers below `settings` (docs/architecture.md), which cannot import its declarations:
/// their few words about a flag (a declared link's `--link-speed`, a test's help) must name a
/// declared flag.
const BELOW_SETTINGS: [&str; 8] = [
    "error.rs",
    "units.rs",
    "platform/",
    "interrupt.rs",
    "stats/",
    "probe/",
    "workload/",
    "engine/",
];

/// Other programs' flags in the argv or the advice we write for them.
const OTHER_PROGRAMS: [(&str, &str); 6] = [
    ("report/export/fio.rs", "--output"),
    ("probe/macos/timemachine.rs", "--style"),
    ("probe/macos/timemachine.rs", "--last"),
    ("probe/macos/timemachine.rs", "--predicate"),
    ("workload/presets.rs", "--encryption"),
    ("workload/presets.rs", "--path"),
];

/// A flag renamed in its declaration (`settings::defs`, or the clap structs here) must leave
/// no message or argv behind that still says the old name: outside them, code names a flag
/// through its declaration (`{RUNS}`, `defs::ENGINE`), never by a literal.
#[test]
fn no_flag_is_named_by_a_literal_outside_its_declaration() {
    let flags = declared_flags();
    assert!(flags.contains(&"--runs".to_string()) && flags.contains(&"--tool".to_string()));
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![src.clone()];
    let (mut sources, mut test_only) = (Vec::new(), Vec::new());
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        let rel = path
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if !rel.ends_with(".rs") {
            continue;
        }
        let (found, test_mods) = literals(&std::fs::read_to_string(&path).unwrap());
        // A module declared in x.rs lives in x/, one declared in mod.rs beside it.
        let dir = rel
            .trim_end_matches("mod.rs")
            .trim_end_matches("lib.rs")
            .trim_end_matches(".rs");
        let dir = if dir.is_empty() || dir.ends_with('/') {
            dir.to_string()
        } else {
            format!("{dir}/")
        };
        test_only.extend(
            test_mods
                .iter()
                .flat_map(|m| [format!("{dir}{m}.rs"), format!("{dir}{m}/")]),
        );
        sources.push((rel, found));
    }
    let mut problems = Vec::new();
    for (rel, found) in &sources {
        let declaration = rel.starts_with("cli/") || rel == "settings/defs.rs";
        let test = test_only
            .iter()
            .any(|t| rel == t || (t.ends_with('/') && rel.starts_with(t.as_str())));
        if declaration || test {
            continue;
        }
        let below = BELOW_SETTINGS.iter().any(|m| rel.starts_with(m));
        for (line, text) in found {
            for flag in dashed(text) {
                let ours = flags.contains(&flag);
                let foreign = OTHER_PROGRAMS.contains(&(rel.as_str(), flag.as_str()));
                // Below settings a flag may be named, but only as declared: a renamed flag
                // fails here, where its old name is no flag of ours any more.
                let problem = if below {
                    !ours && !foreign
                } else {
                    ours && !foreign
                };
                if problem {
                    problems.push(format!("src/{rel}:{line}: {flag} in {text:?}"));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "flag names typed outside their declaration; name them through it \
         (settings::defs, `{{RUNS}}` prints --runs):\n{}",
        problems.join("\n")
    );
}

/// What `settings::defs` declares is a flag of the command line, under that name.
#[test]
fn every_declared_setting_is_a_flag() {
    use crate::settings::defs::*;
    let flags = declared_flags();
    for s in [
        &PROFILE,
        &TESTS,
        &SETS,
        &SIZE,
        &BAND_SIZE,
        &RUNS,
        &DURATION,
        &MIN_TIME,
        &TIME,
        &THREADS,
        &SET_SIZE,
        &FILES,
        &SOURCE,
        &VERIFY,
        &BUFFERED,
        &OUTPUT,
        &STONEWALL,
        &CLIENTS,
        &ENGINE,
        &LINK_SPEED,
        &SOURCE_DIR,
        &TIME_MACHINE,
        &WIDE,
        &DB,
        &TO,
        &RUN,
        &TOOL,
    ] {
        assert!(
            flags.contains(&s.to_string()),
            "{s} is declared but no flag"
        );
    }
}

#[test]
fn the_flag_scan_sees_literals_and_skips_comments_and_tests() {
    let text = "// \"--runs\"\nfn f() { g(\"--runs 3\", '\"', r#\"--tool \"x\"\"#); }\n\
                #[cfg(test)]\nmod tests;\n#[cfg(test)]\nmod t { fn h() { \"--runs\"; } }\n\"--to\"";
    let (found, test_mods) = literals(text);
    let texts: Vec<&str> = found.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(texts, ["--runs 3", "--tool \"x\"", "--to"]);
    assert_eq!(found[2].0, 7);
    assert_eq!(test_mods, ["tests"]);
    assert_eq!(dashed("--to PATH, --tool x--to --"), ["--to", "--tool"]);
}
