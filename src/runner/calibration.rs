//! The calibration of `estimate --to`: four file sets of different shapes, each copied to the
//! destination by the tool being estimated (`cp -a`, `rsync -a`, or destbench's own copy on N
//! threads) and timed from the first byte to the end of a `syncfs` of the destination, so each
//! tool's own operations (cp's metadata after the data, rsync's temporary name then rename
//! and its pipe, the round trips of a share) are what is measured, never assumed.
//!
//! The shapes separate the model's five costs (see `verdict::estimate`): `empty` is a copy of
//! nothing (the tool's start and the final flush, once per copy); `dirs` is directories
//! only; `tiny` is files far smaller than a block (per-file cost and the slack a block device
//! writes beyond each file's bytes); `aligned` is files of whole 4 KiB blocks from 4 to 64 KiB
//! (per-file cost without slack); `large` is a few 12 MB files (bandwidth). Each is written
//! once to a scratch directory on the source disk (`--source-dir`) and stays in its page cache,
//! so a copy measures the destination.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::engine::tree::Root;
use crate::engine::{EngineChoice, EngineFactory};
use crate::error::{Error, Result};
use crate::interrupt;
use crate::platform;
use crate::scratch::Scratch;
use crate::tree::scan::{BLOCK, SizeHistogram};
use crate::tree::{self, Task};
use crate::workload::Tool;

use super::miniature;

/// A calibration set's shape: what the model sees of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    pub name: &'static str,
    /// Directories below the set's root.
    pub dirs: u64,
    /// Every file's size: the set's files, bytes and whole blocks are its totals.
    pub sizes: SizeHistogram,
    /// Symlinks (the miniature's): files without data to the model.
    pub symlinks: u64,
}

/// The name of the set that is the source's miniature (see `runner::miniature`).
pub const MINIATURE: &str = "miniature";

/// The sets as generated: (name, directories, files per directory, size of file `i`).
type Recipe = (&'static str, u64, u64, fn(u64, &mut fastrand::Rng) -> u64);

const RECIPES: [Recipe; 5] = [
    ("empty", 0, 0, |_, _| 0),
    ("dirs", 400, 0, |_, _| 0),
    ("tiny", 40, 40, |_, rng| rng.u64(1..3000)),
    ("aligned", 12, 50, |_, rng| rng.u64(1..=16) * BLOCK),
    ("large", 1, 4, |_, _| 12_000_000),
];

const SEED: u64 = 14;

/// The generated sets, removed with their scratch directory.
pub struct Sets {
    _area: Scratch,
    pub sets: Vec<(Shape, PathBuf)>,
}

impl Sets {
    /// What a round of copies writes to the destination, in whole blocks: for the warning
    /// before.
    pub fn bytes_per_round(&self) -> u64 {
        self.sets
            .iter()
            .map(|(shape, _)| shape.sizes.total_block_bytes())
            .sum()
    }
}

/// Writes the calibration sets into a scratch directory in `source_dir`, and the source's
/// miniature where there is one.
pub fn make_sets(source_dir: &Path, miniature: Option<&miniature::Plan>) -> Result<Sets> {
    let area = Scratch::create(source_dir)?;
    let mut rng = fastrand::Rng::with_seed(SEED);
    let mut sets = Vec::new();
    for &(name, dirs, per_dir, size) in &RECIPES {
        let root = area.path().join(name);
        let io = |e| Error::io(format!("writing the calibration set {}", root.display()), e);
        fs::create_dir(&root).map_err(io)?;
        let mut shape = Shape {
            name,
            dirs,
            sizes: SizeHistogram::default(),
            symlinks: 0,
        };
        for d in 0..dirs {
            // Two levels, as real trees nest: a directory of 20 subdirectories each.
            let dir = root.join(format!("g{}", d / 20)).join(format!("d{d}"));
            fs::create_dir_all(&dir).map_err(io)?;
            for f in 0..per_dir {
                let len = size(f, &mut rng);
                let data: Vec<u8> = (0..len).map(|_| rng.u8(..)).collect();
                fs::write(dir.join(format!("f{f}")), data).map_err(io)?;
                shape.sizes.add(len);
            }
        }
        // The group directories count too.
        shape.dirs += dirs.div_ceil(20);
        sets.push((shape, root));
    }
    if let Some(plan) = miniature {
        let root = area.path().join(MINIATURE);
        let shape = write_miniature(plan, &root, &mut rng)
            .map_err(|e| Error::io(format!("writing the miniature {}", root.display()), e))?;
        sets.push((shape, root));
    }
    // Written back before the first copy: left dirty, the sets went to their own disk 30 s
    // later (the kernel's dirty expiry), in the middle of the second round's copies, which
    // then paid for the source's writeback (a sshfs share's tiny set by rsync: 5.7 s in the
    // first round, 7.4 s in the second).
    platform::syncfs(area.fd()).map_err(|e| {
        Error::io(
            format!("flushing the calibration sets in {}", area.path().display()),
            e,
        )
    })?;
    Ok(Sets { _area: area, sets })
}

/// Writes the miniature's directories, files (random bytes: nothing on the way compresses
/// them) and symlinks under `root`. Each link points at its own directory (`.`), so it never
/// leads out of the miniature and a copy can set its owner: over sshfs, `cp -a` sets a link's
/// owner through the link (SFTP follows it) and fails on a dangling one.
fn write_miniature(
    plan: &miniature::Plan,
    root: &Path,
    rng: &mut fastrand::Rng,
) -> std::io::Result<Shape> {
    let mut dirs = vec![root.to_path_buf()];
    fs::create_dir(root)?;
    for (i, &parent) in plan.parents.iter().enumerate() {
        // Names as long as real ones: a directory's entries take the room they take in a tree.
        let dir = dirs[parent].join(format!("directory-{i:05}"));
        fs::create_dir(&dir)?;
        dirs.push(dir);
    }
    for (i, &(dir, len)) in plan.files.iter().enumerate() {
        let data: Vec<u8> = (0..len).map(|_| rng.u8(..)).collect();
        fs::write(dirs[dir].join(format!("file-{i:05}.data")), data)?;
    }
    for (i, &dir) in plan.symlinks.iter().enumerate() {
        std::os::unix::fs::symlink(".", dirs[dir].join(format!("link-{i:05}")))?;
    }
    Ok(Shape {
        name: MINIATURE,
        dirs: plan.parents.len() as u64,
        sizes: plan.files.iter().map(|&(_, size)| size).collect(),
        symlinks: plan.symlinks.len() as u64,
    })
}

/// Copies `src` into a fresh directory `name` of `scratch` with `tool` and times it to the end
/// of a syncfs of the destination. The copy stays: see [`remove_copies`].
pub fn time_copy(tool: Tool, src: &Path, scratch: &Scratch, name: &str) -> Result<Duration> {
    let dst = scratch.path().join(name);
    let engines = EngineFactory::new(EngineChoice::Auto).map_err(Error::Usage)?;
    let problem = |what: String| Error::Destination {
        path: scratch.path().to_path_buf(),
        problem: what,
    };
    let dst_root = tree::make_dir(&scratch.root(), name, &engines)?;
    platform::syncfs(scratch.fd()).map_err(|e| problem(format!("syncfs: {e}")))?;
    let start = Instant::now();
    match tool.program() {
        Some(program) => {
            let mut command = Command::new(program);
            match tool {
                Tool::Cp => command.arg("-a").arg(src.join(".")).arg(&dst),
                _ => command
                    .arg("-a")
                    .arg(format!("{}/", src.display()))
                    .arg(format!("{}/", dst.display())),
            };
            let out = command
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .output()
                .map_err(|e| {
                    Error::Usage(format!(
                        "--tool {tool}: cannot run {program} ({e}); is it installed?"
                    ))
                })?;
            if !out.status.success() {
                let stderr = String::from_utf8_lossy(&out.stderr);
                return Err(problem(format!(
                    "{program} failed copying a calibration set: {}",
                    stderr.lines().next().unwrap_or("no message")
                )));
            }
        }
        None => {
            let Tool::Parallel(threads) = tool else {
                unreachable!("only destbench's copy runs no program")
            };
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
        }
    }
    platform::syncfs(scratch.fd()).map_err(|e| problem(format!("syncfs: {e}")))?;
    let elapsed = start.elapsed();
    interrupt::check()?;
    Ok(elapsed)
}

/// Removes the copies `time_copy` left, once every copy is timed, and flushes the removal.
/// Deleted between copies, each copy after the first met a destination busy with the last
/// one's deletion: over a sshfs share to an ext4 mounted with `discard`, the tiny set took
/// 3.9-4.9 s when each copy followed the deletion of the last (1,600 files), 2.4-3.5 s when
/// none was deleted, and 2.7-2.8 s a minute after a deletion (ext4 passes over inodes freed in
/// the last 60 s when it makes new ones; this project's machine). A backup does not start
/// straight after a deletion, so the calibration does not either.
pub fn remove_copies(scratch: &Scratch, names: &[String]) -> Result<()> {
    let engines = EngineFactory::new(EngineChoice::Auto).map_err(Error::Usage)?;
    for name in names {
        tree::remove_all(&scratch.root(), name, &engines);
    }
    platform::syncfs(scratch.fd()).map_err(|e| Error::Destination {
        path: scratch.path().to_path_buf(),
        problem: format!("syncfs after removing the calibration copies: {e}"),
    })
}
