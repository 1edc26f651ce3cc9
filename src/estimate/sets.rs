//! The calibration sets of `estimate --to`: file sets of different shapes, and the source's
//! miniature, that `calibration` copies to each destination.
//!
//! The shapes separate the model's five costs (see `estimate::model`): `empty` is a copy of
//! nothing (the tool's start and the final flush, once per copy); `dirs` is directories
//! only; `tiny` is files far smaller than a block (per-file cost and the slack a block device
//! writes beyond each file's bytes); `aligned` is files of whole 4 KiB blocks from 4 to 64 KiB
//! (per-file cost without slack); `large` is a few 12 MB files (bandwidth). Each is written
//! once to a scratch directory on the source disk (`--source-dir`) and stays in its page cache,
//! so a copy measures the destination.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::platform;
use crate::scratch::Scratch;
use crate::scratch::within::Within;
use crate::tree::size_classes::{BLOCK, SizeHistogram};
use crate::tree::survey::Survey;

use super::miniature;
use super::model::MINIATURE;

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

/// The sets as generated: (name, directories, files per directory, size of file `i`).
type Recipe = (&'static str, u64, u64, fn(u64, &mut fastrand::Rng) -> u64);

const RECIPES: [Recipe; 5] = [
    ("empty", 0, 0, |_, _| 0),
    ("dirs", 400, 0, |_, _| 0),
    ("tiny", 40, 40, |_, rng| rng.u64(1..3000)),
    ("aligned", 12, 50, |_, rng| rng.u64(1..=16) * BLOCK),
    ("large", 1, 4, |_, _| 12_000_000),
];

/// The sets' file sizes and bytes, and the miniature's layout, are random but the same on
/// every run (for the same source shape).
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

impl Sets {
    /// The calibration sets, the miniature left out.
    pub fn calibration_sets(&self) -> usize {
        self.sets
            .iter()
            .filter(|(shape, _)| shape.name != MINIATURE)
            .count()
    }

    /// The miniature, where the source has one.
    pub fn miniature(&self) -> Option<&Shape> {
        self.sets
            .iter()
            .map(|(shape, _)| shape)
            .find(|shape| shape.name == MINIATURE)
    }
}

/// Writes the calibration sets into a scratch directory in `source_dir`, and the miniature of
/// the surveyed source where it has one.
pub fn make_sets(source_dir: &Path, source: &Survey) -> Result<Sets> {
    let miniature = miniature::layout(
        &miniature::Source {
            histogram: &source.histogram,
            // The root exists at the destination already.
            dirs: source.dirs.saturating_sub(1),
            symlinks: source.symlinks,
            sample: &source.dir_sample,
        },
        SEED,
    );
    let area = Scratch::create(source_dir)?;
    let mut within = Within::new(&area);
    let mut rng = fastrand::Rng::with_seed(SEED);
    let mut sets = Vec::new();
    for &(name, dirs, per_dir, size) in &RECIPES {
        let root = area.path().join(name);
        let io = |e| Error::io(format!("writing the calibration set {}", root.display()), e);
        within.dir(Path::new(name)).map_err(io)?;
        let mut shape = Shape {
            name,
            dirs,
            sizes: SizeHistogram::default(),
            symlinks: 0,
        };
        for d in 0..dirs {
            // Two levels, as real trees nest: a directory of 20 subdirectories each.
            let dir = Path::new(name)
                .join(format!("g{}", d / 20))
                .join(format!("d{d}"));
            for f in 0..per_dir {
                let len = size(f, &mut rng);
                let data: Vec<u8> = (0..len).map(|_| rng.u8(..)).collect();
                within
                    .create(&dir.join(format!("f{f}")))
                    .and_then(|mut file| file.write_all(&data))
                    .map_err(io)?;
                shape.sizes.add(len);
            }
        }
        // The group directories count too.
        shape.dirs += dirs.div_ceil(20);
        sets.push((shape, root));
    }
    if let Some(layout) = miniature {
        let root = area.path().join(MINIATURE);
        let shape = write_miniature(&layout, &mut within, &mut rng)
            .map_err(|e| Error::io(format!("writing the miniature {}", root.display()), e))?;
        sets.push((shape, root));
    }
    // Written back before the first copy: left dirty, the sets go to their own disk 30 s
    // later (the kernel's dirty expiry), in the middle of the copies, which then pay for the
    // source's writeback.
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
    layout: &miniature::Layout,
    within: &mut Within<'_>,
    rng: &mut fastrand::Rng,
) -> std::io::Result<Shape> {
    let mut dirs = vec![PathBuf::from(MINIATURE)];
    within.dir(&dirs[0])?;
    for (i, &parent) in layout.parents.iter().enumerate() {
        // Names as long as real ones: a directory's entries take the room they take in a tree.
        let dir = dirs[parent].join(format!("directory-{i:05}"));
        within.dir(&dir)?;
        dirs.push(dir);
    }
    for (i, &(dir, len)) in layout.files.iter().enumerate() {
        let data: Vec<u8> = (0..len).map(|_| rng.u8(..)).collect();
        within
            .create(&dirs[dir].join(format!("file-{i:05}.data")))?
            .write_all(&data)?;
    }
    for (i, &dir) in layout.symlinks.iter().enumerate() {
        within.symlink(
            &dirs[dir].join(format!("link-{i:05}")),
            std::ffi::OsStr::new("."),
        )?;
    }
    Ok(Shape {
        name: MINIATURE,
        dirs: layout.parents.len() as u64,
        sizes: layout.files.iter().map(|&(_, size)| size).collect(),
        symlinks: layout.symlinks.len() as u64,
    })
}
