//! Every setting of `destbench run`, declared once: its flag, its config file key, its help and
//! its default in each profile (read from `workload::Profile`, never typed again). The command
//! line (`cli::RunArgs`) takes its flags' names and help from here, the config file its keys,
//! and every error names a flag through its declaration (`{RUNS}` is `--runs`), so renaming a
//! flag here renames it everywhere. The other commands' flags that messages name are declared
//! here too, by name only (`TOOL`, `DB`).

use std::fmt;
use std::path::PathBuf;

use clap::builder::TypedValueParser;

use super::Given;
use super::flags::{
    List, TestSelectorParser, engine, given, positive, positive_u64, sets_help, sets_short_help,
    tests_help, tests_short_help,
};
use crate::engine::EngineChoice;
use crate::units::{ByteSize, format_bytes, format_size};
use crate::workload::{Profile, ProfileName, SetKind, TestSelector};

/// One setting of `destbench run`.
#[derive(Debug)]
pub struct Setting {
    /// The flag's long name, without the dashes (what `Arg::long` takes).
    pub long: &'static str,
    /// The config file's key, when the file can set it (in `[defaults]` and profiles).
    pub key: Option<&'static str>,
    /// What it does, for `--help`; the profile's defaults follow it.
    pub about: &'static str,
    /// Its default in a profile, in the help's words; None when no profile sets it.
    pub default: Option<fn(&Profile) -> String>,
}

impl Setting {
    /// The help: what it does, then each profile's default, `[default: quick 0.25, ...]`.
    pub fn help(&self) -> String {
        match self.default {
            None => self.about.to_string(),
            Some(default) => {
                let each: Vec<String> = ProfileName::ALL
                    .into_iter()
                    .map(|name| format!("{name} {}", default(&Profile::get(name))))
                    .collect();
                format!("{} [default: {}]", self.about, each.join(", "))
            }
        }
    }

    /// The config file's key; only for a setting the file can set.
    pub fn key(&self) -> &'static str {
        self.key.unwrap_or(self.long)
    }
}

/// The flag as typed: `--runs`.
impl fmt::Display for Setting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "--{}", self.long)
    }
}

const fn flag(long: &'static str, about: &'static str) -> Setting {
    Setting {
        long,
        key: None,
        about,
        default: None,
    }
}

/// A setting the config file can set too, under `key`.
const fn keyed(long: &'static str, key: &'static str, about: &'static str) -> Setting {
    Setting {
        long,
        key: Some(key),
        about,
        default: None,
    }
}

const fn with_default(setting: Setting, default: fn(&Profile) -> String) -> Setting {
    Setting {
        default: Some(default),
        ..setting
    }
}

fn seconds(d: std::time::Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

fn list<T: fmt::Display>(items: impl IntoIterator<Item = T>, sep: &str) -> String {
    items
        .into_iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(sep)
}

// The profile, the tests and the sets have help of their own (lists from `workload`'s tables).
pub const PROFILE: Setting = keyed("profile", "profile", "");
pub const TESTS: Setting = keyed("tests", "tests", "");
pub const SETS: Setting = keyed("sets", "sets", "");

pub const SIZE: Setting = with_default(
    keyed(
        "size",
        "size",
        "Size of the block tests' file, and the most the sustained test writes (4k, 50MB, 1GiB: \
         k/M/G binary, kB/MB/GB decimal)",
    ),
    |p| format_bytes(p.file_size),
);

pub const BAND_SIZE: Setting = keyed(
    "band-size",
    "band_size",
    "tm-backup's band size (8M to 8G, whole 4 KiB blocks; default: as Time Machine chooses for \
     the destination's size, its size / 4096)",
);

pub const RUNS: Setting = with_default(
    keyed(
        "runs",
        "runs",
        "Exactly this many repetitions of every test (default: each repeats until its median is \
         known to the profile's precision or its share of the profile's time budget runs out, \
         between its least and most runs; see docs/methods.md)",
    ),
    |p| {
        format!(
            "{}-{} runs to ±{}% in about {} s",
            p.min_runs,
            p.max_runs,
            p.precision * 100.0,
            p.budget.as_secs()
        )
    },
);

pub const DURATION: Setting = with_default(
    keyed(
        "duration",
        "duration",
        "Seconds each block-test repetition runs, exactly (default: until its rate is steady, at \
         least --min-time and at most the profile's duration)",
    ),
    |p| seconds(p.block_duration),
);

pub const MIN_TIME: Setting = with_default(
    keyed(
        "min-time",
        "min_time",
        "The least every repetition lasts, in seconds: a file-set repetition goes over its set \
         again, each time in a fresh directory, until it does; one that cannot within the budget \
         is marked short-sample. 0: no minimum",
    ),
    |p| seconds(p.min_time),
);

pub const TIME: Setting = with_default(
    flag(
        "time",
        "The longest the sustained test writes, in seconds (it stops earlier once the rate is \
         steady, or at --size / the free space)",
    ),
    |p| seconds(p.sustained_time),
);

pub const THREADS: Setting = with_default(
    keyed(
        "threads",
        "threads",
        "Copy-thread counts of the file-set tests, comma-separated",
    ),
    |p| list(p.threads, ","),
);

pub const SET_SIZE: Setting = with_default(
    keyed(
        "set-size",
        "set_size",
        "Total size of each generated file set",
    ),
    |p| {
        let sets = p
            .sets
            .iter()
            .map(|&(k, b)| format!("{k} {}", format_size(b)));
        format!("({})", list(sets, ", "))
    },
);

pub const FILES: Setting = keyed(
    "files",
    "files",
    "At most this many files in each generated set",
);

pub const SOURCE: Setting = flag(
    "source",
    "Use this folder as the file set instead of generated ones (read-only: nothing in it is ever \
     written, renamed or deleted)",
);

pub const DATA: Setting = flag(
    "data",
    "What you back up, for the answer's time: this folder's size from a survey of its names and \
     sizes, and how fast it reads from a sample of its files read cold (nothing in it is \
     written), instead of the home volume's",
);

pub const VERIFY: Setting = with_default(
    flag(
        "verify",
        "Verify restored files against the source with blake3",
    ),
    |p| if p.verify { "on" } else { "off" }.to_string(),
);

pub const BUFFERED: Setting = flag(
    "buffered",
    "Never use O_DIRECT: buffered I/O with fdatasync and verified eviction",
);

pub const NO_DROP_CACHES: Setting = flag("no-drop-caches", "");

pub const NO_SPACE_CHECK: Setting = flag("no-space-check", "");

pub const OUTPUT: Setting = flag(
    "output",
    "Write the report (the table, or the JSON with -j) to FILE instead of stdout (80 columns \
     wide, no colour)",
);

pub const STONEWALL: Setting = flag(
    "stonewall",
    "Under MPI (`mpirun -n N`, feature `mpi`): all clients stop when the first finishes its \
     work, and what each had done by then is counted (block tests)",
);

pub const CLIENTS: Setting = flag(
    "clients",
    "Under MPI: run the tests with the first k ranks, for each k given (1,2,4,8), and report the \
     aggregate and per-client rates against the number of clients",
);

// Flags whose help is with their clap field (`cli/`), declared here for their name only: the
// messages that name them (`{ENGINE} uring: ...`) and the page's argv take it from here.
pub const ENGINE: Setting = flag("engine", "");
pub const LINK_SPEED: Setting = flag("link-speed", "");
pub const SOURCE_DIR: Setting = flag("source-dir", "");
pub const TIME_MACHINE: Setting = flag("time-machine", "");
pub const WIDE: Setting = flag("wide", "");
/// The history database, for every command that reads or writes it.
pub const DB: Setting = flag("db", "");
/// `destbench estimate`'s destinations, stored runs and copying tool.
pub const TO: Setting = flag("to", "");
pub const RUN: Setting = flag("run", "");
pub const TOOL: Setting = flag("tool", "");
/// A backup program's setup, its time limit and the share of files a second backup finds changed.
pub const SETUP: Setting = flag("setup", "");
pub const TOOL_TIMEOUT: Setting = flag("tool-timeout", "");
pub const CHANGED: Setting = flag("changed", "");
pub const MEASURE_SOURCE: Setting = flag("measure-source", "");
/// Programs started on a destination (rsync, a backup tool) run there even where the system
/// cannot confine them to the scratch and others can write along its path.
pub const UNCONFINED_PROGRAMS: Setting = flag(
    "unconfined-programs",
    "Run rsync and the other programs a run starts on the destination even where this system \
     cannot confine them to the scratch (no Landlock, no sandbox) and others can write along its \
     path; by default they are left out there, with the reason",
);

// What a run is asked: each setting's field, its flag the clap attribute on it (its name and
// help from the declaration above), its config key the field's name (or the file's table).

/// Every field a choice, `None` or empty for the profile's default. The command line writes
/// straight into it (`cli::RunArgs` flattens it: each field below is its flag), the config file
/// fills what the flags left unset, and library callers build it. The values a config file can
/// also set are [`Given`], so that an error names where they came from.
#[derive(Debug, Clone, clap::Args)]
pub struct RunOptions {
    /// The destination (`run`'s PATH, or Time Machine's).
    #[arg(skip = PathBuf::from("."))]
    pub destination: PathBuf,
    /// Resolved from `--profile` and the config file by [`with_config`](Self::with_config).
    #[arg(skip)]
    pub profile: ProfileName,
    // `None` for the profile's tests.
    #[arg(short, long = TESTS.long, value_parser = List(TestSelectorParser),
          hide_possible_values = true, help = tests_short_help(), long_help = tests_help(&TESTS))]
    pub tests: Option<Given<Vec<TestSelector>>>,
    // The block tests' file, and the sustained test's cap.
    #[arg(long = SIZE.long, help = SIZE.help(), value_parser = given::<ByteSize>)]
    pub size: Option<Given<ByteSize>>,
    // tm-backup's band size; `None` for the one Time Machine would choose.
    #[arg(long = BAND_SIZE.long, help = BAND_SIZE.help(),
          value_parser = given::<ByteSize>)]
    pub band_size: Option<Given<ByteSize>>,
    #[arg(short, long = RUNS.long, help = RUNS.help(), allow_negative_numbers = true,
          value_parser = positive.map(Given::from))]
    pub runs: Option<Given<usize>>,
    // Seconds.
    #[arg(long = DURATION.long, help = DURATION.help(), allow_negative_numbers = true,
          value_name = "DURATION", value_parser = given::<f64>)]
    pub block_duration: Option<Given<f64>>,
    // Seconds.
    #[arg(long = MIN_TIME.long, help = MIN_TIME.help(), allow_negative_numbers = true,
          value_parser = given::<f64>)]
    pub min_time: Option<Given<f64>>,
    // Seconds.
    #[arg(long = TIME.long, help = TIME.help(), allow_negative_numbers = true,
          value_name = "TIME", value_parser = given::<f64>)]
    pub sustained_time: Option<Given<f64>>,
    /// I/O engine of the block tests: auto (sync at queue depth 1, io_uring above), sync, uring
    /// (the file-set and metadata tests use system calls under each).
    #[arg(long = ENGINE.long, value_parser = engine(), default_value = "auto")]
    pub engine: EngineChoice,
    /// A label stored with the results.
    #[arg(long)]
    pub label: Option<String>,
    #[arg(long = BUFFERED.long, help = BUFFERED.help())]
    pub force_buffered: bool,
    /// Never drop the machine's page cache, even as root when per-file eviction fails.
    #[arg(long = NO_DROP_CACHES.long, action = clap::ArgAction::SetFalse)]
    pub allow_drop_caches: bool,
    #[arg(long = UNCONFINED_PROGRAMS.long, help = UNCONFINED_PROGRAMS.help())]
    pub unconfined_programs: bool,
    // `None` for the profile's.
    #[arg(long = THREADS.long, help = THREADS.help(), allow_negative_numbers = true,
          value_parser = List(positive))]
    pub threads: Option<Given<Vec<usize>>>,
    // `None` for the profile's.
    #[arg(long = SETS.long, help = sets_short_help(), long_help = sets_help(),
          value_parser = List(|s: &str| s.parse::<SetKind>()))]
    pub sets: Option<Given<Vec<SetKind>>>,
    #[arg(long = SET_SIZE.long, help = SET_SIZE.help(),
          value_parser = given::<ByteSize>)]
    pub set_size: Option<Given<ByteSize>>,
    #[arg(long = FILES.long, help = FILES.help(), allow_negative_numbers = true,
          value_parser = positive_u64.map(Given::from))]
    pub files: Option<Given<u64>>,
    #[arg(long = SOURCE.long, help = SOURCE.help())]
    pub source: Option<PathBuf>,
    /// Let --source enter directories on other filesystems (mount points); by default they are
    /// skipped and counted, as `find -xdev` does.
    #[arg(long)]
    pub cross_filesystems: bool,
    /// Where generated file sets are made (default: the system's temp directory; choose a fast
    /// local disk).
    #[arg(long = SOURCE_DIR.long)]
    pub source_dir: Option<PathBuf>,
    // Both at once is a contradiction, refused rather than settled by their order.
    #[arg(long = VERIFY.long, help = VERIFY.help(), conflicts_with = "no_verify")]
    pub verify: bool,
    /// Do not verify restored files.
    #[arg(long)]
    pub no_verify: bool,
    /// Skip the free-space check (for filesystems that misreport free space); a destination
    /// that fills up still fails the test that hit it, cleanly.
    #[arg(long = NO_SPACE_CHECK.long, action = clap::ArgAction::SetFalse)]
    pub check_space: bool,
    /// Seed for the random data and offsets (default: random; recorded in the results).
    #[arg(long)]
    pub seed: Option<u64>,
}

/// The defaults of `destbench run .`: the backup profile, everything else from it.
impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            destination: PathBuf::from("."),
            profile: ProfileName::default(),
            tests: None,
            size: None,
            runs: None,
            block_duration: None,
            sustained_time: None,
            min_time: None,
            engine: EngineChoice::default(),
            label: None,
            force_buffered: false,
            allow_drop_caches: true,
            unconfined_programs: false,
            check_space: true,
            threads: None,
            sets: None,
            set_size: None,
            files: None,
            source: None,
            cross_filesystems: false,
            source_dir: None,
            verify: false,
            no_verify: false,
            seed: None,
            band_size: None,
        }
    }
}

/// The settings the config file can set, each under its key.
#[cfg(test)]
pub const KEYED: [&Setting; 11] = [
    &TESTS, &SETS, &SIZE, &BAND_SIZE, &RUNS, &DURATION, &MIN_TIME, &THREADS, &SET_SIZE, &FILES,
    &PROFILE,
];

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::settings::ConfigFile;

    /// The config file's keys are the declared ones, no more and no fewer: its parser lists
    /// what it accepts when given a key it does not.
    #[test]
    fn the_config_files_keys_are_the_declared_ones() {
        let text = "[defaults]\nno_such_key = 1\n".to_string();
        let e = ConfigFile::parse(PathBuf::from("c.toml"), text)
            .unwrap_err()
            .to_string();
        let (_, accepted) = e.split_once("expected one of").expect(&e);
        let accepted: Vec<&str> = accepted.split('`').skip(1).step_by(2).collect();
        let declared: Vec<&str> = KEYED.iter().map(|s| s.key()).collect();
        for key in &declared {
            assert!(
                accepted.contains(key),
                "{key} is declared but not read: {e}"
            );
        }
        // `base` names a profile's parent: a key of the file's own, with no flag.
        for key in accepted.iter().filter(|&&k| k != "base") {
            assert!(declared.contains(key), "{key} is read but not declared");
        }
    }

    #[test]
    fn a_setting_is_named_as_typed() {
        assert_eq!(MIN_TIME.to_string(), "--min-time");
        assert_eq!(MIN_TIME.key(), "min_time");
    }
}
