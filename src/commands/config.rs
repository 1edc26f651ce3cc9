//! The config file, `$XDG_CONFIG_HOME/destbench/config.toml` (else
//! `~/.config/destbench/config.toml`; `DESTBENCH_CONFIG` names another): defaults for
//! `destbench run` and profiles of the user's own, each built on a profile of destbench's.
//! The command line wins over the file, the file over the profile. Validated whole before a
//! run: an unknown key or a bad value is one line naming the file, the key and the problem.
//!
//! ```toml
//! [defaults]
//! profile = "nightly"
//! runs = 5
//!
//! [profiles.nightly]
//! base = "full"          # quick, backup (the default) or full
//! tests = ["seq-write", "files-copy"]
//! size = "4GiB"
//! set_size = "200MB"
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::units::ByteSize;
use crate::workload::{ProfileName, SetKind, TestSelector};

/// Names a config file other than the default (an empty value: none at all).
pub const CONFIG_ENV: &str = "DESTBENCH_CONFIG";

/// What a `[defaults]` table or a `[profiles.NAME]` table may set, as written.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// `[defaults]` only: the profile of a run that names none.
    pub profile: Option<String>,
    /// `[profiles.NAME]` only: the profile of destbench's it starts from (default backup).
    pub base: Option<String>,
    pub tests: Option<Vec<String>>,
    pub runs: Option<usize>,
    pub size: Option<String>,
    pub duration: Option<f64>,
    pub min_time: Option<f64>,
    pub set_size: Option<String>,
    pub files: Option<u64>,
    pub threads: Option<Vec<usize>>,
    pub sets: Option<Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    defaults: Settings,
    #[serde(default)]
    profiles: BTreeMap<String, Settings>,
}

/// The settings a run takes from the file, parsed and checked.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Overrides {
    pub base: Option<ProfileName>,
    pub tests: Option<Vec<TestSelector>>,
    pub runs: Option<usize>,
    pub size: Option<ByteSize>,
    pub duration: Option<f64>,
    pub min_time: Option<f64>,
    pub set_size: Option<ByteSize>,
    pub files: Option<u64>,
    pub threads: Option<Vec<usize>>,
    pub sets: Option<Vec<SetKind>>,
}

/// The loaded file: where it is, and its tables.
pub struct Config {
    path: PathBuf,
    file: File,
}

/// The config file's path: `DESTBENCH_CONFIG`, else the XDG config directory.
pub fn path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(CONFIG_ENV) {
        return (!p.is_empty()).then(|| PathBuf::from(p));
    }
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".config")))?;
    Some(base.join("destbench/config.toml"))
}

impl Config {
    /// The config file, or none when there is no file (not an error: it is optional).
    pub fn load() -> Result<Option<Config>> {
        let Some(path) = path() else { return Ok(None) };
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(format!("reading {}", path.display()), e)),
        };
        Config::parse(path, &text).map(Some)
    }

    fn parse(path: PathBuf, text: &str) -> Result<Config> {
        let file: File = toml::from_str(text).map_err(|e| {
            // toml's own message spans lines (it quotes the file); one line instead, with the
            // line number and the key written on it.
            let at = e.span().map(|s| {
                let line = text[..s.start.min(text.len())].lines().count().max(1);
                let line = if text[..s.start.min(text.len())].ends_with('\n') {
                    line + 1
                } else {
                    line
                };
                let key = text
                    .lines()
                    .nth(line - 1)
                    .and_then(|l| l.split_once('='))
                    .map(|(k, _)| format!(", key {}", k.trim()))
                    .unwrap_or_default();
                format!(" (line {line}{key})")
            });
            let message = e.message().split_whitespace().collect::<Vec<_>>().join(" ");
            bad(&path, &format!("{message}{}", at.unwrap_or_default()))
        })?;
        let config = Config { path, file };
        // Every table checked now, so that a mistake in a profile not used today still shows.
        config.check(&config.file.defaults, "defaults")?;
        for (name, p) in &config.file.profiles {
            if ProfileName::from_str(name).is_ok() {
                return Err(bad(
                    &config.path,
                    &format!(
                        "[profiles.{name}]: {name} is a profile of destbench's; choose another name"
                    ),
                ));
            }
            config.check(p, &format!("profiles.{name}"))?;
        }
        Ok(config)
    }

    fn check(&self, s: &Settings, table: &str) -> Result<Overrides> {
        let in_profile = table.starts_with("profiles.");
        if in_profile && s.profile.is_some() {
            return Err(self.key_error(
                table,
                "profile",
                "only [defaults] names a profile; use base",
            ));
        }
        if !in_profile && s.base.is_some() {
            return Err(self.key_error(table, "base", "only a [profiles.NAME] table has a base"));
        }
        if let Some(p) = &s.profile
            && ProfileName::from_str(p).is_err()
            && !self.file.profiles.contains_key(p)
        {
            return Err(self.key_error(table, "profile", &format!("no profile named '{p}'")));
        }
        let size = |key: &str, v: &Option<String>| -> Result<Option<ByteSize>> {
            v.as_deref()
                .map(str::parse::<ByteSize>)
                .transpose()
                .map_err(|e| self.key_error(table, key, &e.to_string()))
        };
        let positive = |key: &str, v: Option<f64>| -> Result<Option<f64>> {
            match v {
                Some(x) if !(x >= 0.0 && x.is_finite()) => {
                    Err(self.key_error(table, key, &format!("{x}: must be positive")))
                }
                _ => Ok(v),
            }
        };
        if s.runs == Some(0)
            || s.files == Some(0)
            || s.threads.as_ref().is_some_and(|t| t.contains(&0))
        {
            let key = if s.runs == Some(0) {
                "runs"
            } else if s.files == Some(0) {
                "files"
            } else {
                "threads"
            };
            return Err(self.key_error(table, key, "must be positive"));
        }
        Ok(Overrides {
            base: s
                .base
                .as_deref()
                .map(ProfileName::from_str)
                .transpose()
                .map_err(|e| self.key_error(table, "base", &e))?,
            tests: parse_all(&s.tests).map_err(|e| self.key_error(table, "tests", &e))?,
            runs: s.runs,
            size: size("size", &s.size)?,
            duration: positive("duration", s.duration)?,
            min_time: positive("min_time", s.min_time)?,
            set_size: size("set_size", &s.set_size)?,
            files: s.files,
            threads: s.threads.clone(),
            sets: parse_all(&s.sets).map_err(|e| self.key_error(table, "sets", &e))?,
        })
    }

    fn key_error(&self, table: &str, key: &str, problem: &str) -> Error {
        bad(&self.path, &format!("[{table}] {key}: {problem}"))
    }

    /// The profile a run uses when the command line names none.
    pub fn default_profile(&self) -> Option<&str> {
        self.file.defaults.profile.as_deref()
    }

    /// `[defaults]`, parsed.
    pub fn defaults(&self) -> Result<Overrides> {
        self.check(&self.file.defaults, "defaults")
    }

    /// `[profiles.NAME]`, parsed; None when the file has no such profile.
    pub fn profile(&self, name: &str) -> Result<Option<Overrides>> {
        self.file
            .profiles
            .get(name)
            .map(|p| self.check(p, &format!("profiles.{name}")))
            .transpose()
    }

    /// The names of the user's profiles, for an error about an unknown one.
    pub fn profile_names(&self) -> Vec<&str> {
        self.file.profiles.keys().map(String::as_str).collect()
    }
}

/// Each of `items` parsed; the first that does not parse is the error.
fn parse_all<T: FromStr<Err = String>>(
    items: &Option<Vec<String>>,
) -> std::result::Result<Option<Vec<T>>, String> {
    items
        .as_ref()
        .map(|v| v.iter().map(|s| s.parse()).collect())
        .transpose()
}

fn bad(path: &Path, problem: &str) -> Error {
    Error::Usage(format!("config {}: {problem}", path.display()))
}

impl Overrides {
    /// `self` where it sets a value, else `under`.
    pub fn over(self, under: Overrides) -> Overrides {
        Overrides {
            base: self.base.or(under.base),
            tests: self.tests.or(under.tests),
            runs: self.runs.or(under.runs),
            size: self.size.or(under.size),
            duration: self.duration.or(under.duration),
            min_time: self.min_time.or(under.min_time),
            set_size: self.set_size.or(under.set_size),
            files: self.files.or(under.files),
            threads: self.threads.or(under.threads),
            sets: self.sets.or(under.sets),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config> {
        Config::parse(PathBuf::from("/c.toml"), text)
    }

    fn error(text: &str) -> String {
        match parse(text) {
            Ok(_) => panic!("accepted: {text}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn a_profile_of_ones_own() {
        let c = parse(
            "[defaults]\nprofile = \"nightly\"\nruns = 4\n\n[profiles.nightly]\nbase = \"full\"\ntests = [\"seq-write\", \"files-copy\"]\nsize = \"1GiB\"\n",
        )
        .unwrap();
        assert_eq!(c.default_profile(), Some("nightly"));
        let p = c.profile("nightly").unwrap().unwrap();
        assert_eq!(p.base, Some(ProfileName::Full));
        assert_eq!(p.size, Some(ByteSize(1 << 30)));
        assert_eq!(p.tests.as_ref().map(Vec::len), Some(2));
        let merged = p.over(c.defaults().unwrap());
        assert_eq!(merged.runs, Some(4));
        assert!(c.profile("other").unwrap().is_none());
    }

    #[test]
    fn mistakes_are_one_line_naming_file_key_and_problem() {
        for (text, needles) in [
            (
                "[defaults]\nrunz = 3\n",
                &["/c.toml", "unknown field `runz`", "line 2", "key runz"][..],
            ),
            (
                "[defaults]\nruns = \"many\"\n",
                &["line 2", "key runs", "invalid type"],
            ),
            (
                "[defaults]\nruns = 0\n",
                &["[defaults] runs: must be positive"],
            ),
            (
                "[defaults]\nduration = -1.0\n",
                &["[defaults] duration: -1: must be positive"],
            ),
            (
                "[defaults]\nsize = \"lots\"\n",
                &["[defaults] size:", "'lots' is not a size"],
            ),
            (
                "[defaults]\nprofile = \"slow\"\n",
                &["[defaults] profile: no profile named 'slow'"],
            ),
            (
                "[profiles.n]\ntests = [\"seq-sideways\"]\n",
                &["[profiles.n] tests:", "unknown test"],
            ),
            ("[profiles.n]\nbase = \"fast\"\n", &["[profiles.n] base:"]),
            (
                "[profiles.quick]\nruns = 2\n",
                &["quick is a profile of destbench's"],
            ),
            ("[defaults\n", &["/c.toml", "line 1"]),
        ] {
            let e = error(text);
            assert_eq!(e.lines().count(), 1, "{e}");
            for n in needles {
                assert!(e.contains(n), "'{n}' not in: {e}");
            }
        }
    }
}
