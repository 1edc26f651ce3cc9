//! A uniform sample of a tree's directories with their files' sizes, for the estimate's
//! miniature: a real tree groups its files by directory (a directory of sources, one of
//! images), and over a share that pipelines, a run of small files costs round trips while a
//! run of large ones keeps the link busy; the same sizes shuffled over the directories copied
//! 8% faster over the testbed's 100 Mbit/s share (docs/estimate.md).
//!
//! The sample is the bottom-k of a hash of each directory's path: the same directories
//! whatever order the survey's threads list them in, so one tree gives one miniature; parts
//! listed by different threads merge by keeping the smallest hashes.

use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;

/// Directories kept: more than a miniature of [`crate::estimate`]'s file budget takes
/// (about one directory per six files in real trees).
const DIRS: usize = 2048;
/// Sizes kept per directory: a larger directory keeps an even stride of its files (and its
/// count), so the sample stays within a few megabytes whatever the tree.
const SIZES_PER_DIR: usize = 256;

/// Sampled directories by their path's hash, each with its regular files' sizes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DirSample {
    dirs: BTreeMap<u64, SampledDir>,
}

/// One sampled directory: an even stride of its files' sizes, and how many files it has.
#[derive(Debug, Clone, PartialEq)]
pub struct SampledDir {
    pub sizes: Vec<u64>,
    pub files: u64,
}

impl DirSample {
    /// Offers the directory at `rel` (relative to the tree's root) with its files' `sizes`.
    pub fn offer(&mut self, rel: &Path, mut sizes: Vec<u64>) {
        let mut hasher = DefaultHasher::new();
        rel.hash(&mut hasher);
        let key = hasher.finish();
        if self.dirs.len() >= DIRS && self.dirs.last_key_value().is_some_and(|(&k, _)| key >= k) {
            return;
        }
        let files = sizes.len() as u64;
        if sizes.len() > SIZES_PER_DIR {
            let stride = sizes.len().div_ceil(SIZES_PER_DIR);
            sizes = sizes.into_iter().step_by(stride).collect();
        }
        self.insert(key, SampledDir { sizes, files });
    }

    pub fn merge(&mut self, other: DirSample) {
        for (key, dir) in other.dirs {
            self.insert(key, dir);
        }
    }

    fn insert(&mut self, key: u64, dir: SampledDir) {
        self.dirs.insert(key, dir);
        if self.dirs.len() > DIRS {
            self.dirs.pop_last();
        }
    }

    /// The sampled directories, in an order that is random but the same for every survey of
    /// the tree.
    pub fn dirs(&self) -> impl Iterator<Item = &SampledDir> {
        self.dirs.values()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sample is the same whatever order directories are offered in and however they
    /// were split between parts; it keeps at most `DIRS`, and a large directory's stride.
    #[test]
    fn the_sample_is_the_same_in_any_order_and_bounded() {
        let offers: Vec<(String, Vec<u64>)> = (0..3000)
            .map(|i| (format!("d{i}/e"), vec![i as u64; i % 7]))
            .collect();
        let mut forward = DirSample::default();
        for (rel, sizes) in &offers {
            forward.offer(Path::new(rel), sizes.clone());
        }
        let (mut odd, mut even) = (DirSample::default(), DirSample::default());
        for (i, (rel, sizes)) in offers.iter().enumerate().rev() {
            let part = if i % 2 == 0 { &mut even } else { &mut odd };
            part.offer(Path::new(rel), sizes.clone());
        }
        odd.merge(even);
        assert_eq!(forward, odd);
        assert_eq!(forward.dirs().count(), DIRS);
        let mut big = DirSample::default();
        big.offer(Path::new("big"), (0..1000).collect());
        let dir = big.dirs().next().unwrap();
        assert_eq!((dir.files, dir.sizes.len()), (1000, 250));
    }
}
