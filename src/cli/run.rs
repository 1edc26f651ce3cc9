//! `destbench run`: its flags. The lists in the help of `--tests`, `--profile` and `--sets` are
//! written from the tables the code runs (`workload`).

use std::fmt::Write;
use std::path::PathBuf;

use clap::ValueEnum;

use super::DbArg;
use crate::probe::DeclaredLink;
use crate::settings::defs;
use crate::units::{ByteSize, format_bytes, format_size};
use crate::workload::{Profile, ProfileName, SetKind, SuiteOptions, TestId, TestSelector};

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The destination directory (a scratch directory is made inside it and removed after).
    pub path: Option<PathBuf>,

    /// Measure Time Machine's destination instead of a path (macOS: the first destination
    /// `tmutil destinationinfo` lists that is mounted now).
    #[arg(long = defs::TIME_MACHINE.long, conflicts_with = "path")]
    pub time_machine: bool,

    #[arg(short, long = defs::PROFILE.long, help = profiles_short_help(), long_help = profiles_help())]
    pub profile: Option<String>,

    #[arg(short, long = defs::TESTS.long, value_delimiter = ',', value_parser = TestSelectorParser,
          hide_possible_values = true, help = tests_short_help(), long_help = tests_help())]
    pub tests: Vec<TestSelector>,

    #[arg(long = defs::SIZE.long, help = defs::SIZE.help())]
    pub size: Option<ByteSize>,

    #[arg(long = defs::BAND_SIZE.long, help = defs::BAND_SIZE.help())]
    pub band_size: Option<ByteSize>,

    #[arg(short, long = defs::RUNS.long, help = defs::RUNS.help(),
          allow_negative_numbers = true, value_parser = positive)]
    pub runs: Option<usize>,

    #[arg(long = defs::DURATION.long, help = defs::DURATION.help(), allow_negative_numbers = true)]
    pub duration: Option<f64>,

    #[arg(long = defs::MIN_TIME.long, help = defs::MIN_TIME.help(), allow_negative_numbers = true)]
    pub min_time: Option<f64>,

    #[arg(long = defs::TIME.long, help = defs::TIME.help(), allow_negative_numbers = true)]
    pub time: Option<f64>,

    /// I/O engine of the block tests: auto (sync at queue depth 1, io_uring above), sync, uring
    /// (the file-set and metadata tests use system calls under each).
    #[arg(long = defs::ENGINE.long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,

    /// Print one JSON document (schema destbench.run/2) on stdout instead of the table.
    #[arg(short, long)]
    pub json: bool,

    /// Also print every result's repetitions, in the order they ran, each with its time, every
    /// warning whole, and the wide table.
    #[arg(short, long)]
    pub verbose: bool,

    #[arg(short, long = defs::OUTPUT.long, help = defs::OUTPUT.help(), value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// The full results table (min, max, IOPS, files/s, p50, p99.9, method, engine) even when it
    /// is wider than the terminal (by default it fits, 80 columns off a terminal).
    #[arg(long = defs::WIDE.long)]
    pub wide: bool,

    /// A label stored with the results.
    #[arg(long)]
    pub label: Option<String>,

    #[arg(long = defs::BUFFERED.long, help = defs::BUFFERED.help())]
    pub buffered: bool,

    /// Never drop the machine's page cache, even as root when per-file eviction fails.
    #[arg(long)]
    pub no_drop_caches: bool,

    #[arg(long = defs::UNCONFINED_PROGRAMS.long, help = defs::UNCONFINED_PROGRAMS.help())]
    pub unconfined_programs: bool,

    #[arg(long = defs::THREADS.long, help = defs::THREADS.help(), value_delimiter = ',',
          allow_negative_numbers = true, value_parser = positive)]
    pub threads: Vec<usize>,

    #[arg(long = defs::SETS.long, value_delimiter = ',', help = sets_short_help(),
          long_help = sets_help())]
    pub sets: Vec<SetKind>,

    #[arg(long = defs::SET_SIZE.long, help = defs::SET_SIZE.help())]
    pub set_size: Option<ByteSize>,

    #[arg(long = defs::FILES.long, help = defs::FILES.help(), allow_negative_numbers = true,
          value_parser = positive_u64)]
    pub files: Option<u64>,

    #[arg(long = defs::SOURCE.long, help = defs::SOURCE.help())]
    pub source: Option<PathBuf>,

    #[arg(long = defs::DATA.long, help = defs::DATA.help())]
    pub data: Option<PathBuf>,

    /// Let --source enter directories on other filesystems (mount points); by default they are
    /// skipped and counted, as `find -xdev` does.
    #[arg(long)]
    pub cross_filesystems: bool,

    /// Where generated file sets are made (default: the system's temp directory; choose a fast
    /// local disk).
    #[arg(long = defs::SOURCE_DIR.long)]
    pub source_dir: Option<PathBuf>,

    // Both at once is a contradiction, refused rather than settled by their order.
    #[arg(long = defs::VERIFY.long, help = defs::VERIFY.help(), conflicts_with = "no_verify")]
    pub verify: bool,

    /// Do not verify restored files.
    #[arg(long)]
    pub no_verify: bool,

    /// Skip the free-space check (for filesystems that misreport free space); a destination
    /// that fills up still fails the test that hit it, cleanly.
    #[arg(long)]
    pub no_space_check: bool,

    /// Seed for the random data and offsets (default: random; recorded in the results).
    #[arg(long)]
    pub seed: Option<u64>,

    /// Declare the speed of a link the system cannot report (e.g. 100mbit) for the verdict;
    /// shown as declared, never as read.
    #[arg(long = defs::LINK_SPEED.long)]
    pub link_speed: Option<DeclaredLink>,

    #[arg(long = defs::STONEWALL.long, help = defs::STONEWALL.help())]
    pub stonewall: bool,

    #[arg(long = defs::CLIENTS.long, help = defs::CLIENTS.help(), value_delimiter = ',')]
    pub clients: Vec<usize>,

    /// Do not store this run in the history database.
    #[arg(long)]
    pub no_history: bool,

    #[command(flatten)]
    pub history_db: DbArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    Auto,
    Sync,
    Uring,
    /// No I/O, fixed latencies: for testing destbench itself.
    #[value(hide = true)]
    Null,
}

/// A count that must be 1 or more: a negative one says so rather than "unexpected argument".
fn positive(s: &str) -> std::result::Result<usize, String> {
    positive_u64(s).and_then(|n| usize::try_from(n).map_err(|e| e.to_string()))
}

fn positive_u64(s: &str) -> std::result::Result<u64, String> {
    match s.trim().parse::<i128>() {
        Ok(n) if n > 0 => u64::try_from(n).map_err(|_| format!("{n} is too large")),
        Ok(_) => Err("must be positive".into()),
        Err(_) => Err(format!("`{s}` is not a whole number")),
    }
}

/// `--tests`: parsed by [`TestSelector`]'s `FromStr`; its possible values (the test ids) are
/// what shell completions offer.
#[derive(Clone)]
struct TestSelectorParser;

impl clap::builder::TypedValueParser for TestSelectorParser {
    type Value = TestSelector;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> std::result::Result<TestSelector, clap::Error> {
        let text = value
            .to_str()
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidUtf8).with_cmd(cmd))?;
        text.parse().map_err(|e: String| {
            let name = arg.map_or(defs::TESTS.to_string(), |a| a.to_string());
            clap::Error::raw(
                clap::error::ErrorKind::ValueValidation,
                format!("invalid value '{text}' for '{name}': {e}\n"),
            )
            .with_cmd(cmd)
        })
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            TestId::ALL
                .into_iter()
                .map(|t| clap::builder::PossibleValue::new(t.as_str())),
        ))
    }
}

fn names<T: std::fmt::Display>(items: impl IntoIterator<Item = T>) -> String {
    items
        .into_iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `-h`: the test ids, one line.
fn tests_short_help() -> String {
    format!(
        "Tests to run, comma-separated ({}); one variant as test:variant (seq-read:SEQ1M-Q8T1)",
        names(TestId::ALL)
    )
}

/// `--help`: every test with what it does, the profiles that run it, and its variants.
fn tests_help() -> String {
    let full = Profile::get(ProfileName::Full);
    let suite = crate::workload::suite(&SuiteOptions {
        sets: full
            .sets
            .iter()
            .map(|&(k, _)| crate::workload::SetName::Generated(k))
            .collect(),
        threads: vec![1, 4],
        meta_files: full.meta_files,
        programs: vec![crate::workload::CopyProgram::Rsync],
    });
    let mut out = tests_short_help();
    out.push_str(".\n");
    for test in TestId::ALL {
        let profiles: Vec<ProfileName> = ProfileName::ALL
            .into_iter()
            .filter(|&p| Profile::get(p).tests.contains(&test))
            .collect();
        let variants: Vec<&str> = suite
            .iter()
            .filter(|v| v.test == test)
            .map(|v| v.name.as_str())
            .collect();
        let shown = if test.is_file_level() && test != TestId::Meta {
            // One per set, thread count and cache mode: name the pattern, not all of them.
            format!(
                "{} ... ({} with 1 and 4 threads)",
                variants[0],
                variants.len()
            )
        } else {
            variants.join(", ")
        };
        let _ = write!(
            out,
            "\n  {:<13} {}\n  {:<13} in: {}; variants: {shown}",
            test.as_str(),
            test.about(),
            "",
            if profiles.is_empty() {
                "only with --tests".to_string()
            } else {
                names(profiles)
            },
        );
    }
    out
}

fn profiles_short_help() -> String {
    format!(
        "How long and how often ({}; default backup), or a profile of the config file \
         ($XDG_CONFIG_HOME/destbench/config.toml)",
        names(ProfileName::ALL)
    )
}

/// `--help`: each profile with what it runs, from its definition.
fn profiles_help() -> String {
    let mut out = profiles_short_help();
    out.push_str(":\n");
    for name in ProfileName::ALL {
        let p = Profile::get(name);
        let sets: Vec<String> = p
            .sets
            .iter()
            .map(|&(k, bytes)| format!("{k} {}", format_size(bytes)))
            .collect();
        let _ = write!(
            out,
            "\n  {:<7} about {} s, {}-{} runs of at least {} s, up to {} s per block test, {} test file{}\n  {:<7} tests: {}\n  {:<7} file sets: {}; copy threads: {}",
            name.to_string(),
            p.budget.as_secs(),
            p.min_runs,
            p.max_runs,
            p.min_time.as_secs_f64(),
            p.block_duration.as_secs_f64(),
            format_bytes(p.file_size),
            if name == ProfileName::Backup {
                " (the default)"
            } else {
                ""
            },
            "",
            names(p.tests.iter()),
            "",
            sets.join(", "),
            names(p.threads.iter()),
        );
    }
    out
}

fn sets_short_help() -> String {
    format!(
        "Generated file sets to use, comma-separated ({})",
        names(SetKind::ALL)
    )
}

/// `--help`: each set with the sizes of its files.
fn sets_help() -> String {
    let mut out = sets_short_help();
    out.push_str(".\n");
    for kind in SetKind::ALL {
        let (low, high) = kind.range();
        let _ = if kind == SetKind::Mixed {
            write!(
                out,
                "\n  {:<7} files of a few KB in small nested directories, as on a desktop \
                 disk, and a fifth of the bytes in files of 1/16 to 1/4 of the set",
                kind.as_str()
            )
        } else {
            write!(
                out,
                "\n  {:<7} files of {} to {}",
                kind.as_str(),
                format_bytes(low),
                format_bytes(high)
            )
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use clap::CommandFactory;

    use super::*;
    use crate::settings::defs::{self, Setting};

    /// `run --help` as printed, each option's text on one line (the wrapping undone).
    fn option_help(help: &str, setting: &Setting) -> String {
        let header = format!("{setting} ");
        let mut lines = help.lines().skip_while(|l| {
            let l = l.trim_start();
            !(l.starts_with('-') && (l.contains(&header) || l.ends_with(&setting.to_string())))
        });
        let first = lines
            .next()
            .unwrap_or_else(|| panic!("{setting} not in the help"));
        let rest = lines.take_while(|l| !l.trim_start().starts_with('-'));
        std::iter::once(first)
            .chain(rest)
            .flat_map(str::split_whitespace)
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Every profile-dependent default `--help` shows is the profile table's, for every profile.
    #[test]
    fn run_help_shows_each_profiles_defaults_from_the_profile_table() {
        let mut cli = crate::cli::Cli::command();
        let help = cli
            .find_subcommand_mut("run")
            .expect("a run subcommand")
            .render_long_help()
            .to_string();
        let secs = |d: Duration| format!("{} s", d.as_secs_f64());
        for name in ProfileName::ALL {
            let p = Profile::get(name);
            let sets: Vec<String> = p
                .sets
                .iter()
                .map(|&(k, b)| format!("{k} {}", format_size(b)))
                .collect();
            let threads: Vec<String> = p.threads.iter().map(|t| t.to_string()).collect();
            let expected = [
                (&defs::MIN_TIME, secs(p.min_time)),
                (&defs::DURATION, secs(p.block_duration)),
                (&defs::TIME, secs(p.sustained_time)),
                (&defs::RUNS, format!("{}-{} runs", p.min_runs, p.max_runs)),
                (&defs::SIZE, format_bytes(p.file_size)),
                (&defs::THREADS, threads.join(",")),
                (&defs::SET_SIZE, format!("({})", sets.join(", "))),
                (&defs::VERIFY, if p.verify { "on" } else { "off" }.into()),
            ];
            for (setting, value) in expected {
                let shown = option_help(&help, setting);
                assert!(
                    shown.contains(&format!("{name} {value}")),
                    "{setting}: no `{name} {value}` in: {shown}"
                );
            }
        }
        // The figure the hand-typed help once had wrong.
        assert!(option_help(&help, &defs::MIN_TIME).contains("backup 0.75 s"));
    }
}
