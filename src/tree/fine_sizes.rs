//! A tree's file sizes in narrow bins, beside the survey's coarse classes: for the sums over
//! every file's size that the classes are too coarse for (the estimate's overlap,
//! `SizeHistogram::bytes_beyond`).

/// Files and bytes in bins a quarter of an octave wide (bin `4o + q` holds the sizes from
/// `(4 + q) × 2^o / 4` up to the next bin's; sizes 0 and 1 share bin 0): any sum over the sizes
/// that changes smoothly with the size is known within a few percent, at 2 × 8 bytes a bin.
/// The class bounds (powers of two) fall on bin edges.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FineSizes {
    pub files: Vec<u64>,
    pub bytes: Vec<u64>,
}

impl FineSizes {
    fn bin(size: u64) -> usize {
        let x = size.max(1);
        let octave = 63 - x.leading_zeros() as usize;
        let quarter = if octave >= 2 {
            (x >> (octave - 2)) & 3
        } else {
            (x << (2 - octave)) & 3
        };
        4 * octave + quarter as usize
    }

    /// The smallest size of bin `k`.
    pub(super) fn low(k: usize) -> u64 {
        let (octave, quarter) = (k / 4, (k % 4) as u64);
        if k == 0 {
            0
        } else if octave >= 2 {
            (4 + quarter) << (octave - 2)
        } else {
            (4 + quarter) >> (2 - octave)
        }
    }

    pub(super) fn add(&mut self, size: u64) {
        let k = Self::bin(size);
        if self.files.len() <= k {
            self.files.resize(k + 1, 0);
            self.bytes.resize(k + 1, 0);
        }
        self.files[k] += 1;
        self.bytes[k] += size;
    }

    pub(super) fn merge(&mut self, other: &FineSizes) {
        if self.files.len() < other.files.len() {
            self.files.resize(other.files.len(), 0);
            self.bytes.resize(other.files.len(), 0);
        }
        for (k, (&f, &b)) in other.files.iter().zip(&other.bytes).enumerate() {
            self.files[k] += f;
            self.bytes[k] += b;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::tree::size_classes::SizeHistogram;

    /// Each file's bytes beyond a size, summed: exact where no bin straddles the size, within
    /// the class a file falls in, and the same after a merge.
    #[test]
    fn bytes_beyond_a_size_per_file() {
        let sizes = [0u64, 1, 3, 100, 4095, 4096, 5000, 70_000, 1 << 20, 3 << 20];
        let mut h = SizeHistogram::default();
        let mut halves = (SizeHistogram::default(), SizeHistogram::default());
        for (i, &size) in sizes.iter().enumerate() {
            h.add(size);
            if i % 2 == 0 {
                &mut halves.0
            } else {
                &mut halves.1
            }
            .add(size);
        }
        halves.0.merge(&halves.1);
        assert_eq!(halves.0, h);
        let exact = |skip: u64, range: (u64, Option<u64>)| -> f64 {
            sizes
                .iter()
                .filter(|&&s| s >= range.0 && range.1.is_none_or(|high| s < high))
                .map(|&s| s.saturating_sub(skip) as f64)
                .sum()
        };
        let all = (0, None);
        assert_eq!(h.bytes_beyond(0.0, all), h.total_bytes() as f64);
        // 2048 and 65536 are bin edges: no bin straddles them.
        for skip in [2048, 65536] {
            assert_eq!(h.bytes_beyond(skip as f64, all), exact(skip, all), "{skip}");
        }
        for class in 0..h.files.len() {
            let range = SizeHistogram::class_range(class);
            assert_eq!(h.bytes_beyond(0.0, range), h.bytes[class] as f64, "{class}");
        }
    }
}
