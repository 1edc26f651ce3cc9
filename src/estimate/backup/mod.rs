//! `estimate --tool restic` (a preset) or `--tool 'cmd:LINE'`: the backup program itself, run
//! on miniatures of the source's own files (`miniatures`) into fresh repositories on each
//! destination, each run timed from a sync to the end of a sync of the destination
//! (`launch`); the first backup fitted from them (`model::command`). Where the tool makes
//! incremental backups, one more run into the largest miniature's repository after some of
//! its files changed gives the second backup's time. Each timed run reads its miniature cold
//! (`miniatures::cool`), as a first backup reads its source.
//!
//! The miniatures, the tool's home (its cache and configuration) and its stderr live in a
//! scratch directory beside the calibration sets' (`--source-dir`); the repositories in the
//! destination's scratch directory. Both are removed on every path, Ctrl-C and SIGTERM
//! included, as every scratch is.

mod launch;
mod miniatures;

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::{Error, Result};
use crate::scratch::Scratch;
use crate::scratch::within::{Found, Within};
use crate::tree::survey::Survey;
use crate::units::format_bytes;
use crate::workload::presets::BackupTool;

use super::Origin;
use super::calibration::{self, ROUNDS};
use super::model::FitError;
use super::model::backup::{BackupEstimate, SecondRun, ToolRun};
use crate::platform::confine::Launcher;
use launch::Launch;
use miniatures::Miniature;

/// How a tool is run: the limit on one run, the share of files changed before a second
/// backup, and whether it runs where it cannot be confined to the scratch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ToolSettings {
    pub timeout: Duration,
    /// 0 to 1; 0: no second backup.
    pub changed: f64,
    /// `--unconfined-programs`: see `platform::confine::launcher`.
    pub unconfined: bool,
}

/// One destination's runs of the tool, and its estimate or why there is none.
pub struct BackupDestination {
    pub origin: Origin,
    pub tool: BackupTool,
    pub runs: Vec<ToolRun>,
    pub second: Option<SecondRun>,
    /// The share of files changed before the second backup (0 to 1).
    pub changed: f64,
    pub estimate: Result<BackupEstimate, FitError>,
}

/// The tool's runs on one destination.
pub struct Measured {
    pub runs: Vec<ToolRun>,
    pub second: Option<SecondRun>,
}

/// Runs `tool` on miniatures of `source` (written under `area_dir`) into repositories on
/// `target`.
pub fn measure(
    target: &Path,
    tool: &BackupTool,
    source: (&Path, &Survey),
    area_dir: &Path,
    settings: ToolSettings,
) -> Result<Measured> {
    let area = Scratch::create(area_dir)?;
    let destination = Scratch::create(target)?;
    // Confined before anything is written in them (Windows labels what is made after).
    let launcher = calibration::programs_in(&destination, &[&area], tool, settings.unconfined)?;
    let mut within = Within::new(&area);
    let minis = miniatures::make(source.0, source.1, &mut within)?;
    let tmp = within.path(Path::new("tmp"));
    within
        .dir(Path::new("tmp"))
        .map_err(|e| Error::io(format!("creating {}", tmp.display()), e))?;
    let how = Run {
        launcher: &launcher,
        tmp: &tmp,
        settings,
    };
    announce(target, tool, &minis, &destination);
    let mut runs = Vec::new();
    let mut largest = None;
    for round in 0..ROUNDS {
        for (k, m) in minis.iter().enumerate() {
            let place = Place::new(&destination, &mut within, &format!("{round}-{k}"))?;
            if let Some((_, setup)) = &tool.setup {
                place.launch(tool, setup, m, 1, &how).run()?;
            }
            miniatures::cool(&mut within, m)?;
            let ran = place
                .launch(tool, &tool.words, m, 1, &how)
                .timed(&destination)?;
            runs.push(ToolRun {
                share: m.share,
                files: m.files,
                bytes: m.bytes,
                seconds: ran.seconds,
                tool_s: ran.tool_s,
                cpu_s: ran.cpu_s,
                machine_busy_s: ran.machine_busy_s,
            });
            if k == 0 {
                largest = Some(place);
            }
        }
    }
    let second = match (largest, minis.first()) {
        (Some(place), Some(m)) if tool.incremental && settings.changed > 0.0 => {
            let (changed_files, changed_bytes) = change(&mut within, m, settings.changed)?;
            miniatures::cool(&mut within, m)?;
            let ran = place
                .launch(tool, &tool.words, m, 2, &how)
                .timed(&destination)?;
            Some(SecondRun {
                share: m.share,
                changed_files,
                changed_bytes,
                seconds: ran.seconds,
            })
        }
        _ => None,
    };
    Ok(Measured { runs, second })
}

/// How every run of the tool is started: confined by `launcher`, its temporary files in `tmp`
/// (beside the miniatures, inside the scratch), under `settings`.
struct Run<'a> {
    launcher: &'a Launcher,
    tmp: &'a Path,
    settings: ToolSettings,
}

/// Where one repository's runs happen: the repository in the destination's scratch (not made:
/// the setup or the tool makes it), the tool's home and its stderr beside the miniatures.
struct Place {
    repo: PathBuf,
    home: PathBuf,
    /// The tool's stderr, made through the scratch's handle.
    stderr: File,
}

impl Place {
    fn new(destination: &Scratch, area: &mut Within<'_>, name: &str) -> Result<Place> {
        let (home, stderr) = (format!("home-{name}"), format!("stderr-{name}"));
        let home_path = area.path(Path::new(&home));
        area.dir(Path::new(&home))
            .map_err(|e| Error::io(format!("creating {}", home_path.display()), e))?;
        let stderr = area.create(Path::new(&stderr)).map_err(|e| {
            Error::io(
                format!("creating {}", area.path(Path::new(&stderr)).display()),
                e,
            )
        })?;
        Ok(Place {
            repo: destination.path().join(format!("repo-{name}")),
            home: home_path,
            stderr,
        })
    }

    /// `words` filled for miniature `m` and backup `number` in this repository.
    fn launch<'a>(
        &'a self,
        tool: &'a BackupTool,
        words: &[String],
        m: &Miniature,
        number: usize,
        how: &Run<'a>,
    ) -> Launch<'a> {
        Launch {
            tool,
            words: BackupTool::fill(words, &path_text(&m.root), &path_text(&self.repo), number),
            home: &self.home,
            tmp: how.tmp,
            stderr: &self.stderr,
            timeout: how.settings.timeout,
            launcher: how.launcher,
        }
    }
}

/// A path as the tool's command line takes it.
fn path_text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// Rewrites `share` of the miniature's files, evenly along its walk, with new bytes of the
/// same length (a changed file's data is new to the repository): (files, bytes) changed.
fn change(area: &mut Within<'_>, m: &Miniature, share: f64) -> Result<(u64, u64)> {
    let mut rng = fastrand::Rng::with_seed(39);
    let (mut i, mut files, mut bytes) = (0u64, 0u64, 0u64);
    area.walk(&m.rel, &mut |area, rel, found| {
        let Found::File(size) = found else {
            return Ok(());
        };
        if miniatures::taken(i, share) {
            let data: Vec<u8> = (0..size).map(|_| rng.u8(..)).collect();
            area.open(rel, true)?.write_all(&data)?;
            files += 1;
            bytes += size;
        }
        i += 1;
        Ok(())
    })
    .map_err(|e| Error::io(format!("changing the files of {}", m.root.display()), e))?;
    Ok((files, bytes))
}

/// Says on stderr what the runs write where.
fn announce(target: &Path, tool: &BackupTool, minis: &[Miniature], destination: &Scratch) {
    let sizes: Vec<String> = minis
        .iter()
        .map(|m| {
            format!(
                "{} files, {} symlinks, {}",
                m.files,
                m.links,
                format_bytes(m.bytes)
            )
        })
        .collect();
    eprintln!(
        "estimate: running {tool} on {}: {} backups of miniatures of the source ({}), each into a fresh repository in {}{}",
        target.display(),
        ROUNDS * minis.len(),
        sizes.join("; "),
        destination.path().display(),
        if tool.incremental {
            ", then one more after some files changed"
        } else {
            ""
        },
    );
}
