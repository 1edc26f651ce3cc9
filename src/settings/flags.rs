//! What clap needs of the run's settings besides their declaration (`defs`): the parsers that
//! turn a flag's text into its typed [`Given`] value, and the help lists written from the tables
//! the code runs (`workload`), so that they cannot fall behind it.

use std::ffi::OsStr;
use std::fmt::Write;
use std::str::FromStr;

use clap::builder::{PossibleValue, TypedValueParser};

use super::Given;
use crate::engine::{EngineChoice, NullTiming};
use crate::units::{format_bytes, format_size};
use crate::workload::{Profile, ProfileName, SetKind, SuiteOptions, TestId, TestSelector};

/// A flag's value as its type parses it (`FromStr`), given on the command line.
pub fn given<T: FromStr>(s: &str) -> Result<Given<T>, T::Err> {
    s.parse::<T>().map(Given::from)
}

/// A comma-separated list, each item parsed by `P` (its errors name the item, as clap's own
/// `value_delimiter` does), given on the command line.
#[derive(Clone)]
pub struct List<P>(pub P);

impl<P: TypedValueParser> TypedValueParser for List<P> {
    type Value = Given<Vec<P::Value>>;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<Self::Value, clap::Error> {
        let text = value
            .to_str()
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidUtf8).with_cmd(cmd))?;
        let items = text
            .split(',')
            .map(|item| self.0.parse_ref(cmd, arg, OsStr::new(item)));
        Ok(items.collect::<Result<Vec<_>, _>>()?.into())
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        self.0.possible_values()
    }
}

/// `--engine`'s values (the page's server's too); `null`, which does no I/O, is for testing
/// destbench itself and not offered.
pub fn engine() -> impl TypedValueParser<Value = EngineChoice> {
    let values = [
        PossibleValue::new("auto"),
        PossibleValue::new("sync"),
        PossibleValue::new("uring"),
        PossibleValue::new("null").hide(true),
    ];
    clap::builder::PossibleValuesParser::new(values).map(|name| match name.as_str() {
        "sync" => EngineChoice::Sync,
        "uring" => EngineChoice::Uring,
        "null" => EngineChoice::Null(NullTiming::default()),
        _ => EngineChoice::Auto,
    })
}

/// A count that must be 1 or more: a negative one says so rather than "unexpected argument".
pub fn positive(s: &str) -> std::result::Result<usize, String> {
    positive_u64(s).and_then(|n| usize::try_from(n).map_err(|e| e.to_string()))
}

pub fn positive_u64(s: &str) -> std::result::Result<u64, String> {
    match s.trim().parse::<i128>() {
        Ok(n) if n > 0 => u64::try_from(n).map_err(|_| format!("{n} is too large")),
        Ok(_) => Err("must be positive".into()),
        Err(_) => Err(format!("`{s}` is not a whole number")),
    }
}

/// `--tests`: parsed by [`TestSelector`]'s `FromStr`; its possible values (the test ids) are
/// what shell completions offer.
#[derive(Clone)]
pub struct TestSelectorParser;

impl TypedValueParser for TestSelectorParser {
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
            // clap names the flag being parsed; only a caller of its own would not.
            let name = arg.map(|a| a.to_string()).unwrap_or_default();
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
pub fn tests_short_help() -> String {
    format!(
        "Tests to run, comma-separated ({}); one variant as test:variant (seq-read:SEQ1M-Q8T1)",
        names(TestId::ALL)
    )
}

/// `--help`: every test with what it does, the profiles that run it (`flag`: the tests not in
/// one are run only with it), and its variants.
pub fn tests_help(flag: &impl std::fmt::Display) -> String {
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
                format!("only with {flag}")
            } else {
                names(profiles)
            },
        );
    }
    out
}

pub fn profiles_short_help() -> String {
    format!(
        "How long and how often ({}; default backup), or a profile of the config file \
         ($XDG_CONFIG_HOME/destbench/config.toml)",
        names(ProfileName::ALL)
    )
}

/// `--help`: each profile with what it runs, from its definition.
pub fn profiles_help() -> String {
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

pub fn sets_short_help() -> String {
    format!(
        "Generated file sets to use, comma-separated ({})",
        names(SetKind::ALL)
    )
}

/// `--help`: each set with the sizes of its files.
pub fn sets_help() -> String {
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
