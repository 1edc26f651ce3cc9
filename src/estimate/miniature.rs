//! The miniature: the source tree's own shape at a small scale, copied by the tool beside the
//! calibration sets. The model is fitted to the sets, whose shapes separate its costs; a real
//! tree's files and directories then interact in ways no set shows on its own (over a share
//! that pipelines, a directory's round trips go on while earlier files' bytes are still on the
//! link; on a disk, a real tree's directories and mixed sizes cost ext4 more metadata than the
//! sets'). The miniature's copy, timed like the sets', says how far the model is off for a tree
//! of this shape on this destination and with this tool (`model::miniature`).
//!
//! It has a fraction of the source's files, with the source's size distribution (its fine
//! histogram, by systematic sampling so every part of the distribution is kept in proportion),
//! grouped as the source groups them: whole directories of the survey's sample of directories,
//! each with its own files, until they hold the fraction's files or bytes (over the testbed's
//! share the same sizes shuffled over the directories copied 8% faster, and the estimate came
//! out 10% under the real `cp -a`). Files too large for that are taken by the histogram and
//! placed at random; the directories nest as a random recursive tree (depth growing with the
//! logarithm of their number, as real trees do). The fraction is the largest within
//! [`MAX_FILES`] and [`MAX_BYTES`], so the miniature costs a few seconds at most over a
//! 100 Mbit/s share.

use crate::tree::dir_sample::DirSample;
use crate::tree::size_classes::SizeHistogram;

/// At most this many files: about 3 s of per-file costs over a 100 Mbit/s sshfs share.
pub const MAX_FILES: u64 = 2_000;
/// At most this many bytes: about 3 s at 100 Mbit/s, under 1 s on a 40 MB/s disk.
pub const MAX_BYTES: u64 = 32 << 20;

/// What the miniature holds and where.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// The scale: the miniature's share of the source's files, directories and bytes.
    pub fraction: f64,
    /// Directory `i + 1`'s parent (0 is the miniature's root).
    pub parents: Vec<usize>,
    /// Each file's directory (0 the root) and size.
    pub files: Vec<(usize, u64)>,
    /// Each symlink's directory.
    pub symlinks: Vec<usize>,
}

/// The source as the miniature scales it: its files' sizes, its directories below its root and
/// its symlinks, and a sample of its directories with their files (`tree::dir_sample`).
pub struct Source<'s> {
    pub histogram: &'s SizeHistogram,
    pub dirs: u64,
    pub symlinks: u64,
    pub sample: &'s DirSample,
}

/// The miniature of `source`; None for a tree with nothing to scale (no files, directories or
/// links within the budget).
pub fn layout(source: &Source<'_>, seed: u64) -> Option<Layout> {
    let files = source.histogram.total_files();
    let bytes = source.histogram.total_bytes();
    let fraction = [
        1.0,
        MAX_FILES as f64 / files.max(1) as f64,
        MAX_BYTES as f64 / bytes.max(1) as f64,
    ]
    .into_iter()
    .fold(f64::INFINITY, f64::min);
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut sizes = sample_sizes(source.histogram, fraction);
    rng.shuffle(&mut sizes);
    let (large, small): (Vec<u64>, Vec<u64>) = sizes.into_iter().partition(|&s| s > LARGE);
    let least_dirs = (fraction * source.dirs as f64).round() as usize;
    let mut grouped = grouped(source.sample, &small);
    let link_count = (fraction * source.symlinks as f64).round() as usize;
    if small.is_empty() && large.is_empty() && least_dirs == 0 && link_count == 0 {
        return None;
    }
    // What the sample could not hold (a tree of many more directories than files) is placed
    // at random, over the directories' share.
    let rest = if grouped.full {
        &[][..]
    } else {
        &small[grouped.files.len()..]
    };
    let dir_count = if rest.is_empty() && grouped.dirs > 0 {
        grouped.dirs
    } else {
        grouped.dirs.max(least_dirs)
    };
    let mut place = || rng.usize(0..=dir_count);
    let placed: Vec<(usize, u64)> = rest.iter().chain(&large).map(|&s| (place(), s)).collect();
    grouped.files.extend(placed);
    let symlinks = (0..link_count).map(|_| place()).collect();
    // A random recursive tree: each directory's parent is any directory made before it.
    let parents: Vec<usize> = (1..=dir_count).map(|i| rng.usize(0..i)).collect();
    Some(Layout {
        fraction,
        parents,
        files: grouped.files,
        symlinks,
    })
}

/// A file larger than this is taken by the histogram's rule alone (`sample_sizes`): one such
/// file in a sampled directory could otherwise be most of the miniature.
const LARGE: u64 = MAX_BYTES / 8;

/// Files grouped as the source groups them, the directories they fill (1 on), and whether
/// they reached the files or bytes wanted.
struct Grouped {
    files: Vec<(usize, u64)>,
    dirs: usize,
    full: bool,
}

/// The sampled directories' small files, each directory whole and in the sample's order, until
/// they hold as many files or bytes as `small` (the histogram's share of small files): each
/// sampled directory becomes one of the miniature's, so its files stay together. A directory
/// sampled by stride stands for all its files.
fn grouped(sample: &DirSample, small: &[u64]) -> Grouped {
    let (want_files, want_bytes) = (small.len(), small.iter().sum::<u64>());
    let (mut files, mut bytes, mut dirs) = (Vec::new(), 0u64, 0usize);
    let full = |files: &Vec<(usize, u64)>, bytes| files.len() >= want_files || bytes >= want_bytes;
    for dir in sample.dirs() {
        if full(&files, bytes) {
            break;
        }
        dirs += 1;
        let each = dir.files.div_ceil(dir.sizes.len().max(1) as u64);
        let stood_for = dir
            .sizes
            .iter()
            .flat_map(|&s| std::iter::repeat_n(s, each as usize));
        let room = want_files - files.len();
        let small = stood_for.take(dir.files as usize).filter(|&s| s <= LARGE);
        for size in small.take(room) {
            files.push((dirs, size));
            bytes += size;
        }
    }
    let full = full(&files, bytes);
    Grouped { files, dirs, full }
}

/// `fraction` of the files of each fine bin, at the bin's mean size: systematic sampling (the
/// fractional remainder carried from bin to bin), so a bin of few files is still represented
/// in proportion across its neighbours. A file larger than an eighth of the byte budget is
/// taken only where the fraction asks for a whole one, never on a carried remainder: one
/// file could otherwise be most of the miniature.
fn sample_sizes(histogram: &SizeHistogram, fraction: f64) -> Vec<u64> {
    let fine = &histogram.fine;
    let mut carry = 0.0;
    let mut sizes = Vec::new();
    for (&files, &bytes) in fine.files.iter().zip(&fine.bytes) {
        if files == 0 {
            continue;
        }
        let mean = bytes / files;
        let wanted = fraction * files as f64;
        let take = if mean > LARGE {
            wanted.floor()
        } else {
            let with_carry = wanted + carry;
            carry = with_carry - with_carry.floor();
            with_carry.floor()
        };
        sizes.extend(std::iter::repeat_n(mean, take as usize));
    }
    sizes
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// The miniature of a tree of `h`'s files, `dirs` directories and `links` symlinks, with
    /// no sample of its directories.
    fn layout_of(h: &SizeHistogram, dirs: u64, links: u64) -> Option<Layout> {
        layout(
            &Source {
                histogram: h,
                dirs,
                symlinks: links,
                sample: &DirSample::default(),
            },
            1,
        )
    }

    /// `count` files of each `size` in `(size, count)`.
    fn histogram(sizes: &[(u64, u64)]) -> SizeHistogram {
        let counts: Vec<(u64, u64)> = sizes.iter().map(|&(size, count)| (count, size)).collect();
        SizeHistogram::of_counts(&counts)
    }

    /// A tree of /usr/include's shape (8,000 files, 120 MB, 850 directories) is scaled to the
    /// file budget, keeping its mix of sizes, its mean size and its files per directory.
    #[test]
    fn a_large_tree_keeps_its_shape_at_the_file_budget() {
        let h = histogram(&[(500, 3000), (3000, 2000), (20_000, 2500), (150_000, 500)]);
        let p = layout_of(&h, 850, 40).unwrap();
        assert!((p.fraction - 0.25).abs() < 1e-9, "{}", p.fraction);
        assert_eq!(p.files.len(), 2000);
        assert_eq!(p.parents.len(), 213);
        assert_eq!(p.symlinks.len(), 10);
        let count = |low: u64, high: u64| {
            p.files
                .iter()
                .filter(|(_, s)| (low..high).contains(s))
                .count()
        };
        assert_eq!(count(0, 1000), 750);
        assert_eq!(count(1000, 4096), 500);
        assert_eq!(count(100_000, 300_000), 125);
        let bytes: u64 = p.files.iter().map(|(_, s)| s).sum();
        let share = bytes as f64 / h.total_bytes() as f64;
        assert!((share - 0.25).abs() < 0.01, "{share}");
        assert!(p.parents.iter().enumerate().all(|(i, &parent)| parent <= i));
        assert!(p.files.iter().all(|&(dir, _)| dir <= 213));
        // Nested: some directory lies at least three levels down.
        let depth = |mut d: usize| {
            let mut n = 0;
            while d > 0 {
                d = p.parents[d - 1];
                n += 1;
            }
            n
        };
        assert!((1..=213).any(|d| depth(d) >= 3));
    }

    /// A few large files are scaled by the byte budget, and one file far beyond it is never
    /// taken on a remainder.
    #[test]
    fn large_files_keep_to_the_byte_budget() {
        let h = histogram(&[(10_000, 100), (4 << 20, 60), (2 << 30, 1)]);
        let p = layout_of(&h, 10, 0).unwrap();
        let bytes: u64 = p.files.iter().map(|(_, s)| s).sum();
        assert!(bytes <= MAX_BYTES, "{bytes}");
        assert!(p.files.iter().all(|&(_, s)| s < 1 << 30));
        assert!(p.files.iter().any(|&(_, s)| s == 4 << 20));
    }

    /// A small tree is its own miniature; an empty one has none.
    #[test]
    fn a_small_tree_is_copied_whole_and_an_empty_one_not_at_all() {
        let h = histogram(&[(100, 3), (5000, 2)]);
        let p = layout_of(&h, 2, 1).unwrap();
        assert_eq!(p.fraction, 1.0);
        let mut sizes: Vec<u64> = p.files.iter().map(|&(_, s)| s).collect();
        sizes.sort();
        assert_eq!(sizes, [100, 100, 100, 5000, 5000]);
        assert_eq!((p.parents.len(), p.symlinks.len()), (2, 1));
        assert_eq!(layout_of(&SizeHistogram::default(), 0, 0), None);
    }

    /// With a sample of the tree's directories, the miniature's directories are sampled ones,
    /// whole: a tree of directories of small files and directories of large ones keeps them
    /// apart, where placing sizes at random would mix them.
    #[test]
    fn sampled_directories_keep_their_files_together() {
        let mut sample = DirSample::default();
        let mut sizes = Vec::new();
        for d in 0..400 {
            let dir: Vec<u64> = if d % 4 == 0 {
                vec![300_000; 3]
            } else {
                vec![2_000; 30]
            };
            sizes.extend(&dir);
            sample.offer(Path::new(&format!("d{d}")), dir);
        }
        let h: SizeHistogram = sizes.iter().copied().collect();
        let source = Source {
            histogram: &h,
            dirs: 400,
            symlinks: 0,
            sample: &sample,
        };
        let p = layout(&source, 1).unwrap();
        assert!(
            (p.fraction - 2000.0 / 9300.0).abs() < 1e-9,
            "{}",
            p.fraction
        );
        let in_dir = |d: usize| p.files.iter().filter(move |f| f.0 == d).map(|f| f.1);
        let dirs = p.parents.len();
        assert!((70..=100).contains(&dirs), "{dirs} directories");
        for d in 1..=dirs {
            let mut sizes: Vec<u64> = in_dir(d).collect();
            sizes.dedup();
            assert!(sizes.len() <= 1, "directory {d} mixes sizes {sizes:?}");
        }
        // Whole directories up to the files or bytes of the tree's share, whichever comes first.
        let bytes: u64 = p.files.iter().map(|f| f.1).sum();
        let share = bytes as f64 / h.total_bytes() as f64 / p.fraction;
        assert!(
            p.files.len() <= 2000 && (0.9..1.1).contains(&share),
            "{share}"
        );
    }
}
