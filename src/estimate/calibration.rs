//! The calibration of `estimate --to`: each set (see `sets`) copied to the destination by the
//! tool being estimated (`cp -a`, `rsync -a`, or destbench's own copy on N threads) and timed
//! from the first byte to the end of a `syncfs` of the destination, so each tool's own
//! operations (cp's metadata after the data, rsync's temporary name then rename and its pipe,
//! the round trips of a share) are what is measured, never assumed.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::engine::tree::Root;
use crate::engine::{EngineChoice, EngineFactory};
use crate::error::{Error, Result};
use crate::interrupt;
use crate::platform;
use crate::platform::confine::Launcher;
use crate::scratch::Scratch;
use crate::settings::defs::{TOOL, UNCONFINED_PROGRAMS};
use crate::tree::{self, Task};
use crate::units::{format_bytes, human_duration};
use crate::workload::Tool;

use super::model::CopyMeasurement;
use super::sets::Sets;

/// Each set is copied this many times (the spread gives the interval).
pub(super) const ROUNDS: usize = 2;

/// Copies each calibration set to `target` with `tool`, [`ROUNDS`] times, the sets taking
/// turns so a drift of the destination spreads over all of them. Says first what it writes.
pub fn calibrate(
    target: &Path,
    tool: &Tool,
    sets: &Sets,
    unconfined: bool,
) -> Result<Vec<CopyMeasurement>> {
    let scratch = Scratch::create(target)?;
    let launcher = match tool.copy_program() {
        Some(_) => Some(programs_in(&scratch, &[], tool, unconfined)?),
        None => None,
    };
    announce(target, tool, sets, &scratch);
    let mut measurements: Vec<CopyMeasurement> = sets
        .sets
        .iter()
        .map(|(shape, _)| CopyMeasurement {
            variant: shape.name.to_string(),
            dirs: shape.dirs,
            files: shape.sizes.total_files() + shape.symlinks,
            bytes: shape.sizes.total_bytes(),
            block_bytes: shape.sizes.total_block_bytes(),
            seconds: Vec::new(),
            sizes: Some(shape.sizes.clone()),
        })
        .collect();
    let mut copies = Vec::new();
    for round in 0..ROUNDS {
        for ((shape, path), m) in sets.sets.iter().zip(&mut measurements) {
            let name = format!("{}-{round}", shape.name);
            let elapsed = time_copy(tool, path, (&scratch, launcher.as_ref()), &name);
            copies.push(name);
            match elapsed {
                Ok(elapsed) => m.seconds.push(elapsed.as_secs_f64()),
                Err(e) => {
                    let _ = remove_copies(&scratch, &copies);
                    return Err(e);
                }
            }
        }
    }
    remove_copies(&scratch, &copies)?;
    Ok(measurements)
}

/// How `tool`'s program is started in `scratch` (its writes confined to it and to `also`), or
/// why it may not run there: a usage error naming the flag that runs it anyway.
pub(super) fn programs_in(
    scratch: &Scratch,
    also: &[&Scratch],
    tool: &dyn std::fmt::Display,
    unconfined: bool,
) -> Result<Launcher> {
    // The destination as the user named it, not the scratch that is removed with the error.
    let place = scratch.path().parent().unwrap_or(scratch.path());
    scratch.launcher(also, unconfined).map_err(|why| {
        Error::Tool(format!(
            "{TOOL} {tool}: not run on {}: {why} ({UNCONFINED_PROGRAMS} runs it anyway)",
            place.display()
        ))
    })
}

/// Says on stderr what the calibration writes where, and about how long it takes.
fn announce(target: &Path, tool: &Tool, sets: &Sets, scratch: &Scratch) {
    let per_round = sets.bytes_per_round();
    let files: u64 = sets
        .sets
        .iter()
        .map(|(shape, _)| shape.sizes.total_files())
        .sum();
    let miniature = sets
        .miniature()
        .map(|shape| {
            format!(
                " and a miniature of the source ({} files in {} directories)",
                shape.sizes.total_files(),
                shape.dirs
            )
        })
        .unwrap_or_default();
    // Over a 100 Mbit/s sshfs share: 12.5 MB/s and about 2 ms a file.
    let slow_s = ROUNDS as f64 * (per_round as f64 / 12.5e6 + files as f64 * 2e-3);
    eprintln!(
        "estimate: calibrating {tool} on {}: {} copies of {} calibration sets{miniature} ({} each round, each copy kept until all are timed, then deleted) in {}; about {} at 100 Mbit/s, less on a faster destination",
        target.display(),
        ROUNDS,
        sets.calibration_sets(),
        format_bytes(per_round),
        scratch.path().display(),
        human_duration(slow_s),
    );
}

/// Copies `src` into a fresh directory `name` of `scratch` with `tool` and times it to the end
/// of a syncfs of the destination. The copy stays: see [`remove_copies`].
fn time_copy(
    tool: &Tool,
    src: &Path,
    (scratch, launcher): (&Scratch, Option<&Launcher>),
    name: &str,
) -> Result<Duration> {
    let engines = EngineFactory::new(EngineChoice::Auto).map_err(Error::Usage)?;
    let dst_root = tree::make_dir(&scratch.root(), name, &engines)?;
    let elapsed = match (tool, tool.copy_program().zip(launcher)) {
        (_, Some((program, launcher))) => {
            let dst = scratch.path().join(name);
            tree::timed_copy(program, (src, &dst), scratch.fd(), launcher)?.elapsed
        }
        (&Tool::Parallel(threads), _) => {
            scratch.syncfs()?;
            let start = Instant::now();
            let task = Task::Copy {
                dst: dst_root,
                durable_each: false,
            };
            let src =
                Root::open(src).map_err(|e| Error::io(format!("opening {}", src.display()), e))?;
            tree::run(
                &task,
                &src,
                &engines,
                threads,
                Duration::from_secs(1),
                "calibrating",
                &mut |_| {},
            )?;
            scratch.syncfs()?;
            start.elapsed()
        }
        _ => {
            return Err(Error::Usage(format!(
                "{tool} is not calibrated by copying sets"
            )));
        }
    };
    interrupt::check()?;
    Ok(elapsed)
}

/// Removes the copies `time_copy` left, once every copy is timed, and flushes the removal.
/// Deleted between copies, each copy after the first met a destination busy with the last
/// one's deletion (ext4 passes over inodes freed in the last 60 s when it makes new ones); a
/// backup does not start straight after a deletion, so the calibration does not either.
fn remove_copies(scratch: &Scratch, names: &[String]) -> Result<()> {
    let engines = EngineFactory::new(EngineChoice::Auto).map_err(Error::Usage)?;
    for name in names {
        tree::remove_all(&scratch.root(), name, &engines);
    }
    platform::syncfs(scratch.fd()).map_err(|e| Error::Destination {
        path: scratch.path().to_path_buf(),
        problem: format!("syncfs after removing the calibration copies: {e}"),
    })
}
