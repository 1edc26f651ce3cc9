//! `destbench estimate`: its flags.

use std::path::PathBuf;

use crate::settings::defs;
use crate::workload::Tool;

use super::DbArg;

#[derive(Debug, clap::Args)]
pub struct EstimateArgs {
    /// The folder to back up (only surveyed: names and sizes, never contents).
    pub source: PathBuf,

    /// Enter directories on other filesystems (mount points); by default they are skipped and
    /// counted, as `find -xdev` does.
    #[arg(long)]
    pub cross_filesystems: bool,

    /// Measure this destination now (five small calibration sets and a miniature of SOURCE,
    /// each copied twice with the tool; about 15-60 s on a 40 MB/s disk or a 100 Mbit/s share)
    /// and estimate for it; repeat for several.
    #[arg(long = defs::TO.long, value_name = "PATH")]
    pub to: Vec<PathBuf>,

    /// Another destination to measure and compare with (the same as another --to).
    #[arg(long, value_name = "PATH")]
    pub compare: Vec<PathBuf>,

    /// Estimate from a stored run's files-copy results (an id from `destbench history`, or
    /// latest); repeat for several.
    #[arg(long = defs::RUN.long, value_name = "ID", allow_negative_numbers = true)]
    pub runs: Vec<super::RunId>,

    /// The copy threads to estimate for: results of this many threads are used (default 1, as
    /// most backup tools copy one file at a time).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,

    /// The tool whose backup to estimate: cp (`cp -a`), rsync (`rsync -a`, what most backup
    /// tools run; the default with --to) or parallel:N (destbench's own copy on N threads; the
    /// only one stored runs can give, default parallel:THREADS with --run). --to calibrates
    /// it by copying the calibration sets with that very tool. timemachine: a first backup and
    /// an hourly incremental from a stored run's tm-backup result (--run only). A backup
    /// program, run on miniatures of SOURCE's own files into fresh repositories (--to only):
    /// restic, borg, rclone, rclone-sync, kopia, robocopy, or 'cmd:COMMAND' with {src} (the
    /// miniature), {repo} (a path in the destination's scratch, not yet made) and {n} (the
    /// backup's number), run without a shell.
    #[arg(long = defs::TOOL.long, value_name = "TOOL")]
    pub tool: Option<Tool>,

    /// Run untimed before each first backup of a cmd: tool (e.g. 'restic -r {repo} init'),
    /// with its placeholders; replaces a preset's own.
    #[arg(long = defs::SETUP.long, value_name = "COMMAND")]
    pub setup: Option<String>,

    /// Kill a backup program's run (and what it started) after this many seconds.
    #[arg(long = defs::TOOL_TIMEOUT.long, value_name = "SECS", default_value_t = 600.0,
          value_parser = positive_seconds)]
    pub tool_timeout: f64,

    /// The share of the miniature's files rewritten before a second backup into the same
    /// repository, for a backup program that makes incrementals (0: none).
    #[arg(long = defs::CHANGED.long, value_name = "PERCENT", default_value_t = 10.0,
          value_parser = percent)]
    pub changed: f64,

    /// Also read a random sample of SOURCE's files (at most 200 files or 3 s) from a cold cache
    /// and say which side limits, the source or the destination. As root, the machine's caches
    /// are dropped first and the tree is listed cold on one thread, and that time counts too.
    #[arg(long = defs::MEASURE_SOURCE.long)]
    pub measure_source: bool,

    #[arg(long = defs::UNCONFINED_PROGRAMS.long, help = defs::UNCONFINED_PROGRAMS.help())]
    pub unconfined_programs: bool,

    /// Where the fresh measurement's file sets are generated (default: the temp directory).
    #[arg(long = defs::SOURCE_DIR.long)]
    pub source_dir: Option<PathBuf>,

    /// Print one JSON document (schema destbench.estimate/1) instead of the text.
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub db: DbArg,
}

/// Seconds above 0.
fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v > 0.0 && v.is_finite() => Ok(v),
        _ => Err(format!("'{s}': a number of seconds above 0")),
    }
}

/// A percentage from 0 to 100.
fn percent(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..=100.0).contains(&v) => Ok(v),
        _ => Err(format!("'{s}': a percentage from 0 to 100")),
    }
}
