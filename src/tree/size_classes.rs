//! A tree's file sizes in coarse classes: what the estimate needs of a tree and all the survey
//! keeps of it, so memory never grows with the number of files.

use super::fine_sizes::FineSizes;

/// File-size classes the survey counts, by upper bound (exclusive); the last one is open. The
/// bounds are powers of 16 from 4 KiB so each class spans a factor of 16 in size: narrow enough
/// to show where the time goes, few enough to read at a glance.
pub const CLASS_BOUNDS: [u64; 5] = [4 << 10, 64 << 10, 1 << 20, 16 << 20, 256 << 20];

/// The block size of `block_bytes`: ext4's, xfs's and btrfs's default.
pub const BLOCK: u64 = 4096;

/// Files and bytes per size class: what the estimate needs of a tree, and all it keeps.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct SizeHistogram {
    /// `CLASS_BOUNDS.len() + 1` classes: below the first bound, between bounds, and above.
    pub files: [u64; CLASS_BOUNDS.len() + 1],
    pub bytes: [u64; CLASS_BOUNDS.len() + 1],
    /// The sizes rounded up to whole 4 KiB blocks: what a block device writes (the estimate
    /// prices the difference, the slack, as the destination measures it).
    pub block_bytes: [u64; CLASS_BOUNDS.len() + 1],
    /// The same files in narrow bins, for what the classes are too coarse for: the bytes
    /// beyond a given size in each file ([`SizeHistogram::bytes_beyond`]).
    #[serde(skip)]
    pub fine: FineSizes,
}

impl SizeHistogram {
    /// `count` files of each `size` in `(count, size)`: the shape tests describe trees in.
    #[cfg(test)]
    pub(crate) fn of_counts(counts: &[(u64, u64)]) -> SizeHistogram {
        counts
            .iter()
            .flat_map(|&(count, size)| std::iter::repeat_n(size, count as usize))
            .collect()
    }

    pub fn add(&mut self, size: u64) {
        let class = CLASS_BOUNDS
            .iter()
            .position(|&bound| size < bound)
            .unwrap_or(CLASS_BOUNDS.len());
        self.files[class] += 1;
        self.bytes[class] += size;
        self.block_bytes[class] += size.div_ceil(BLOCK) * BLOCK;
        self.fine.add(size);
    }

    pub fn merge(&mut self, other: &SizeHistogram) {
        for class in 0..self.files.len() {
            self.files[class] += other.files[class];
            self.bytes[class] += other.bytes[class];
            self.block_bytes[class] += other.block_bytes[class];
        }
        self.fine.merge(&other.fine);
    }

    /// The sum over the files in `range` (bytes, `None` open above) of each file's bytes beyond
    /// its first `skip`: `Σ max(0, size − skip)`. Exact for the bins wholly above or below
    /// `skip`; the one bin that straddles it is taken at its mean size. `skip` 0 gives the
    /// bytes.
    pub fn bytes_beyond(&self, skip: f64, range: (u64, Option<u64>)) -> f64 {
        let f = &self.fine;
        (0..f.files.len())
            .filter(|&k| {
                let low = FineSizes::low(k);
                low >= range.0 && range.1.is_none_or(|high| low < high)
            })
            .map(|k| (f.bytes[k] as f64 - skip * f.files[k] as f64).max(0.0))
            .sum()
    }

    pub fn total_files(&self) -> u64 {
        self.files.iter().sum()
    }

    pub fn total_bytes(&self) -> u64 {
        self.bytes.iter().sum()
    }

    pub fn total_block_bytes(&self) -> u64 {
        self.block_bytes.iter().sum()
    }

    /// The class's bounds in bytes: `(low, high)`, `high` None for the open last class.
    pub fn class_range(class: usize) -> (u64, Option<u64>) {
        let low = if class == 0 {
            0
        } else {
            CLASS_BOUNDS[class - 1]
        };
        (low, CLASS_BOUNDS.get(class).copied())
    }
}

/// A histogram of these sizes.
impl FromIterator<u64> for SizeHistogram {
    fn from_iter<I: IntoIterator<Item = u64>>(sizes: I) -> Self {
        let mut h = SizeHistogram::default();
        for size in sizes {
            h.add(size);
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_split_at_their_bounds() {
        let mut h = SizeHistogram::default();
        for size in [0, 4095, 4096, (1 << 20) - 1, 1 << 20, 300 << 20] {
            h.add(size);
        }
        assert_eq!(h.files, [2, 1, 1, 1, 0, 1]);
        assert_eq!(
            h.total_bytes(),
            4095 + 4096 + (1 << 20) - 1 + (1 << 20) + (300 << 20)
        );
        assert_eq!(SizeHistogram::class_range(0), (0, Some(4096)));
        assert_eq!(SizeHistogram::class_range(5), (256 << 20, None));
    }
}
