//! Validated settings: turns the command line's shape into a [`RunPlan`], filling defaults and
//! rejecting what cannot be. No I/O here.

use std::path::PathBuf;
use std::time::Duration;

use crate::cli::{EngineArg, RunArgs};
use crate::engine::{EngineChoice, NullTiming};
use crate::error::{Error, Result};
use crate::runner::RunPlan;
use crate::units::format_bytes;
use crate::workload::{self, Profile};

/// The smallest block-test file: one 1 MiB block is the unit of the sequential tests.
pub const MIN_FILE_SIZE: u64 = 1 << 20;
pub const MAX_RUNS: usize = 1000;
pub const MAX_DURATION_S: f64 = 3600.0;

pub fn run_plan(args: &RunArgs) -> Result<RunPlan> {
    let profile = Profile::get(args.profile);
    let runs = args.runs.unwrap_or(profile.runs);
    if runs == 0 || runs > MAX_RUNS {
        return Err(Error::Usage(format!(
            "--runs {runs}: must be between 1 and {MAX_RUNS}"
        )));
    }
    let file_size = match args.size {
        Some(size) if size.0 < MIN_FILE_SIZE => {
            return Err(Error::Usage(format!(
                "--size {size}: the block tests need at least {}",
                format_bytes(MIN_FILE_SIZE)
            )));
        }
        // Whole 1 MiB blocks, so every block size divides the file.
        Some(size) => size.0 / MIN_FILE_SIZE * MIN_FILE_SIZE,
        None => profile.file_size,
    };
    let block_duration = match args.duration {
        Some(s) if !(s > 0.0 && s <= MAX_DURATION_S) => {
            return Err(Error::Usage(format!(
                "--duration {s}: must be more than 0 and at most {MAX_DURATION_S} seconds"
            )));
        }
        Some(s) => Duration::from_secs_f64(s),
        None => profile.block_duration,
    };
    let variants = workload::select(&args.tests, profile.tests);
    if variants.is_empty() {
        return Err(Error::Usage("--tests selects no test".into()));
    }
    let engine = match args.engine {
        EngineArg::Auto => EngineChoice::Auto,
        EngineArg::Sync => EngineChoice::Sync,
        EngineArg::Uring => EngineChoice::Uring,
        EngineArg::Null => EngineChoice::Null(NullTiming::default()),
    };
    let destination = args.path.clone().unwrap_or_else(|| PathBuf::from("."));
    Ok(RunPlan {
        destination,
        profile,
        variants,
        runs,
        file_size,
        block_duration,
        engine,
        engine_name: args.engine.name().to_string(),
        force_buffered: args.buffered,
        allow_drop_caches: !args.no_drop_caches,
        check_space: !args.no_space_check,
        seed: args.seed.unwrap_or_else(|| fastrand::u64(..)),
        label: args.label.clone(),
    })
}
