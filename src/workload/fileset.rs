//! File sets: the many-files shape of real backups, generated deterministically from a seed.
//!
//! A set is a tree of nested directories (each holding 10 to 1000 entries) with files of
//! incompressible content. Sizes follow the set's distribution:
//! - `small`: 1 KiB to 100 KiB, log-uniform (most files near the bottom, as in home folders);
//! - `medium`: 100 KiB to 10 MiB, log-uniform;
//! - `large`: 10 MiB to 1 GiB (capped by the size cap), log-uniform;
//! - `mixed`: the AirPort test's "600 MB mix of files from under 1 KB to over 200 MB": one file
//!   of a third of the set (over 200 MB at the default 600 MB), the rest log-uniform from 100 B to
//!   16 MiB, so most files are small and most bytes sit in a few large files.
//!
//! Generation streams: nothing proportional to the file count is kept in memory.

use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::time::{Duration, SystemTime};

use super::DataStamper;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SetKind {
    Small,
    Medium,
    Large,
    Mixed,
}

impl SetKind {
    pub const ALL: [SetKind; 4] = [
        SetKind::Small,
        SetKind::Medium,
        SetKind::Large,
        SetKind::Mixed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SetKind::Small => "small",
            SetKind::Medium => "medium",
            SetKind::Large => "large",
            SetKind::Mixed => "mixed",
        }
    }

    /// The size range of the set's files (before the cap).
    pub fn range(self) -> (u64, u64) {
        match self {
            SetKind::Small => (1 << 10, 100 << 10),
            SetKind::Medium => (100 << 10, 10 << 20),
            SetKind::Large => (10 << 20, 1 << 30),
            SetKind::Mixed => (100, 16 << 20),
        }
    }
}

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SetSpec {
    pub kind: SetKind,
    /// Stop once this many bytes are in the set.
    pub total_bytes: u64,
    /// Or once this many files are (whichever comes first).
    pub max_files: u64,
    /// No file is larger than this.
    pub size_cap: u64,
    pub seed: u64,
}

/// What was generated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct SetSummary {
    pub files: u64,
    pub dirs: u64,
    pub bytes: u64,
    pub largest: u64,
}

/// A fixed modification time for generated files (2020-01-01), so a copy that keeps mtimes can
/// be told from one that does not.
pub const GENERATED_MTIME: Duration = Duration::from_secs(1_577_836_800);

/// Draws file sizes for a set.
pub struct SizeSampler {
    kind: SetKind,
    cap: u64,
    rng: fastrand::Rng,
    big_file_pending: Option<u64>,
}

impl SizeSampler {
    pub fn new(spec: &SetSpec) -> Self {
        let big = (spec.kind == SetKind::Mixed).then(|| (spec.total_bytes / 3).min(spec.size_cap));
        SizeSampler {
            kind: spec.kind,
            cap: spec.size_cap,
            rng: fastrand::Rng::with_seed(spec.seed),
            big_file_pending: big.filter(|&b| b > 0),
        }
    }

    pub fn next_size(&mut self) -> u64 {
        if let Some(big) = self.big_file_pending.take() {
            return big;
        }
        let (low, high) = self.kind.range();
        let high = high.min(self.cap).max(low.min(self.cap));
        let low = low.min(high);
        let (ln_low, ln_high) = ((low as f64).ln(), (high as f64).ln());
        let size = (ln_low + self.rng.f64() * (ln_high - ln_low)).exp();
        (size as u64).clamp(low, high)
    }
}

/// Generates the set under `root` (which must exist and be empty): nested directories of 10 to
/// 1000 entries, files of incompressible data with mode 0644 and the fixed [`GENERATED_MTIME`].
pub fn generate(spec: &SetSpec, root: &Path) -> io::Result<SetSummary> {
    let mut sizes = SizeSampler::new(spec);
    let mut rng = fastrand::Rng::with_seed(spec.seed ^ 0x5eed_d1f5);
    let mut stamper = DataStamper::new(spec.seed);
    let mut buffer = vec![0u8; 1 << 20];
    stamper.fill(&mut buffer);
    let mut summary = SetSummary::default();
    // Directories are filled depth-first; each gets 10..=1000 entries, some of them
    // subdirectories, so the tree has both wide and nested parts.
    let mut stack: Vec<(std::path::PathBuf, u32)> = vec![(root.to_path_buf(), 0)];
    let mut next_dir = 0u64;
    while let Some((dir, depth)) = stack.pop() {
        let entries = rng.u32(10..=1000);
        let subdirs = if depth < 4 { rng.u32(0..=3) } else { 0 };
        for i in 0..entries.saturating_sub(subdirs) {
            if summary.bytes >= spec.total_bytes || summary.files >= spec.max_files {
                return Ok(summary);
            }
            let size = sizes
                .next_size()
                .min(spec.total_bytes - summary.bytes)
                .max(1);
            write_file(
                &dir.join(format!("f{i:04}.bin")),
                size,
                &mut stamper,
                &mut buffer,
            )?;
            summary.files += 1;
            summary.bytes += size;
            summary.largest = summary.largest.max(size);
        }
        for _ in 0..subdirs {
            let sub = dir.join(format!("d{next_dir:05}"));
            next_dir += 1;
            fs::create_dir(&sub)?;
            summary.dirs += 1;
            stack.push((sub, depth + 1));
        }
        if stack.is_empty() && summary.bytes < spec.total_bytes && summary.files < spec.max_files {
            // The tree ran out of directories before the set was full: start another branch.
            let sub = root.join(format!("d{next_dir:05}"));
            next_dir += 1;
            fs::create_dir(&sub)?;
            summary.dirs += 1;
            stack.push((sub, 1));
        }
    }
    Ok(summary)
}

fn write_file(
    path: &Path,
    size: u64,
    stamper: &mut DataStamper,
    buffer: &mut [u8],
) -> io::Result<()> {
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .open(path)?;
    let mut left = size;
    while left > 0 {
        let n = left.min(buffer.len() as u64) as usize;
        stamper.stamp(&mut buffer[..n]);
        file.write_all(&buffer[..n])?;
        left -= n as u64;
    }
    file.set_permissions(fs::Permissions::from_mode(0o644))?;
    let mtime = SystemTime::UNIX_EPOCH + GENERATED_MTIME;
    file.set_times(fs::FileTimes::new().set_modified(mtime).set_accessed(mtime))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(kind: SetKind, total: u64) -> SetSpec {
        SetSpec {
            kind,
            total_bytes: total,
            max_files: u64::MAX,
            size_cap: 1 << 30,
            seed: 3,
        }
    }

    #[test]
    fn sizes_stay_in_range() {
        for kind in [SetKind::Small, SetKind::Medium, SetKind::Large] {
            let mut s = SizeSampler::new(&spec(kind, 1 << 40));
            let (low, high) = kind.range();
            for _ in 0..10_000 {
                let size = s.next_size();
                assert!((low..=high).contains(&size), "{kind}: {size}");
            }
        }
    }

    #[test]
    fn mixed_has_one_big_file_and_mostly_small_ones() {
        let mut s = SizeSampler::new(&spec(SetKind::Mixed, 600_000_000));
        assert_eq!(
            s.next_size(),
            200_000_000,
            "one file of a third of the set, over 200 MB"
        );
        let rest: Vec<u64> = (0..10_000).map(|_| s.next_size()).collect();
        let small = rest.iter().filter(|&&x| x < 64 << 10).count();
        assert!(small > rest.len() / 2, "most files are small: {small}");
        assert!(rest.iter().any(|&x| x < 1000), "some under 1 KB");
    }

    #[test]
    fn size_cap_limits_large_files() {
        let mut s = SizeSampler::new(&SetSpec {
            size_cap: 20 << 20,
            ..spec(SetKind::Large, 1 << 40)
        });
        assert!((0..1000).all(|_| s.next_size() <= 20 << 20));
    }

    #[test]
    fn generation_is_deterministic_and_nested() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let spec = SetSpec {
            max_files: 3000,
            ..spec(SetKind::Small, 1 << 40)
        };
        let sa = generate(&spec, a.path()).unwrap();
        let sb = generate(&spec, b.path()).unwrap();
        assert_eq!(sa, sb);
        assert_eq!(sa.files, 3000);
        assert!(sa.dirs >= 1, "nested directories: {sa:?}");
        let meta = fs::metadata(a.path().join("f0000.bin")).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o644);
        assert_eq!(
            meta.modified().unwrap(),
            SystemTime::UNIX_EPOCH + GENERATED_MTIME
        );
        let content_a = fs::read(a.path().join("f0001.bin")).unwrap();
        let content_b = fs::read(b.path().join("f0001.bin")).unwrap();
        assert_eq!(content_a, content_b);
    }
}
