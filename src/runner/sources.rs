//! The sources of the file-set tests: generated sets, made once per run in a scratch directory
//! of their own on the source disk (the system's temp directory unless `--source-dir`), untimed,
//! and the user's `--source` folder, only ever read. Sources are real files whatever the engine:
//! the engine stands for the destination.

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use crate::engine::EngineFactory;
use crate::engine::tree::{SystemTree, TreeEngine};
use crate::error::{Error, Result};
use crate::platform;
use crate::results::FileSetInfo;
use crate::scratch::{self, Scratch};
use crate::tree::{self, Task};
use crate::workload::SetName;
use crate::workload::fileset::{self, SetSpec};

use super::{Progress, RunPlan};

/// Threads used for untimed preparation reads and copies.
pub(super) const PREP_THREADS: usize = 4;

/// Source sets of the run, made on first use.
#[derive(Default)]
pub(super) struct Sources {
    area: Option<Scratch>,
    sets: HashMap<SetName, FileSetInfo>,
}

impl Sources {
    /// The set's source, generating it first if needed.
    pub(super) fn get(
        &mut self,
        plan: &RunPlan,
        name: SetName,
        progress: &mut dyn Progress,
    ) -> Result<FileSetInfo> {
        if let Some(info) = self.sets.get(&name) {
            return Ok(info.clone());
        }
        let info = match name {
            SetName::Source => user_source(plan, progress)?,
            SetName::Generated(kind) => {
                let set = plan
                    .file_sets
                    .iter()
                    .find(|s| s.name == name)
                    .expect("planned set");
                if self.area.is_none() {
                    self.area = Some(Scratch::create(&plan.source_dir).map_err(|e| match e {
                        Error::Destination { path, problem } => Error::Destination {
                            path,
                            problem: format!(
                                "cannot hold generated file sets (--source-dir): {problem}"
                            ),
                        },
                        other => other,
                    })?);
                }
                let area = self.area.as_ref().expect("source area");
                let root = area.path().join(kind.as_str());
                fs::create_dir(&root)
                    .map_err(|e| Error::io(format!("creating {}", root.display()), e))?;
                progress.step(&format!("generating the {kind} file set"), 0.0);
                let spec = SetSpec {
                    kind,
                    total_bytes: set.total_bytes,
                    max_files: set.max_files,
                    size_cap: set.size_cap,
                    seed: plan.seed,
                };
                let summary = fileset::generate(&spec, &root).map_err(|e| {
                    Error::io(
                        format!("generating the {kind} file set in {}", root.display()),
                        e,
                    )
                })?;
                FileSetInfo {
                    name: name.to_string(),
                    files: summary.files,
                    bytes: summary.bytes,
                    dirs: summary.dirs,
                    file_size_p50_bytes: Some(summary.p50),
                    file_size_p90_bytes: Some(summary.p90),
                    file_size_max_bytes: Some(summary.largest),
                    source_cached: residency(&root),
                    source_path: root.display().to_string(),
                    generated: true,
                }
            }
        };
        self.sets.insert(name, info.clone());
        Ok(info)
    }
}

/// The page-cache residency of a sample of the tree's files (a source: read by system calls).
fn residency(root: &Path) -> Option<f64> {
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
fn user_source(plan: &RunPlan, progress: &mut dyn Progress) -> Result<FileSetInfo> {
    let path = plan.source.as_ref().expect("--source given");
    check_source(path)?;
    progress.step("reading the --source folder into the page cache", 0.0);
    let outcome = tree::run(
        &Task::Read,
        path,
        &EngineFactory::system(),
        PREP_THREADS,
        plan.profile.series_interval,
        "reading --source",
        &mut |_| {},
    )?;
    // The read keeps no sizes; a survey (metadata only, now cached) gives their percentiles.
    let sizes = tree::scan::survey(path, PREP_THREADS)
        .map(|survey| survey.sizes)
        .unwrap_or_default();
    Ok(FileSetInfo {
        name: "source".into(),
        files: outcome.files,
        bytes: outcome.bytes,
        dirs: outcome.dirs,
        file_size_p50_bytes: sizes.quantile(0.5),
        file_size_p90_bytes: sizes.quantile(0.9),
        file_size_max_bytes: sizes.max(),
        source_cached: residency(path),
        source_path: path.display().to_string(),
        generated: false,
    })
}

/// Checks the `--source` folder before anything runs: it must be a readable directory.
pub(super) fn check_source(path: &Path) -> Result<()> {
    scratch::check_destination(path).map_err(|e| match e {
        Error::Destination { path, problem } => Error::Destination {
            path,
            problem: format!("(--source) {problem}"),
        },
        other => other,
    })?;
    fs::read_dir(path)
        .map(drop)
        .map_err(|e| Error::Destination {
            path: path.to_path_buf(),
            problem: format!("(--source) cannot be read: {e}"),
        })
}
