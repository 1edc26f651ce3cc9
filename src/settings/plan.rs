//! [`RunOptions`] to [`RunPlan`]: each setting checked once, by one function that also fills its
//! default from the profile; an error names the value's origin (the flag, or the config file's
//! line).

use std::path::PathBuf;
use std::time::Duration;

use super::defs::{
    BAND_SIZE, DURATION, FILES, MIN_TIME, RUNS, SET_SIZE, SETS, SIZE, SOURCE, Setting, TESTS,
    THREADS, TIME,
};
use super::{
    Adaptive, Given, MAX_DURATION_S, MAX_RUNS, MAX_SUSTAINED_S, MAX_THREADS, MIN_FILE_SIZE, Origin,
    Repeats, RunOptions, SetSpec, Sizing, suite_options,
};
use crate::engine::EngineChoice;
use crate::error::{Error, Result};
use crate::units::format_bytes;
use crate::workload::{self, Profile, SetName, SuiteOptions, TestId, Variant};

/// Everything a run needs, validated (from [`RunOptions::plan`]); the runner reads it.
#[derive(Debug, Clone)]
pub struct RunPlan {
    pub destination: PathBuf,
    pub profile: Profile,
    pub variants: Vec<Variant>,
    /// How many repetitions each variant gets.
    pub repeats: Repeats,
    /// Size of the block tests' file (a multiple of 1 MiB).
    pub file_size: u64,
    /// How long a block-test repetition runs: exactly, with `--duration`; else at most, as it
    /// stops once its rate is steady and `min_time` has passed.
    pub block_duration: Duration,
    /// Whether a block test stops once its rate is steady (no `--duration` given).
    pub block_until_steady: bool,
    /// The least every repetition should last (`--min-time`, else the profile's; zero: no
    /// minimum).
    pub min_time: Duration,
    pub engine: EngineChoice,
    /// Never use O_DIRECT (for checking the fallback path on filesystems that accept it).
    pub force_buffered: bool,
    /// May drop the machine's page cache (root only) when per-file eviction fails.
    pub allow_drop_caches: bool,
    /// Run rsync unconfined where the system cannot confine it (see `platform::confine`).
    pub unconfined_programs: bool,
    /// Refuse to start when the destination reports less free space than the run needs.
    pub check_space: bool,
    /// The file sets of the file-level tests.
    pub file_sets: Vec<SetSpec>,
    /// The user's folder to use as the file set (read-only).
    pub source: Option<PathBuf>,
    /// Whether walks of `source` enter other filesystems.
    pub cross_filesystems: bool,
    /// Where generated file sets are made.
    pub source_dir: PathBuf,
    /// Verify restored files against the source.
    pub verify: bool,
    pub seed: u64,
    pub label: Option<String>,
    /// The longest the sustained test writes (`--time`, else the profile's).
    pub sustained_time: Duration,
    /// The most the sustained test writes (`--size` when given, else the profile's); never more
    /// than the free space leaves.
    pub sustained_size: u64,
    /// tm-backup's band size (`--band-size`); `None` for the one Time Machine would choose for
    /// the destination's size.
    pub band_size: Option<u64>,
    /// Whether the variants are the profile's own (no `--tests`): only then may the run add
    /// the write that finds a cache ([`RunPlan::write_on_for`]).
    pub own_tests: bool,
    /// The destination is a share and the variants are the profile's own: those a share does
    /// not tell apart are left out ([`RunPlan::on_a_share`]).
    pub on_share: bool,
    /// The work fixed in bytes at the profile's sizes, or at a share of them for a slow
    /// destination ([`RunPlan::sized`]).
    pub sizing: Sizing,
}

impl RunPlan {
    /// The variants the profile runs on its own (its tests, file sets and thread counts): the
    /// work its time budget is for.
    pub fn profile_variants(&self) -> Vec<Variant> {
        let suite = suite_options(&self.profile, &[], &[], false, self.engine);
        let mut own =
            workload::select(workload::suite(&suite), &[], self.profile.tests).unwrap_or_default();
        own.retain(|v| !(self.on_share && workload::left_out_on_a_share(v)));
        own
    }

    /// The plan for a destination that is a network share (`share`): with the profile's own
    /// tests, the 4 KiB variants whose figures a share does not tell apart are left out
    /// ([`workload::left_out_on_a_share`]), and the budget is shared over the rest.
    pub fn on_a_share(mut self, share: bool) -> RunPlan {
        if share && self.own_tests {
            self.on_share = true;
            self.variants.retain(|v| !workload::left_out_on_a_share(v));
        }
        self
    }

    /// The bytes the run writes besides a sustained write: the block tests' file and the file
    /// sets (each copied a few times, but into the same cache's reach).
    pub fn writes_bytes(&self) -> u64 {
        self.file_size + self.file_sets.iter().map(|s| s.total_bytes).sum::<u64>()
    }

    /// Whether `variant` is the sustained write [`RunPlan::write_on_for`] added to the
    /// profile's own tests.
    pub fn writes_on(&self, variant: &Variant) -> bool {
        self.own_tests
            && variant.test == TestId::Sustained
            && !self.profile.tests.contains(&TestId::Sustained)
    }

    /// The plan for data of `data_bytes`: where the data is larger than what the run writes
    /// and the default profile's own tests run, the sustained write goes first, capped at the data's
    /// size, so a write cache the first backup would fill is found (docs/answer.md). Where the
    /// sustained test is already in the plan it keeps its place (first) and its cap.
    pub fn write_on_for(mut self, data_bytes: u64) -> RunPlan {
        let has = self.variants.iter().any(|v| v.test == TestId::Sustained);
        let default = self.profile.name == workload::ProfileName::Backup;
        if !self.own_tests || !default || has || data_bytes <= self.writes_bytes() {
            return self;
        }
        let sustained = workload::select(
            workload::suite(&suite_options(&self.profile, &[], &[], false, self.engine)),
            &[],
            &[TestId::Sustained],
        )
        .unwrap_or_default();
        self.variants.splice(0..0, sustained);
        self.sustained_size = self.sustained_size.min(data_bytes);
        self
    }
}

pub(super) fn run_plan(o: &RunOptions) -> Result<RunPlan> {
    let profile = Profile::get(o.profile);
    let runs = runs(o, &profile)?;
    let file_size = file_size(o, &profile)?;
    let durations = durations(o, &profile)?;
    check_file_sets(o)?;
    let suite = suite_options(
        &profile,
        list(&o.sets),
        list(&o.threads),
        o.source.is_some(),
        o.engine,
    );
    let variants = variants(o, &profile, &suite)?;
    Ok(RunPlan {
        destination: o.destination.clone(),
        variants,
        repeats: runs,
        file_size,
        block_duration: durations.block,
        block_until_steady: o.block_duration.is_none(),
        min_time: durations.min_time,
        engine: o.engine,
        force_buffered: o.force_buffered,
        allow_drop_caches: o.allow_drop_caches,
        unconfined_programs: o.unconfined_programs,
        check_space: o.check_space,
        file_sets: file_sets(o, &profile, &suite.sets, file_size),
        source: o.source.clone(),
        cross_filesystems: o.cross_filesystems,
        source_dir: o.source_dir.clone().unwrap_or_else(std::env::temp_dir),
        verify: match (o.verify, o.no_verify) {
            (_, true) => false,
            (true, _) => true,
            _ => profile.verify,
        },
        seed: o.seed.unwrap_or_else(|| fastrand::u64(..)),
        label: o.label.clone(),
        sustained_time: durations.sustained_time,
        sustained_size: o
            .size
            .as_ref()
            .map_or(profile.sustained_size, |s| s.value.0),
        band_size: band_size(o)?,
        own_tests: o.tests.is_none(),
        on_share: false,
        sizing: Sizing {
            divisor: 1,
            file_given: o.size.is_some(),
            sets_given: o.set_size.is_some(),
        },
        profile,
    })
}

/// A list setting's values; empty when not given (the profile's).
fn list<T>(given: &Option<Given<Vec<T>>>) -> &[T] {
    given.as_ref().map_or(&[], |g| &g.value)
}

/// Every value checked on its own, not how they combine: what each table of the config file
/// gets when it is read.
pub(super) fn check_values(o: &RunOptions) -> Result<()> {
    let profile = Profile::get(o.profile);
    runs(o, &profile)?;
    file_size(o, &profile)?;
    durations(o, &profile)?;
    band_size(o)?;
    check_file_sets(o)
}

fn runs(o: &RunOptions, profile: &Profile) -> Result<Repeats> {
    match &o.runs {
        Some(g) if g.value == 0 || g.value > MAX_RUNS => Err(g.refuse(
            format_args!("{RUNS} {}", g.value),
            format_args!("must be between 1 and {MAX_RUNS}"),
        )),
        Some(g) => Ok(Repeats::Exactly(g.value)),
        None => Ok(Repeats::UntilPrecise(Adaptive {
            min_runs: profile.min_runs,
            max_runs: profile.max_runs,
            precision: profile.precision,
        })),
    }
}

fn file_size(o: &RunOptions, profile: &Profile) -> Result<u64> {
    match &o.size {
        Some(g) if g.value.0 < MIN_FILE_SIZE => Err(g.refuse(
            format_args!("{SIZE} {}", g.value),
            format_args!(
                "the block tests need at least {}",
                format_bytes(MIN_FILE_SIZE)
            ),
        )),
        // Whole 1 MiB blocks, so every block size divides the file.
        Some(g) => Ok(g.value.0 / MIN_FILE_SIZE * MIN_FILE_SIZE),
        None => Ok(profile.file_size),
    }
}

/// `--band-size`: whole 4 KiB blocks (every band write is), within the sizes Time Machine has
/// used (8 MiB in the HFS+ era, 8 GiB on the largest shares).
fn band_size(o: &RunOptions) -> Result<Option<u64>> {
    use crate::workload::tm_pattern::{ALIGN, MAX_BAND, MIN_BAND};
    match &o.band_size {
        Some(g) if g.value.0 % ALIGN != 0 || !(MIN_BAND..=MAX_BAND).contains(&g.value.0) => Err(g
            .refuse(
                format_args!("{BAND_SIZE} {}", g.value),
                format_args!(
                    "must be whole 4 KiB blocks from {} to {}",
                    format_bytes(MIN_BAND),
                    format_bytes(MAX_BAND)
                ),
            )),
        Some(g) => Ok(Some(g.value.0)),
        None => Ok(None),
    }
}

struct Durations {
    block: Duration,
    min_time: Duration,
    sustained_time: Duration,
}

fn durations(o: &RunOptions, profile: &Profile) -> Result<Durations> {
    Ok(Durations {
        block: seconds(&o.block_duration, &DURATION, false, MAX_DURATION_S)?
            .unwrap_or(profile.block_duration),
        min_time: seconds(&o.min_time, &MIN_TIME, true, MAX_DURATION_S)?
            .unwrap_or(profile.min_time),
        sustained_time: seconds(&o.sustained_time, &TIME, false, MAX_SUSTAINED_S)?
            .unwrap_or(profile.sustained_time),
    })
}

/// A number of seconds up to `max`, from 0 when `zero_ok`, else from just above; `None` when not
/// given.
fn seconds(
    given: &Option<Given<f64>>,
    setting: &Setting,
    zero_ok: bool,
    max: f64,
) -> Result<Option<Duration>> {
    let Some(g) = given else { return Ok(None) };
    let s = g.value;
    if (s > 0.0 || (zero_ok && s == 0.0)) && s <= max {
        return Ok(Some(Duration::from_secs_f64(s)));
    }
    let problem = if zero_ok {
        format!("must be between 0 and {max} seconds")
    } else {
        format!("must be more than 0 and at most {max} seconds")
    };
    Err(g.refuse(format_args!("{setting} {s}"), problem))
}

/// The file sets' own settings: thread counts, files per set, set size, generated or `--source`.
fn check_file_sets(o: &RunOptions) -> Result<()> {
    if let Some(g) = &o.threads
        && let Some(&bad) = g.value.iter().find(|&&t| t == 0 || t > MAX_THREADS)
    {
        let problem = format!("must be between 1 and {MAX_THREADS}");
        return Err(g.refuse(format_args!("{THREADS} {bad}"), problem));
    }
    if let Some(g) = o.files.as_ref().filter(|g| g.value == 0) {
        return Err(g.refuse(
            format_args!("{FILES} 0"),
            "a file set needs at least one file",
        ));
    }
    if let Some(g) = o.set_size.as_ref().filter(|g| g.value.0 == 0) {
        return Err(g.refuse(
            format_args!("{SET_SIZE} 0"),
            "a file set needs at least one byte",
        ));
    }
    if let (Some(_), Some(g)) = (&o.source, &o.sets) {
        return Err(match g.origin {
            Origin::Flag => Error::Usage(format!("{SOURCE} and {SETS} exclude each other")),
            Origin::File { .. } => {
                g.refuse(SETS, format_args!("{SOURCE} excludes the file's sets"))
            }
        });
    }
    Ok(())
}

/// The variants `--tests` selects (the profile's tests when none) of the suite.
fn variants(o: &RunOptions, profile: &Profile, suite: &SuiteOptions) -> Result<Vec<Variant>> {
    let refuse = |problem: String| match &o.tests {
        Some(g) => g.refuse(TESTS, problem),
        None => Error::Usage(format!("{TESTS}: {problem}")),
    };
    let variants =
        workload::select(workload::suite(suite), list(&o.tests), profile.tests).map_err(refuse)?;
    if variants.is_empty() {
        return Err(refuse("selects no test".into()));
    }
    Ok(variants)
}

/// Each file set of the suite: its size from `--set-size` or the profile, its files capped by
/// `--files`, each file at most the block tests' file.
fn file_sets(o: &RunOptions, profile: &Profile, sets: &[SetName], size_cap: u64) -> Vec<SetSpec> {
    let profile_size = |kind| {
        profile
            .sets
            .iter()
            .find(|&&(k, _)| k == kind)
            .map_or(profile.sets[0].1, |&(_, bytes)| bytes)
    };
    let set_size = o.set_size.as_ref().map(|g| g.value.0);
    sets.iter()
        .map(|&name| SetSpec {
            name,
            total_bytes: match name {
                SetName::Generated(kind) => set_size.unwrap_or_else(|| profile_size(kind)),
                SetName::Source => 0,
            },
            max_files: o.files.as_ref().map_or(u64::MAX, |g| g.value),
            size_cap,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn refused(o: RunOptions) -> String {
        o.plan().unwrap_err().to_string()
    }

    /// A value of the command line is named by its flag as typed.
    #[test]
    fn a_flags_value_is_named_by_the_flag() {
        let e = refused(RunOptions {
            block_duration: Some(0.0.into()),
            ..RunOptions::default()
        });
        assert_eq!(
            e,
            "--duration 0: must be more than 0 and at most 3600 seconds"
        );
        let e = refused(RunOptions {
            threads: Some(vec![2, 65].into()),
            ..RunOptions::default()
        });
        assert_eq!(e, "--threads 65: must be between 1 and 64");
    }

    /// tm-backup's band size: whole 4 KiB blocks within Time Machine's sizes, or refused.
    #[test]
    fn a_band_size_is_checked() {
        use crate::units::ByteSize;
        let with = |bytes| RunOptions {
            band_size: Some(ByteSize(bytes).into()),
            ..RunOptions::default()
        };
        let e = refused(with(1 << 20));
        assert_eq!(
            e,
            "--band-size 1 MiB: must be whole 4 KiB blocks from 8 MiB to 8 GiB"
        );
        assert!(refused(with((64 << 20) + 512)).contains("whole 4 KiB blocks"));
        assert_eq!(with(64 << 20).plan().unwrap().band_size, Some(64 << 20));
        assert_eq!(RunOptions::default().plan().unwrap().band_size, None);
    }

    /// A value of the config file is named by the file, its line and the key as written there,
    /// never by a flag the user did not type.
    #[test]
    fn a_config_files_value_is_named_by_file_and_line() {
        let e = refused(RunOptions {
            block_duration: Some(Given {
                value: 0.0,
                origin: Origin::File {
                    path: PathBuf::from("destbench.toml"),
                    line: 3,
                    written: "duration = 0".into(),
                },
            }),
            ..RunOptions::default()
        });
        assert_eq!(
            e,
            "config destbench.toml:3: duration = 0: must be more than 0 and at most 3600 seconds"
        );
    }

    #[test]
    fn defaults_come_from_the_profile_and_sizes_round_to_whole_blocks() {
        let plan = RunOptions {
            size: Some(crate::units::ByteSize((3 << 20) + 5).into()),
            ..RunOptions::default()
        }
        .plan()
        .unwrap();
        let backup = Profile::get(workload::ProfileName::Backup);
        assert!(
            matches!(plan.repeats, Repeats::UntilPrecise(a) if a.min_runs == backup.min_runs)
                && plan.profile.budget == backup.budget
        );
        assert_eq!(plan.block_duration, backup.block_duration);
        assert!(plan.block_until_steady);
        assert_eq!(plan.file_size, 3 << 20);
        assert_eq!(plan.sustained_size, (3 << 20) + 5);
        assert!(plan.allow_drop_caches && plan.check_space && !plan.force_buffered);
    }

    /// Data larger than the run writes adds the sustained write, first, capped at the data's
    /// size, to the profile's own tests; not to tests the user chose, nor for data the run's
    /// writes already exceed.
    #[test]
    fn the_write_that_finds_a_cache_comes_first_for_data_larger_than_the_run_writes() {
        let plan = RunOptions::default().plan().unwrap();
        let writes = plan.writes_bytes();
        assert!(!plan.variants.iter().any(|v| v.test == TestId::Sustained));
        let small = plan.clone().write_on_for(writes);
        assert_eq!(small.variants, plan.variants);
        let large = plan.clone().write_on_for(5_000_000_000);
        assert_eq!(large.variants[0].test, TestId::Sustained);
        assert!(large.writes_on(&large.variants[0]));
        assert_eq!(large.variants[1..], plan.variants[..]);
        assert_eq!(large.sustained_size, 5_000_000_000);
        let huge = plan.clone().write_on_for(u64::MAX);
        assert_eq!(huge.sustained_size, plan.sustained_size);
        let chosen = RunOptions {
            tests: Some(vec!["seq-write".parse().unwrap()].into()),
            ..RunOptions::default()
        }
        .plan()
        .unwrap();
        assert_eq!(
            chosen.clone().write_on_for(u64::MAX).variants,
            chosen.variants
        );
    }

    /// On a share the profile's own tests leave out what `workload::left_out_on_a_share` names
    /// and take the whole budget; tests the user chose all run; a disk's plan is unchanged.
    #[test]
    fn a_shares_run_leaves_out_what_a_share_does_not_tell_apart() {
        let plan = RunOptions::default().plan().unwrap();
        assert_eq!(plan.clone().on_a_share(false).variants, plan.variants);
        let share = plan.clone().on_a_share(true);
        assert_eq!(share.variants.len(), plan.variants.len() - 3);
        assert_eq!(share.profile_variants(), share.variants);
        let tests = Some(vec!["4k-write".parse().unwrap()].into());
        let chosen = RunOptions {
            tests,
            ..RunOptions::default()
        }
        .plan()
        .unwrap();
        assert_eq!(chosen.clone().on_a_share(true).variants, chosen.variants);
    }
}
