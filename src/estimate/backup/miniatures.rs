//! The miniatures a backup tool runs on: the source's own files, copied, so the tool meets the
//! source's compressibility, duplicates and size mix. Each takes a share of the files of every
//! size class of the survey, evenly along the walk (systematic sampling: the i-th file of a
//! class is taken when its running share passes a whole number), at its path relative to the
//! source, so its directories are the source's; the same share of its symlinks, copied as
//! links to the same targets (a backup tool stores each one, or skips it with a notice: work
//! per link either way); special files are left out. The largest is the biggest share within
//! [`BUDGET`] times the copy tools' miniature budget (files and bytes); the others half and a
//! quarter of it, so the fit sees the time grow.
//!
//! A first backup reads its source cold, the miniatures were just written: [`cool`] drops
//! their pages from the cache before each timed run (and, as root, the machine's caches, so
//! their inodes and directories are read from the disk too, as the source's are).
//!
//! They are written, read back and changed through the scratch's handle ([`Within`]), never
//! by a path a swapped directory could lead elsewhere; the source is read by its path, as the
//! survey reads it.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::estimate::miniature::{MAX_BYTES, MAX_FILES};
use crate::interrupt;
use crate::platform::{self, AsHandleRef};
use crate::scratch::within::{Found, Within};
use crate::tree::size_classes::CLASS_BOUNDS;
use crate::tree::survey::Survey;

/// A backup program starts in about a second (opening its repository, deriving its key), where
/// cp starts in milliseconds, and its first few thousand files cost it more each than the
/// rest (restic's wall time per share of /usr/share/man falls from 3.7 to 2.5 s between 2,000
/// and 16,000 files): its miniatures are this many times the copy tools' budget, so the fit
/// sees its steady pace, not its start.
const BUDGET: u64 = 8;

/// The miniatures' shares of the largest one's.
const SCALES: [f64; 3] = [1.0, 0.5, 0.25];

/// One miniature as written.
#[derive(Debug, Clone, PartialEq)]
pub struct Miniature {
    /// Its path, as the tool is given it.
    pub root: PathBuf,
    /// Its name in the scratch, through which destbench reaches it.
    pub rel: PathBuf,
    pub files: u64,
    pub bytes: u64,
    pub links: u64,
    /// The mean of its files' and bytes' shares of the source's (alike by construction).
    pub share: f64,
}

/// The share of the source the largest miniature takes.
fn largest_share(files: u64, bytes: u64) -> f64 {
    [
        1.0,
        (BUDGET * MAX_FILES) as f64 / files.max(1) as f64,
        (BUDGET * MAX_BYTES) as f64 / bytes.max(1) as f64,
    ]
    .into_iter()
    .fold(f64::INFINITY, f64::min)
}

/// Whether the `i`-th file (from 0) of a class is taken at share `f`: its running share passed
/// a whole number (rounded, so a class of few files gets its nearest count).
pub(super) fn taken(i: u64, f: f64) -> bool {
    ((i + 1) as f64 * f + 0.5).floor() > (i as f64 * f + 0.5).floor()
}

/// Copies the miniatures of the surveyed `source` into `area` (`miniature-0` the largest).
pub fn make(source: &Path, survey: &Survey, area: &mut Within<'_>) -> Result<Vec<Miniature>> {
    let h = &survey.histogram;
    let (total_files, total_bytes) = (h.total_files(), h.total_bytes());
    let top = largest_share(total_files, total_bytes);
    let mut minis: Vec<Miniature> = (0..SCALES.len())
        .map(|k| {
            let rel = PathBuf::from(format!("miniature-{k}"));
            Miniature {
                root: area.path(&rel),
                rel,
                files: 0,
                bytes: 0,
                links: 0,
                share: 0.0,
            }
        })
        .collect();
    for m in &minis {
        area.dir(&m.rel)
            .map_err(|e| Error::io(format!("creating {}", m.root.display()), e))?;
    }
    let mut seen = [0u64; CLASS_BOUNDS.len() + 1];
    let mut links = 0u64;
    walk(source, &mut |relative, entry| {
        let size = match entry {
            Entry::File(size) => size,
            Entry::Link => {
                let i = links;
                links += 1;
                for (m, scale) in minis.iter_mut().zip(SCALES) {
                    if taken(i, top * scale) && link_into(source, relative, (area, &m.rel))? {
                        m.links += 1;
                    }
                }
                return Ok(());
            }
        };
        let class = CLASS_BOUNDS
            .iter()
            .position(|&b| size < b)
            .unwrap_or(CLASS_BOUNDS.len());
        let i = seen[class];
        seen[class] += 1;
        for (m, scale) in minis.iter_mut().zip(SCALES) {
            // A file larger than half the byte budget would be most of a miniature.
            if taken(i, top * scale) && size <= BUDGET * MAX_BYTES / 2 {
                copy_into(source, relative, (area, &m.rel))?;
                m.files += 1;
                m.bytes += size;
            }
        }
        Ok(())
    })?;
    for m in &mut minis {
        m.share = (m.files as f64 / total_files.max(1) as f64
            + m.bytes as f64 / total_bytes.max(1) as f64)
            / 2.0;
    }
    minis.retain(|m| m.files > 0);
    Ok(minis)
}

/// The error of copying `source/relative` into a miniature.
fn copying(source: &Path, relative: &Path) -> impl Fn(io::Error) -> Error {
    let from = source.join(relative);
    move |e| Error::io(format!("copying {} into a miniature", from.display()), e)
}

/// Copies `source/relative` to `relative` in the miniature `mini` of `area`, its directories
/// made as needed.
fn copy_into(source: &Path, relative: &Path, (area, mini): (&mut Within<'_>, &Path)) -> Result<()> {
    let io = copying(source, relative);
    let mut from = fs::File::open(source.join(relative)).map_err(&io)?;
    let mut to = area.create(&mini.join(relative)).map_err(&io)?;
    io::copy(&mut from, &mut to).map_err(&io)?;
    to.flush().map_err(io)
}

/// Makes `relative` in the miniature `mini` of `area` a symlink to where `source/relative`
/// points: whether it was made (a system that refuses symlinks to this user, as Windows may,
/// gets none).
fn link_into(
    source: &Path,
    relative: &Path,
    (area, mini): (&mut Within<'_>, &Path),
) -> Result<bool> {
    let target = fs::read_link(source.join(relative)).map_err(copying(source, relative))?;
    Ok(area
        .symlink(&mini.join(relative), target.as_os_str())
        .is_ok())
}

/// Drops the miniature `m` from the page cache (its data; as root, the machine's clean
/// caches, its inodes and directories too), so the tool reads it cold as a first backup reads
/// its source. Its files are flushed first: only clean pages leave the cache.
pub fn cool(area: &mut Within<'_>, m: &Miniature) -> Result<()> {
    area.walk(&m.rel, &mut |area, rel, found| {
        if let Found::File(_) = found {
            let file = area.open(rel, false)?;
            // A file left in the cache makes the run faster: an optimistic estimate, no error.
            if file.sync_data().is_ok() {
                let _ = platform::evict(file.handle_ref());
            }
        }
        Ok(())
    })
    .map_err(|e| Error::io(format!("reading {}", m.root.display()), e))?;
    interrupt::check()?;
    if platform::is_root() {
        let _ = platform::drop_caches().and_then(|()| platform::drop_inode_caches());
    }
    Ok(())
}

/// What a walk found: a regular file of this size, or a symlink.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Entry {
    File(u64),
    Link,
}

/// Calls `visit` with every regular file's and symlink's path relative to `root`, in the order of a
/// walk that follows no symlink and stays on `root`'s filesystem, directories sorted by name
/// so the same tree gives the same miniatures. Unreadable directories are the survey's to
/// report; the walk skips them.
fn walk(root: &Path, visit: &mut dyn FnMut(&Path, Entry) -> Result<()>) -> Result<()> {
    let device = fs::symlink_metadata(root)
        .map_err(|e| Error::io(format!("reading {}", root.display()), e))
        .map(|meta| platform::device_of(&meta))?;
    let mut pending = vec![PathBuf::new()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = fs::read_dir(root.join(&dir)) else {
            continue;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| std::cmp::Reverse(e.file_name()));
        for entry in entries {
            let Ok(meta) = entry.metadata() else { continue };
            let relative = dir.join(entry.file_name());
            if platform::device_of(&meta) != device {
                continue;
            }
            if meta.is_dir() {
                pending.push(relative);
            } else if meta.is_file() {
                visit(&relative, Entry::File(meta.len()))?;
            } else if meta.is_symlink() {
                visit(&relative, Entry::Link)?;
            }
        }
        interrupt::check()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Systematic sampling takes the nearest whole share of a class, evenly spread.
    #[test]
    fn a_class_gives_its_share_evenly() {
        let picks: Vec<u64> = (0..100).filter(|&i| taken(i, 0.1)).collect();
        assert_eq!(picks.len(), 10);
        assert!(picks.windows(2).all(|w| w[1] - w[0] == 10), "{picks:?}");
        assert_eq!((0..3).filter(|&i| taken(i, 0.1)).count(), 0);
        assert_eq!((0..7).filter(|&i| taken(i, 0.1)).count(), 1);
        assert_eq!((0..5).filter(|&i| taken(i, 1.0)).count(), 5);
    }

    /// A small tree is taken whole: its files, and its symlinks as links to the same targets
    /// (a dangling one too). Unix: Windows lets only some users make symlinks.
    #[cfg(unix)]
    #[test]
    fn a_miniature_holds_the_source_s_symlinks() {
        let (source, area) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let dir = source.path().join("man1");
        fs::create_dir(&dir).unwrap();
        for i in 0..6 {
            fs::write(dir.join(format!("f{i}")), vec![b'x'; 100 * i]).unwrap();
        }
        platform::symlink(Path::new("f1"), &dir.join("link")).unwrap();
        platform::symlink(Path::new("../gone"), &source.path().join("dangling")).unwrap();
        let survey = crate::tree::survey::survey(source.path(), 1, false).unwrap();
        let scratch = crate::scratch::Scratch::create(area.path()).unwrap();
        let mut within = Within::new(&scratch);
        let minis = make(source.path(), &survey, &mut within).unwrap();
        let m = &minis[0];
        assert_eq!((m.files, m.links, m.share), (6, 2, 1.0));
        let link = |name: &str| fs::read_link(m.root.join(name)).unwrap();
        assert_eq!(link("man1/link"), Path::new("f1"));
        assert_eq!(link("dangling"), Path::new("../gone"));
        assert_eq!(fs::read(m.root.join("man1/f3")).unwrap().len(), 300);
        // Cooled through the scratch's handle, its files intact.
        cool(&mut within, m).unwrap();
        assert_eq!(fs::read(m.root.join("man1/f5")).unwrap().len(), 500);
    }

    /// The largest share keeps to both budgets, and a small tree is taken whole.
    #[test]
    fn the_largest_share_keeps_to_the_budgets() {
        assert_eq!(largest_share(100, 1000), 1.0);
        assert!((largest_share(4 * BUDGET * MAX_FILES, 1000) - 0.25).abs() < 1e-12);
        assert!((largest_share(10, 4 * BUDGET * MAX_BYTES) - 0.25).abs() < 1e-12);
    }
}
