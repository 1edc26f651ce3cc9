//! What a variant does, as data: the shape of its I/O. The runner runs it, the run document
//! records it with every result, and the reports and the verdict select results by it; a
//! variant's name (`SEQ1M-Q8T1`, `small-1t-cache-on`) is rendered from it and never read back.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::{Direction, Pattern, SetKind};

/// The shape of the I/O of one variant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Workload {
    /// Blocks over the shared test file for the profile's duration (CrystalDiskMark style): the
    /// file is written once before the first such test, untimed, and overwritten in place.
    Block {
        direction: Direction,
        pattern: Pattern,
        #[serde(rename = "block_bytes")]
        block: usize,
        #[serde(rename = "queue_depth")]
        depth: usize,
    },
    /// Whole new files, start to end, one after another: each file's rate is timed from create to
    /// durable (write) or from open to last byte (read); the figure is the mean of the files'
    /// rates, as QuickBench averages its 20-100 MB transfers.
    WholeFiles {
        direction: Direction,
        #[serde(rename = "sizes_bytes")]
        sizes: Cow<'static, [u64]>,
        #[serde(rename = "block_bytes")]
        block: usize,
    },
    /// `count` new files of `size` bytes written at once (Time Machine's check): timed from the
    /// first create to the last file durable.
    ManyFiles {
        count: usize,
        #[serde(rename = "size_bytes")]
        size: u64,
    },
    /// A file set copied, restored or deleted by `threads` threads pulling from one queue.
    FileSet {
        op: FileOp,
        set: SetName,
        threads: usize,
    },
    /// Metadata operations on empty files, one thread.
    Meta { op: MetaOp, count: usize },
    /// One new file written from start until the rate is steady or a cap is reached, blocks of
    /// `block` bytes, `depth` in flight (see `stats::steady`).
    Sustained {
        #[serde(rename = "block_bytes")]
        block: usize,
        #[serde(rename = "queue_depth")]
        depth: usize,
    },
    /// The backup-shaped write (sequential, `block` bytes, QD1) beside a foreground reader of
    /// the same device, with and without background I/O priority.
    Throttled {
        #[serde(rename = "block_bytes")]
        block: usize,
    },
    /// Time Machine's backup into a sparse bundle (`tm_pattern`): a first backup of the
    /// block-test file size of user data and an incremental, then a plain copy of the same bytes.
    TmBackup,
}

impl Workload {
    /// The program it starts on the destination, if it starts one.
    pub fn program(&self) -> Option<CopyProgram> {
        match self {
            Workload::FileSet {
                op: FileOp::CopyWith(program) | FileOp::UpdateWith(program),
                ..
            } => Some(*program),
            _ => None,
        }
    }

    /// The variant's name, as `--tests`, the tables and the history show it.
    pub fn name(&self) -> String {
        match self {
            Workload::Block {
                pattern,
                block,
                depth,
                ..
            } => {
                let p = match pattern {
                    Pattern::Sequential => "SEQ",
                    Pattern::Random => "RND",
                };
                format!("{p}{}-Q{depth}T1", size_label(*block))
            }
            Workload::WholeFiles { sizes, .. } => match (sizes.first(), sizes.last()) {
                (Some(a), Some(b)) if a != b => format!("{}-{}MB", a / 1_000_000, b / 1_000_000),
                (Some(a), _) => format!("{}MB", a / 1_000_000),
                _ => "0MB".into(),
            },
            // Time Machine's unit: its "4 KB" files are 4096 bytes.
            Workload::ManyFiles { count, size } => format!("{count}x{}KB", size / 1024),
            Workload::FileSet { op, set, threads } => match op {
                FileOp::Copy { cache_on } => {
                    format!("{set}-{threads}t-cache-{}", on_off(*cache_on))
                }
                FileOp::CopyWith(program) => format!("{set}-{program}"),
                FileOp::UpdateWith(program) => format!("{set}-{program}-update"),
                FileOp::Restore | FileOp::Delete => format!("{set}-{threads}t"),
            },
            Workload::Meta { op, .. } => op.as_str().into(),
            Workload::Sustained { block, depth } => {
                format!("SEQ{}-Q{depth}T1", size_label(*block))
            }
            Workload::Throttled { block } => format!("{}-write-vs-read", size_label(*block)),
            Workload::TmBackup => "sparsebundle".into(),
        }
    }

    /// A file-set variant's name without its thread count (`small-cache-on`): the family whose
    /// 1..N-thread variants form one line of a chart. None for the other variants.
    pub fn family(&self) -> Option<String> {
        match self {
            Workload::FileSet {
                op: FileOp::Copy { cache_on },
                set,
                ..
            } => Some(format!("{set}-cache-{}", on_off(*cache_on))),
            Workload::FileSet {
                op: FileOp::CopyWith(program),
                set,
                ..
            } => Some(format!("{set}-{program}")),
            Workload::FileSet {
                op: FileOp::UpdateWith(program),
                set,
                ..
            } => Some(format!("{set}-{program}-update")),
            Workload::FileSet { set, .. } => Some(set.to_string()),
            _ => None,
        }
    }

    /// The copy of `set` with the write cache on or off, with any thread count.
    pub fn is_copy_of(&self, wanted: SetName, cache: bool) -> bool {
        matches!(self, Workload::FileSet { op: FileOp::Copy { cache_on }, set, .. }
            if *set == wanted && *cache_on == cache)
    }
}

fn on_off(on: bool) -> &'static str {
    if on { "on" } else { "off" }
}

/// A block size as variant names write it: 1048576 -> "1M", 4096 -> "4K", 512 -> "512B".
pub fn size_label(bytes: usize) -> String {
    const MIB: usize = 1 << 20;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{}M", bytes / MIB)
    } else if bytes >= 1024 && bytes.is_multiple_of(1024) {
        format!("{}K", bytes / 1024)
    } else {
        format!("{bytes}B")
    }
}

/// What a file-set test does with the set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileOp {
    /// Copy from the source to the destination. Cache on: buffered writes, one syncfs at the
    /// end inside the timing; cache off: every file fsync'd before its thread moves on.
    Copy { cache_on: bool },
    /// Copy with another program, as a backup tool calls it (`rsync -a`): buffered, one
    /// syncfs at the end inside the timing.
    CopyWith(CopyProgram),
    /// The program run again onto its own unchanged copy of the set: the walk a routine backup
    /// makes over files that did not change (rsync compares each file's size and time).
    UpdateWith(CopyProgram),
    /// Read the copied set back after evicting it from the page cache.
    Restore,
    /// Delete the copied set.
    Delete,
}

impl FileOp {
    pub const ALL: [FileOp; 8] = [
        FileOp::Copy { cache_on: true },
        FileOp::Copy { cache_on: false },
        FileOp::CopyWith(CopyProgram::Cp),
        FileOp::CopyWith(CopyProgram::Rsync),
        FileOp::UpdateWith(CopyProgram::Cp),
        FileOp::UpdateWith(CopyProgram::Rsync),
        FileOp::Restore,
        FileOp::Delete,
    ];

    /// How the run document records it.
    pub fn as_str(self) -> &'static str {
        match self {
            FileOp::Copy { cache_on: true } => "copy-cache-on",
            FileOp::Copy { cache_on: false } => "copy-cache-off",
            FileOp::CopyWith(CopyProgram::Cp) => "copy-with-cp",
            FileOp::CopyWith(CopyProgram::Rsync) => "copy-with-rsync",
            FileOp::UpdateWith(CopyProgram::Cp) => "update-with-cp",
            FileOp::UpdateWith(CopyProgram::Rsync) => "update-with-rsync",
            FileOp::Restore => "restore",
            FileOp::Delete => "delete",
        }
    }
}

/// A program that copies a tree as backups call it, measured by running it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, strum::IntoStaticStr, strum::Display)]
#[strum(serialize_all = "lowercase")]
pub enum CopyProgram {
    /// `cp -a`: one file after another, each file's metadata after its data.
    Cp,
    /// `rsync -a`: into a temporary name, then a rename, through a pipe between its sender and
    /// receiver; what rsnapshot, Back In Time and Timeshift run.
    Rsync,
}

impl CopyProgram {
    /// The program's name, as found on the PATH.
    pub fn program(self) -> &'static str {
        self.into()
    }
}

/// Which file set: a generated one, or the user's `--source` folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SetName {
    Generated(SetKind),
    Source,
}

impl SetName {
    pub const ALL: [SetName; 5] = [
        SetName::Generated(SetKind::Small),
        SetName::Generated(SetKind::Medium),
        SetName::Generated(SetKind::Large),
        SetName::Generated(SetKind::Mixed),
        SetName::Source,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SetName::Generated(kind) => kind.as_str(),
            SetName::Source => "source",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::IntoStaticStr)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum MetaOp {
    Create,
    Stat,
    Rename,
    Delete,
}

impl MetaOp {
    pub const ALL: [MetaOp; 4] = [MetaOp::Create, MetaOp::Stat, MetaOp::Rename, MetaOp::Delete];

    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_workload_reads_back_as_written() {
        let copy = Workload::FileSet {
            op: FileOp::Copy { cache_on: false },
            set: SetName::Generated(SetKind::Small),
            threads: 4,
        };
        let json = serde_json::to_value(&copy).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"kind": "file-set", "op": "copy-cache-off", "set": "small", "threads": 4})
        );
        assert_eq!(serde_json::from_value::<Workload>(json).unwrap(), copy);
        let files = Workload::WholeFiles {
            direction: Direction::Read,
            sizes: Cow::Borrowed(&[20_000_000, 100_000_000]),
            block: 1 << 20,
        };
        let back: Workload = serde_json::from_str(&serde_json::to_string(&files).unwrap()).unwrap();
        assert_eq!((back.name(), back), ("20-100MB".to_string(), files));
    }

    #[test]
    fn names_are_rendered_from_the_shape() {
        let block = |pattern, block, depth| Workload::Block {
            direction: Direction::Write,
            pattern,
            block,
            depth,
        };
        assert_eq!(block(Pattern::Random, 4096, 32).name(), "RND4K-Q32T1");
        assert_eq!(block(Pattern::Sequential, 1 << 20, 8).name(), "SEQ1M-Q8T1");
        assert_eq!(block(Pattern::Sequential, 512, 1).name(), "SEQ512B-Q1T1");
        let many = Workload::ManyFiles {
            count: 500,
            size: 4096,
        };
        assert_eq!(many.name(), "500x4KB");
        assert_eq!(
            Workload::Throttled { block: 1 << 20 }.name(),
            "1M-write-vs-read"
        );
    }
}
