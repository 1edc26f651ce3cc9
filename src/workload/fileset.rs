//! File sets: the many-files shape of real backups, generated deterministically from a seed.
//!
//! `small`, `medium` and `large` are trees of nested directories (each holding 10 to 1000
//! entries) with sizes log-uniform in the set's range:
//! - `small`: 1 KiB to 100 KiB (most files near the bottom, as in home folders);
//! - `medium`: 100 KiB to 10 MiB;
//! - `large`: 10 MiB to 1 GiB (capped by the size cap).
//!
//! `mixed` is a folder of a desktop disk as measured by file-system studies ([`super::desktop`]):
//! lognormal sizes with a median near 4.7 KB, a fifth of the bytes in a few files of 1/16 to
//! 1/4 of the set, in directories of a few files each, nested as real namespaces grow. At 100 MB
//! that is over a thousand files in about a hundred directories; the largest 1% of the files
//! hold about half of the bytes, the largest 2% over 60%.
//!
//! Every set's files are of incompressible content, mode 0644 and a fixed modification time.
//! Generation streams: nothing proportional to the file count is kept in memory (for `mixed`,
//! one index per directory).

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use hdrhistogram::Histogram;

use super::DataStamper;
use super::desktop::{Entry, MixedEntries};
use crate::platform;
use crate::platform::{AsHandleRef, Handle, HandleRef};

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    strum::IntoStaticStr,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
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
        self.into()
    }

    /// The size range of the set's files (before the cap). `mixed` has no fixed top: its
    /// largest files are a quarter of the set.
    pub fn range(self) -> (u64, u64) {
        match self {
            SetKind::Small => (1 << 10, 100 << 10),
            SetKind::Medium => (100 << 10, 10 << 20),
            SetKind::Large => (10 << 20, 1 << 30),
            SetKind::Mixed => (1, u64::MAX),
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
    /// Median and 90th percentile of the file sizes (see [`FileSizes`] for the error bound).
    pub p50: u64,
    pub p90: u64,
}

/// The distribution of a set's file sizes, streamed: what the run document records of every set.
///
/// Error bound: an HDR histogram with 3 significant decimal digits, so a percentile is within
/// 0.1% of the size of some file of the set (exact below 2048 bytes); sizes above 1 PiB count as
/// 1 PiB. The largest size is exact.
#[derive(Clone)]
pub struct FileSizes {
    histogram: Histogram<u64>,
    max: u64,
}

impl Default for FileSizes {
    fn default() -> Self {
        FileSizes {
            histogram: Histogram::new_with_bounds(1, 1 << 50, 3).expect("valid histogram bounds"),
            max: 0,
        }
    }
}

impl std::fmt::Debug for FileSizes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileSizes")
            .field("count", &self.histogram.len())
            .field("max", &self.max)
            .finish()
    }
}

impl FileSizes {
    pub fn record(&mut self, size: u64) {
        self.histogram.saturating_record(size);
        self.max = self.max.max(size);
    }

    pub fn merge(&mut self, other: &FileSizes) {
        self.histogram
            .add(&other.histogram)
            .expect("histograms with the same bounds");
        self.max = self.max.max(other.max);
    }

    #[cfg(test)]
    pub fn count(&self) -> u64 {
        self.histogram.len()
    }

    /// The size at quantile `q` (0.5 for the median); None without files.
    pub fn quantile(&self, q: f64) -> Option<u64> {
        (!self.histogram.is_empty()).then(|| self.histogram.value_at_quantile(q).min(self.max))
    }

    /// The largest size; None without files.
    pub fn max(&self) -> Option<u64> {
        (!self.histogram.is_empty()).then_some(self.max)
    }
}

/// A fixed modification time for generated files (2020-01-01), so a copy that keeps mtimes can
/// be told from one that does not.
pub const GENERATED_MTIME: Duration = Duration::from_secs(1_577_836_800);

/// Draws file sizes for the sets of one range (`small`, `medium`, `large`; `mixed` has its own
/// plan, [`MixedEntries`]).
pub struct SizeSampler {
    kind: SetKind,
    cap: u64,
    rng: fastrand::Rng,
}

impl SizeSampler {
    pub fn new(spec: &SetSpec) -> Self {
        SizeSampler {
            kind: spec.kind,
            cap: spec.size_cap,
            rng: fastrand::Rng::with_seed(spec.seed),
        }
    }

    pub fn next_size(&mut self) -> u64 {
        let (low, high) = self.kind.range();
        let high = high.min(self.cap).max(low.min(self.cap));
        let low = low.min(high);
        let (ln_low, ln_high) = ((low as f64).ln(), (high as f64).ln());
        let size = (ln_low + self.rng.f64() * (ln_high - ln_low)).exp();
        (size as u64).clamp(low, high)
    }
}

/// Generates the set under `root` (which must exist and be empty): files of incompressible
/// data with mode 0644 and the fixed [`GENERATED_MTIME`], in directories shaped by the kind.
#[cfg(test)]
pub fn generate(spec: &SetSpec, root: &Path) -> io::Result<SetSummary> {
    generate_in(spec, platform::open_dir(root)?.handle_ref())
}

/// `generate` in the open directory `root`: every directory and file is made relative to it,
/// never through a symlink, so a directory swapped for a link cannot send a file elsewhere.
pub fn generate_in(spec: &SetSpec, root: HandleRef<'_>) -> io::Result<SetSummary> {
    let mut out = Writer::new(spec.seed, root);
    let root = Path::new("");
    match spec.kind {
        SetKind::Mixed => generate_mixed(spec, root, &mut out)?,
        _ => generate_ranged(spec, root, &mut out)?,
    }
    let mut summary = out.summary;
    summary.p50 = out.sizes.quantile(0.5).unwrap_or(0);
    summary.p90 = out.sizes.quantile(0.9).unwrap_or(0);
    Ok(summary)
}

/// How many files [`generate_in`] makes of `spec`, without making them: a run prices a set's
/// files before it exists (on a share each costs round trips, whatever its bytes).
pub fn files_in(spec: &SetSpec) -> u64 {
    if spec.kind == SetKind::Mixed {
        let plan = MixedEntries::new(spec.total_bytes, spec.max_files, spec.size_cap, spec.seed);
        return plan.filter(|e| matches!(e, Entry::File { .. })).count() as u64;
    }
    // `generate_ranged`'s sizes, drawn in the same order and cut the same way.
    let mut sizes = SizeSampler::new(spec);
    let (mut files, mut bytes) = (0, 0);
    while bytes < spec.total_bytes && files < spec.max_files {
        bytes += sizes.next_size().min(spec.total_bytes - bytes).max(1);
        files += 1;
    }
    files
}

/// Writes the files of a set and counts them.
/// Paths given to it are relative to the set's root, which it reaches through its descriptor.
struct Writer<'a> {
    root: HandleRef<'a>,
    /// The directory files went into last (files mostly come in runs of one directory).
    last_dir: Option<(PathBuf, Handle)>,
    stamper: DataStamper,
    buffer: Vec<u8>,
    summary: SetSummary,
    sizes: FileSizes,
}

impl<'a> Writer<'a> {
    fn new(seed: u64, root: HandleRef<'a>) -> Self {
        let mut stamper = DataStamper::new(seed);
        let mut buffer = vec![0u8; 1 << 20];
        stamper.fill(&mut buffer);
        Writer {
            root,
            last_dir: None,
            stamper,
            buffer,
            summary: SetSummary::default(),
            sizes: FileSizes::default(),
        }
    }

    /// The directory holding `path`, opened beneath the root, and `path`'s name in it.
    fn parent_of<'p>(
        &mut self,
        path: &'p Path,
    ) -> io::Result<(HandleRef<'_>, &'p std::ffi::OsStr)> {
        let parent = path.parent().unwrap_or(Path::new(""));
        let name = path
            .file_name()
            .ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
        if self.last_dir.as_ref().is_none_or(|(p, _)| p != parent) {
            let fd = platform::open_beneath(self.root, parent)?;
            self.last_dir = Some((parent.to_path_buf(), fd));
        }
        let (_, fd) = self.last_dir.as_ref().expect("just opened");
        Ok((fd.handle_ref(), name))
    }

    fn file(&mut self, path: &Path, size: u64) -> io::Result<()> {
        let (dir, name) = self.parent_of(path)?;
        let file = platform::create_in(dir, name, 0o644)?;
        write_file(file, size, &mut self.stamper, &mut self.buffer)?;
        self.summary.files += 1;
        self.summary.bytes += size;
        self.summary.largest = self.summary.largest.max(size);
        self.sizes.record(size);
        Ok(())
    }

    fn dir(&mut self, path: &Path) -> io::Result<()> {
        let (dir, name) = self.parent_of(path)?;
        platform::mkdir_in(dir, name, 0o755)?;
        self.summary.dirs += 1;
        Ok(())
    }
}

/// `mixed`: the entries of a [`MixedEntries`], directories named `dNNNNN` after their index and
/// files `fNNNN.bin` after their place in their directory.
fn generate_mixed(spec: &SetSpec, root: &Path, out: &mut Writer) -> io::Result<()> {
    let plan = MixedEntries::new(spec.total_bytes, spec.max_files, spec.size_cap, spec.seed);
    let mut dirs: Vec<(std::path::PathBuf, u32)> = vec![(root.to_path_buf(), 0)];
    for entry in plan {
        match entry {
            Entry::Dir { parent } => {
                let path = dirs[parent].0.join(format!("d{:05}", dirs.len()));
                out.dir(&path)?;
                dirs.push((path, 0));
            }
            Entry::File { dir, size } => {
                let (path, files) = &mut dirs[dir];
                out.file(&path.join(format!("f{files:04}.bin")), size)?;
                *files += 1;
            }
        }
    }
    Ok(())
}

/// `small`, `medium`, `large`: nested directories of 10 to 1000 entries, sizes from the range.
fn generate_ranged(spec: &SetSpec, root: &Path, out: &mut Writer) -> io::Result<()> {
    let mut sizes = SizeSampler::new(spec);
    let mut rng = fastrand::Rng::with_seed(spec.seed ^ 0x5eed_d1f5);
    let full = |s: &SetSummary| s.bytes >= spec.total_bytes || s.files >= spec.max_files;
    // Directories are filled depth-first; each gets 10..=1000 entries, some of them
    // subdirectories, so the tree has both wide and nested parts.
    let mut stack: Vec<(std::path::PathBuf, u32)> = vec![(root.to_path_buf(), 0)];
    let mut next_dir = 0u64;
    while let Some((dir, depth)) = stack.pop() {
        let entries = rng.u32(10..=1000);
        let subdirs = if depth < 4 { rng.u32(0..=3) } else { 0 };
        for i in 0..entries.saturating_sub(subdirs) {
            if full(&out.summary) {
                return Ok(());
            }
            let size = sizes
                .next_size()
                .min(spec.total_bytes - out.summary.bytes)
                .max(1);
            out.file(&dir.join(format!("f{i:04}.bin")), size)?;
        }
        for _ in 0..subdirs {
            let sub = dir.join(format!("d{next_dir:05}"));
            next_dir += 1;
            out.dir(&sub)?;
            stack.push((sub, depth + 1));
        }
        if stack.is_empty() && !full(&out.summary) {
            // The tree ran out of directories before the set was full: start another branch.
            let sub = root.join(format!("d{next_dir:05}"));
            next_dir += 1;
            out.dir(&sub)?;
            stack.push((sub, 1));
        }
    }
    Ok(())
}

fn write_file(
    mut file: fs::File,
    size: u64,
    stamper: &mut DataStamper,
    buffer: &mut [u8],
) -> io::Result<()> {
    let mut left = size;
    while left > 0 {
        let n = left.min(buffer.len() as u64) as usize;
        stamper.stamp(&mut buffer[..n]);
        file.write_all(&buffer[..n])?;
        left -= n as u64;
    }
    platform::set_mode(&file, 0o644)?;
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
    fn file_sizes_give_percentiles_and_the_exact_largest() {
        let mut sizes = FileSizes::default();
        assert_eq!((sizes.quantile(0.5), sizes.max()), (None, None));
        for size in 1..=100u64 {
            sizes.record(size * 1000);
        }
        let mut other = FileSizes::default();
        other.record(123_456_789);
        sizes.merge(&other);
        assert_eq!(sizes.count(), 101);
        let p50 = sizes.quantile(0.5).unwrap();
        assert!(p50.abs_diff(51_000) <= 51, "{p50}");
        let p90 = sizes.quantile(0.9).unwrap();
        assert!(p90.abs_diff(91_000) <= 91, "{p90}");
        assert_eq!(sizes.max(), Some(123_456_789));
    }

    #[test]
    fn mixed_generation_is_deterministic_nested_and_summarised() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let spec = spec(SetKind::Mixed, 4_000_000);
        let sa = generate(&spec, a.path()).unwrap();
        let sb = generate(&spec, b.path()).unwrap();
        assert_eq!(sa, sb);
        assert_eq!(sa.bytes, 4_000_000);
        assert!(sa.files > 20 && sa.dirs > 2, "{sa:?}");
        assert!(
            sa.p50 > 1000 && sa.p50 < 20_000 && sa.p90 < sa.largest,
            "{sa:?}"
        );
        assert!(
            sa.largest <= 1_000_000,
            "a quarter of the set at most: {sa:?}"
        );
        let survey = crate::tree::survey::survey(a.path(), 1, false).unwrap();
        assert_eq!(survey.histogram.total_files(), sa.files);
        assert_eq!(survey.histogram.total_bytes(), sa.bytes);
        assert_eq!(
            survey.dirs,
            sa.dirs + 1,
            "the root and the set's directories"
        );
        assert_eq!(survey.sizes.quantile(0.5), Some(sa.p50));
        assert_eq!(survey.sizes.max(), Some(sa.largest));
        let first = a.path().join("f0000.bin");
        assert_eq!(
            fs::read(&first).unwrap(),
            fs::read(b.path().join("f0000.bin")).unwrap()
        );
    }

    /// The count a plan prices is the count generated, for every kind, a cap and a limit.
    #[test]
    fn files_in_counts_what_is_generated() {
        let (small, capped) = (spec(SetKind::Small, 3_000_000), 40);
        for spec in [
            small,
            spec(SetKind::Mixed, 4_000_000),
            SetSpec {
                max_files: capped,
                ..small
            },
            spec(SetKind::Small, 0),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let made = generate(&spec, dir.path()).unwrap();
            assert_eq!(files_in(&spec), made.files, "{spec:?}");
        }
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
        assert_eq!(platform::mode_of(&meta) & 0o777, 0o644);
        assert_eq!(
            meta.modified().unwrap(),
            SystemTime::UNIX_EPOCH + GENERATED_MTIME
        );
        let content_a = fs::read(a.path().join("f0001.bin")).unwrap();
        let content_b = fs::read(b.path().join("f0001.bin")).unwrap();
        assert_eq!(content_a, content_b);
    }
}
