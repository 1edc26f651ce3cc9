//! The config file's text (`commands::config` finds and reads it) read straight into typed
//! values by the parsers the flags use, each kept with its line, so that a mistake is refused
//! while reading and names the file, the line and the key. `[defaults]` applies to every run,
//! `[profiles.NAME]` is a profile of the user's built on one of destbench's.

use std::collections::BTreeMap;
use std::fmt::Display;
use std::path::PathBuf;
use std::str::FromStr;

use serde::{Deserialize, Deserializer};
use toml::Spanned;

use super::defs::{
    BAND_SIZE, DURATION, FILES, MIN_TIME, PROFILE, RUNS, SET_SIZE, SETS, SIZE, Setting, TESTS,
    THREADS,
};
use super::{Given, Origin, RunOptions, plan};
use crate::error::{Error, Result};
use crate::units::ByteSize;
use crate::workload::{ProfileName, SetKind, TestSelector};

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Document {
    #[serde(default)]
    defaults: Table,
    /// Each name with its place, for an error about the name.
    #[serde(default)]
    profiles: BTreeMap<Spanned<String>, Table>,
}

/// What a `[defaults]` or a `[profiles.NAME]` table may set, typed, each value with its place.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table {
    /// `[defaults]` only: the profile of a run that names none (destbench's or the file's).
    profile: Option<Spanned<String>>,
    /// `[profiles.NAME]` only: the profile of destbench's it starts from (default backup).
    #[serde(default, deserialize_with = "parsed")]
    base: Option<Spanned<ProfileName>>,
    #[serde(default, deserialize_with = "parsed_list")]
    tests: Option<Spanned<Vec<TestSelector>>>,
    runs: Option<Spanned<usize>>,
    #[serde(default, deserialize_with = "parsed")]
    size: Option<Spanned<ByteSize>>,
    duration: Option<Spanned<f64>>,
    min_time: Option<Spanned<f64>>,
    #[serde(default, deserialize_with = "parsed")]
    set_size: Option<Spanned<ByteSize>>,
    files: Option<Spanned<u64>>,
    threads: Option<Spanned<Vec<usize>>>,
    #[serde(default, deserialize_with = "parsed_list")]
    sets: Option<Spanned<Vec<SetKind>>>,
    #[serde(default, deserialize_with = "parsed")]
    band_size: Option<Spanned<ByteSize>>,
}

/// A string parsed as the flag parses it (`FromStr`).
fn parsed<'de, D, T>(d: D) -> std::result::Result<Option<Spanned<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: FromStr<Err: Display>,
{
    let text = Spanned::<String>::deserialize(d)?;
    let span = text.span();
    match text.into_inner().parse() {
        Ok(value) => Ok(Some(Spanned::new(span, value))),
        Err(e) => Err(serde::de::Error::custom(e)),
    }
}

/// A list of strings, each parsed as the flag parses one of its comma-separated values.
fn parsed_list<'de, D, T>(d: D) -> std::result::Result<Option<Spanned<Vec<T>>>, D::Error>
where
    D: Deserializer<'de>,
    T: FromStr<Err: Display>,
{
    let items = Spanned::<Vec<String>>::deserialize(d)?;
    let span = items.span();
    let values = items.into_inner().iter().map(|s| s.parse()).collect();
    match values {
        Ok(values) => Ok(Some(Spanned::new(span, values))),
        Err(e) => Err(serde::de::Error::custom(e)),
    }
}

/// The config file, read and checked whole: a mistake in a profile not used today shows too.
#[derive(Debug)]
pub struct ConfigFile {
    path: PathBuf,
    text: String,
    defaults: Table,
    profiles: BTreeMap<Spanned<String>, Table>,
}

impl ConfigFile {
    /// Reads `text`, the content of the file at `path` (which only names it in errors).
    pub fn parse(path: PathBuf, text: String) -> Result<ConfigFile> {
        let document: Document = match toml::from_str(&text) {
            Ok(document) => document,
            Err(e) => return Err(toml_error(&path, &text, &e)),
        };
        let file = ConfigFile {
            path,
            text,
            defaults: document.defaults,
            profiles: document.profiles,
        };
        file.check(&file.defaults, false)?;
        for (name, table) in &file.profiles {
            if ProfileName::from_str(name.get_ref()).is_ok() {
                let line = line_of(&file.text, name.span().start);
                return Err(Error::Usage(format!(
                    "config {}:{line}: [profiles.{name}]: {name} is a profile of destbench's; \
                     choose another name",
                    file.path.display()
                )));
            }
            file.check(table, true)?;
        }
        Ok(file)
    }

    /// Which key goes in which table, the profile named, and each value as the plan checks it.
    fn check(&self, table: &Table, in_profile: bool) -> Result<()> {
        if let Some(p) = &table.profile {
            if in_profile {
                let problem = "only [defaults] names a profile; use base";
                return Err(self.key_error(PROFILE.key(), p, problem));
            }
            if ProfileName::from_str(p.get_ref()).is_err()
                && !self.profiles.contains_key(p.get_ref().as_str())
            {
                let problem = format!("no profile named '{}'", p.get_ref());
                return Err(self.key_error(PROFILE.key(), p, problem));
            }
        }
        if let (Some(base), false) = (&table.base, in_profile) {
            let problem = "only a [profiles.NAME] table has a base";
            return Err(self.key_error("base", base, problem));
        }
        let mut options = RunOptions::default();
        self.fill(table, &mut options);
        plan::check_values(&options)
    }

    /// The profile a run uses when the command line names none.
    pub fn default_profile(&self) -> Option<&str> {
        self.defaults.profile.as_ref().map(|p| p.get_ref().as_str())
    }

    /// The names of the user's profiles, for an error about an unknown one.
    pub fn profile_names(&self) -> Vec<&str> {
        self.profiles
            .keys()
            .map(|name| name.get_ref().as_str())
            .collect()
    }

    /// The user's profile `name`: the profile of destbench's it is built on, and its table.
    pub(super) fn profile(&self, name: &str) -> Option<(ProfileName, &Table)> {
        let table = self.profiles.get(name)?;
        let base = table.base.as_ref().map(|b| *b.get_ref());
        Some((base.unwrap_or(ProfileName::Backup), table))
    }

    pub(super) fn defaults(&self) -> &Table {
        &self.defaults
    }

    /// Sets in `options` what `table` sets and `options` does not yet.
    pub(super) fn fill(&self, table: &Table, options: &mut RunOptions) {
        fn under<T>(set: &mut Option<Given<T>>, from: Option<Given<T>>) {
            if set.is_none() {
                *set = from;
            }
        }
        under(&mut options.tests, self.value(&TESTS, &table.tests));
        under(&mut options.runs, self.value(&RUNS, &table.runs));
        under(&mut options.size, self.value(&SIZE, &table.size));
        under(
            &mut options.block_duration,
            self.value(&DURATION, &table.duration),
        );
        under(
            &mut options.min_time,
            self.value(&MIN_TIME, &table.min_time),
        );
        under(
            &mut options.set_size,
            self.value(&SET_SIZE, &table.set_size),
        );
        under(&mut options.files, self.value(&FILES, &table.files));
        under(&mut options.threads, self.value(&THREADS, &table.threads));
        under(&mut options.sets, self.value(&SETS, &table.sets));
        under(
            &mut options.band_size,
            self.value(&BAND_SIZE, &table.band_size),
        );
    }

    fn value<T: Clone>(&self, setting: &Setting, value: &Option<Spanned<T>>) -> Option<Given<T>> {
        value.as_ref().map(|v| self.given(setting.key(), v))
    }

    /// `value` of `key`, with its line and `key = value` as written.
    fn given<T: Clone>(&self, key: &str, value: &Spanned<T>) -> Given<T> {
        Given {
            value: value.get_ref().clone(),
            origin: self.origin(key, value),
        }
    }

    fn origin<T>(&self, key: &str, value: &Spanned<T>) -> Origin {
        let span = value.span();
        Origin::File {
            path: self.path.clone(),
            line: line_of(&self.text, span.start),
            // One line, even for an array written over several.
            written: format!("{key} = {}", one_line(&self.text[span])),
        }
    }

    /// A key in a table that does not take it, or naming what does not exist.
    fn key_error<T>(&self, key: &str, value: &Spanned<T>, problem: impl Display) -> Error {
        Error::Usage(format!("{}: {problem}", self.origin(key, value)))
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The line (from 1) holding byte `offset` of `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// toml's own message spans lines (it quotes the file): one line instead, `PATH:LINE:` and the
/// line's `key = value` when the error is about one.
fn toml_error(path: &std::path::Path, text: &str, e: &toml::de::Error) -> Error {
    let message = one_line(e.message());
    let Some(span) = e.span() else {
        return Error::Usage(format!("config {}: {message}", path.display()));
    };
    let line = line_of(text, span.start);
    let written = text
        .lines()
        .nth(line - 1)
        .filter(|l| l.contains('='))
        .map(|l| format!("{}: ", l.trim()))
        .unwrap_or_default();
    Error::Usage(format!(
        "config {}:{line}: {written}{message}",
        path.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ConfigFile> {
        ConfigFile::parse(PathBuf::from("/c.toml"), text.to_string())
    }

    fn error(text: &str) -> String {
        match parse(text) {
            Ok(_) => panic!("accepted: {text}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn a_profile_of_ones_own_under_the_flags_over_the_defaults() {
        let c = parse(
            "[defaults]\nprofile = \"nightly\"\nruns = 4\nfiles = 9\n\n[profiles.nightly]\nbase = \"full\"\ntests = [\"seq-write\", \"files-copy\"]\nsize = \"1GiB\"\nfiles = 7\n",
        )
        .unwrap();
        assert_eq!(c.default_profile(), Some("nightly"));
        assert!(c.profile("other").is_none());
        let flags = RunOptions {
            size: Some(ByteSize(2 << 30).into()),
            ..RunOptions::default()
        };
        let o = flags.with_config(None, Some(&c)).unwrap();
        assert_eq!(o.profile, ProfileName::Full);
        assert_eq!(o.size, Some(ByteSize(2 << 30).into()), "the flag wins");
        assert_eq!(o.tests.as_ref().map(|t| t.value.len()), Some(2));
        assert_eq!(
            o.files.map(|f| f.value),
            Some(7),
            "the profile's table wins"
        );
        let runs = o.runs.unwrap();
        assert_eq!(runs.value, 4, "[defaults] fills the rest");
        let line_3 = Origin::File {
            path: "/c.toml".into(),
            line: 3,
            written: "runs = 4".into(),
        };
        assert_eq!(runs.origin, line_3);
    }

    #[test]
    fn mistakes_are_one_line_naming_file_line_key_and_problem() {
        for (text, needles) in [
            (
                "[defaults]\nrunz = 3\n",
                &["config /c.toml:2: runz = 3: unknown field `runz`"][..],
            ),
            (
                "[defaults]\nruns = \"many\"\n",
                &["/c.toml:2: runs = \"many\": invalid type"],
            ),
            (
                "[defaults]\nruns = 0\n",
                &["/c.toml:2: runs = 0: must be between 1 and 1000"],
            ),
            (
                "[defaults]\n\nduration = 0\n",
                &["/c.toml:3: duration = 0: must be more than 0 and at most 3600 seconds"],
            ),
            (
                "[defaults]\nmin_time = -1.0\n",
                &["/c.toml:2: min_time = -1.0: must be between 0 and 3600 seconds"],
            ),
            (
                "[defaults]\nsize = \"lots\"\n",
                &["/c.toml:2: size = \"lots\": 'lots' is not a size"],
            ),
            (
                "[defaults]\nsize = \"4k\"\n",
                &["/c.toml:2: size = \"4k\": the block tests need at least 1 MiB"],
            ),
            (
                "[defaults]\nprofile = \"slow\"\n",
                &["/c.toml:2: profile = \"slow\": no profile named 'slow'"],
            ),
            (
                "[profiles.n]\nprofile = \"quick\"\n",
                &["/c.toml:2: profile = \"quick\": only [defaults] names a profile"],
            ),
            (
                "[profiles.n]\ntests = [\"seq-sideways\"]\n",
                &["/c.toml:2: tests = [\"seq-sideways\"]:", "unknown test"],
            ),
            (
                "[profiles.n]\nthreads = [1, 0]\n",
                &["/c.toml:2: threads = [1, 0]: must be between 1 and 64"],
            ),
            (
                "[profiles.n]\nbase = \"fast\"\n",
                &["/c.toml:2: base = \"fast\":"],
            ),
            (
                "[profiles.n]\nthreads = [\n  1,\n  99,\n]\n",
                &["/c.toml:2: threads = [ 1, 99, ]: must be between 1 and 64"],
            ),
            ("[defaults]\nfiles = -3\n", &["/c.toml:2: files = -3: "]),
            (
                "[profiles.quick]\nruns = 2\n",
                &["/c.toml:1: [profiles.quick]: quick is a profile of destbench's"],
            ),
            ("[defaults\n", &["config /c.toml:1: "]),
        ] {
            let e = error(text);
            assert_eq!(e.lines().count(), 1, "{e}");
            for n in needles {
                assert!(e.contains(n), "'{n}' not in: {e}");
            }
        }
    }

    /// A value the file gives is refused as the file wrote it, even where only the plan can tell
    /// (a variant the profile's suite does not have).
    #[test]
    fn the_plan_names_the_file_for_the_files_values() {
        let c = parse("[defaults]\ntests = [\"seq-read:SEQ9M\"]\n").unwrap();
        let o = RunOptions::default().with_config(None, Some(&c)).unwrap();
        let e = o.plan().unwrap_err().to_string();
        assert!(
            e.starts_with(
                "config /c.toml:2: tests = [\"seq-read:SEQ9M\"]: test 'seq-read' has no variant"
            ),
            "{e}"
        );
    }
}
