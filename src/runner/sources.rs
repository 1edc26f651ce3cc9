//! The sources of the file-set tests: generated sets, made once per run in a scratch directory
//! of their own on the source disk (the system's temp directory unless `--source-dir`), untimed,
//! and the user's `--source` folder, only ever read. Sources are real files whatever the engine:
//! the engine stands for the destination.

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use crate::engine::EngineFactory;
use crate::engine::tree::{Root, SystemTree, TreeEngine};
use crate::error::{Error, Result};
use crate::platform;
use crate::results::{FileSetInfo, FileSizes, Untimed};
use crate::results::{Warning, WarningKind};
use crate::scratch::{self, Scratch};
use crate::settings::defs;
use crate::tree::{self, Outcome, Task};
use crate::workload::SetName;
use crate::workload::fileset;

use crate::runner::progress::Progress;
use crate::runner::untimed::{Ledger, Work};
use crate::settings::RunPlan;

/// Threads used for untimed preparation reads and copies.
pub(in crate::runner) const PREP_THREADS: usize = 4;

/// A set's description and where it is: a root opened once, every task over the set reaching
/// its files from that handle (a source swapped for a symlink later cannot redirect a read).
#[derive(Clone)]
pub(in crate::runner) struct SourceSet {
    pub info: FileSetInfo,
    pub root: Root,
    /// What reading it first left out (a `--source`'s symlinks, FIFOs, mount points...), for
    /// the warnings of every result that uses it.
    pub notes: Vec<Warning>,
}

/// Source sets of the run, made on first use.
#[derive(Default)]
pub(in crate::runner) struct Sources {
    area: Option<Scratch>,
    sets: HashMap<SetName, SourceSet>,
    /// An empty directory in `area` ([`Sources::empty_dir`]).
    empty: Option<Root>,
}

impl Sources {
    /// The set's source, generating it first if needed.
    pub(in crate::runner) fn get(
        &mut self,
        plan: &RunPlan,
        name: SetName,
        progress: &mut dyn Progress,
        ledger: &Ledger,
    ) -> Result<SourceSet> {
        if let Some(set) = self.sets.get(&name) {
            return Ok(set.clone());
        }
        let set = match name {
            SetName::Source => user_source(plan, progress)?,
            SetName::Generated(kind) => {
                let set = plan
                    .file_sets
                    .iter()
                    .find(|s| s.name == name)
                    .expect("planned set");
                let spec = set.generated(plan.seed).expect("a generated set");
                let area = self.area(plan)?;
                let root = tree::make_dir(&area.root(), kind.as_str(), &EngineFactory::system())?;
                progress.update(&format!("generating the {kind} file set"));
                let summary = ledger
                    // On the source's side: no file of the destination's.
                    .time(Work::new(Untimed::Generate, set.total_bytes, 0), || {
                        SystemTree::new()
                            .open_root(&root)
                            .and_then(|dir| fileset::generate_in(&spec, dir.fd()?))
                    })
                    .map_err(|e| {
                        let at = root.path();
                        Error::io(
                            format!("generating the {kind} file set in {}", at.display()),
                            e,
                        )
                    })?;
                let info = FileSetInfo {
                    name: name.to_string(),
                    files: summary.files,
                    bytes: summary.bytes,
                    dirs: summary.dirs,
                    file_sizes: FileSizes::known(summary.p50, summary.p90, summary.largest),
                    source_cached: residency(&root),
                    source_path: root.path().display().to_string(),
                    generated: true,
                };
                SourceSet {
                    info,
                    root,
                    notes: Vec::new(),
                }
            }
        };
        self.sets.insert(name, set.clone());
        Ok(set)
    }

    /// An empty directory on the source's side, for a program timed on an empty tree.
    pub(in crate::runner) fn empty_dir(&mut self, plan: &RunPlan) -> Result<Root> {
        if let Some(root) = &self.empty {
            return Ok(root.clone());
        }
        let root = tree::make_dir(&self.area(plan)?.root(), "empty", &EngineFactory::system())?;
        self.empty = Some(root.clone());
        Ok(root)
    }

    /// The scratch directory of the generated sets, made on first use.
    fn area(&mut self, plan: &RunPlan) -> Result<&Scratch> {
        if self.area.is_none() {
            self.area = Some(Scratch::create(&plan.source_dir).map_err(|e| match e {
                Error::Destination { path, problem } => Error::Destination {
                    path,
                    problem: format!(
                        "cannot hold generated file sets ({}): {problem}",
                        defs::SOURCE_DIR
                    ),
                },
                other => other,
            })?);
        }
        Ok(self.area.as_ref().expect("made above"))
    }
}

/// The page-cache residency of a sample of the tree's files (a source: read by system calls).
fn residency(root: &Root) -> Option<f64> {
    let mut engine = SystemTree::new();
    let dir = engine.open_root(root).ok()?;
    let mut walk = tree::walk::Walk::new(&mut engine, dir, None).ok()?;
    let (mut sum, mut n) = (0.0, 0u32);
    while n < 64
        && let Some(found) = walk.next(&mut engine)
    {
        if let tree::walk::Found::File(place) = found
            && let Ok(file) = engine.open(&place.dir, &place.name)
        {
            if let Ok(fd) = engine.fd(file)
                && let Ok(len) = platform::file_len(fd)
                && len > 0
                && let Ok(fraction) = platform::resident_fraction(fd, len)
            {
                sum += fraction;
                n += 1;
            }
            let _ = engine.close(file);
        }
    }
    (n > 0).then(|| sum / n as f64)
}

/// Reads the user's folder once, untimed, so it sits in the page cache as far as memory allows
/// and the copy measures the destination rather than the source disk; how much of it stayed
/// cached is reported with the results.
fn user_source(plan: &RunPlan, progress: &mut dyn Progress) -> Result<SourceSet> {
    let path = plan.source.as_ref().expect("a user source is planned");
    check_source(path)?;
    let root = Root::open(path)
        .map_err(|e| Error::Destination {
            path: path.to_path_buf(),
            problem: format!("({}) cannot be read: {e}", defs::SOURCE),
        })?
        .crossing(plan.cross_filesystems);
    progress.update(&format!(
        "reading the {} folder into the page cache",
        defs::SOURCE
    ));
    let outcome = tree::run(
        &Task::Read,
        &root,
        &EngineFactory::system(),
        PREP_THREADS,
        plan.profile.series_interval,
        &format!("reading {}", defs::SOURCE),
        &mut |_| {},
    )?;
    // The read keeps no sizes; a survey (metadata only, now cached) gives their percentiles.
    let sizes = tree::survey::survey(path, PREP_THREADS, plan.cross_filesystems)
        .map(|survey| survey.sizes)
        .unwrap_or_default();
    let info = FileSetInfo {
        name: "source".into(),
        files: outcome.files,
        bytes: outcome.bytes,
        dirs: outcome.dirs,
        file_sizes: FileSizes {
            file_size_p50_bytes: sizes.quantile(0.5),
            file_size_p90_bytes: sizes.quantile(0.9),
            file_size_max_bytes: sizes.max(),
        },
        source_cached: residency(&root),
        source_path: path.display().to_string(),
        generated: false,
    };
    let notes = skipped(&outcome, &info);
    Ok(SourceSet { info, root, notes })
}

/// Checks the `--source` folder before anything runs: it must be a readable directory, and not
/// on a kernel pseudo-filesystem.
pub fn check_source(path: &Path) -> Result<()> {
    check_folder(path, &defs::SOURCE)
}

/// A folder given by `flag` (`--source`, `--data`) exists, is a directory of a real
/// filesystem and can be listed; the error names the flag.
pub fn check_folder(path: &Path, flag: &defs::Setting) -> Result<()> {
    let named = |e| match e {
        Error::Destination { path, problem } => Error::Destination {
            path,
            problem: format!("({flag}) {problem}"),
        },
        other => other,
    };
    scratch::check_destination(path).map_err(named)?;
    if let Ok(dir) = platform::open_dir(path) {
        tree::refuse_pseudo(path, &dir).map_err(named)?;
    }
    fs::read_dir(path)
        .map(drop)
        .map_err(|e| Error::Destination {
            path: path.to_path_buf(),
            problem: format!("({flag}) cannot be read: {e}"),
        })
}

/// The warning about what a walk of the set skipped, by kind, with a few of them named.
pub(in crate::runner) fn skipped(outcome: &Outcome, set: &FileSetInfo) -> Vec<Warning> {
    let Some(counts) = outcome.skipped.describe() else {
        return Vec::new();
    };
    let examples: Vec<&str> = outcome
        .special
        .examples
        .iter()
        .chain(&outcome.unreadable.examples)
        .map(String::as_str)
        .take(10)
        .collect();
    let named = if examples.is_empty() {
        String::new()
    } else {
        format!(" (e.g. {})", examples.join("; "))
    };
    vec![Warning::new(
        WarningKind::SkippedFiles,
        format!("skipped in the {} set: {counts}{named}", set.name),
    )]
}
