//! What a run is asked to do: the validated plan, and what it needs of the destination.

use std::path::PathBuf;
use std::time::Duration;

use crate::engine::EngineChoice;
use crate::error::{Error, Result};
use crate::platform;
use crate::units;
use crate::workload::{Direction, Profile, Variant, Workload};

use super::sets::SetPlan;
use super::throttled;

/// Everything a run needs, validated (see `settings`).
#[derive(Debug, Clone)]
pub struct RunPlan {
    pub destination: PathBuf,
    pub profile: Profile,
    pub variants: Vec<Variant>,
    pub runs: usize,
    /// Size of the block tests' file (a multiple of 1 MiB).
    pub file_size: u64,
    pub block_duration: Duration,
    pub engine: EngineChoice,
    pub engine_name: String,
    /// Never use O_DIRECT (for checking the fallback path on filesystems that accept it).
    pub force_buffered: bool,
    /// May drop the machine's page cache (root only) when per-file eviction fails.
    pub allow_drop_caches: bool,
    /// Refuse to start when the destination reports less free space than the run needs.
    pub check_space: bool,
    /// The file sets of the file-level tests.
    pub file_sets: Vec<SetPlan>,
    /// The user's folder to use as the file set (read-only).
    pub source: Option<PathBuf>,
    /// Where generated file sets are made.
    pub source_dir: PathBuf,
    /// Verify restored files against the source.
    pub verify: bool,
    pub seed: u64,
    pub label: Option<String>,
    /// The longest the sustained test writes (`--time`, else the profile's).
    pub sustained_time: Duration,
    /// The most the sustained test writes (`--size` when given, else the profile's); never more
    /// than the free space leaves.
    pub sustained_size: u64,
}

impl RunPlan {
    pub(super) fn has_block_tests(&self) -> bool {
        self.variants
            .iter()
            .any(|v| matches!(v.workload, Workload::Block { .. }))
    }

    /// Bytes the run keeps on the destination at its peak: the block test file for the whole
    /// run, plus the largest set of files any one variant keeps at once.
    pub fn space_needed(&self) -> u64 {
        let block_file = if self.has_block_tests() {
            self.file_size
        } else {
            0
        };
        let largest_variant = self
            .variants
            .iter()
            .map(|v| match &v.workload {
                Workload::Block { .. } => 0,
                Workload::WholeFiles {
                    direction: Direction::Read,
                    sizes,
                    ..
                } => sizes.iter().sum(),
                Workload::WholeFiles { sizes, .. } => sizes.iter().copied().max().unwrap_or(0),
                Workload::ManyFiles { count, size } => *count as u64 * size.next_multiple_of(4096),
                // One copy of the set at a time (restore and delete keep one while they run).
                Workload::FileSet { set, .. } => self
                    .file_sets
                    .iter()
                    .find(|p| p.name == *set)
                    .map_or(0, |p| p.total_bytes),
                Workload::Meta { .. } => 0,
                // Sized at run time to what the free space allows.
                Workload::Sustained { .. } => 0,
                Workload::Throttled { .. } => throttled::space_needed(self.file_size),
            })
            .max()
            .unwrap_or(0);
        // 5% for filesystem metadata and rounding.
        (block_file + largest_variant) / 20 * 21
    }

    /// How many progress steps the run takes.
    pub(super) fn steps(&self) -> u64 {
        (self.variants.len() * self.runs) as u64 + u64::from(self.has_block_tests())
    }
}

/// Refuses to start when the destination reports less free space than the run needs.
pub(super) fn check_space(plan: &RunPlan) -> Result<()> {
    let needed = plan.space_needed();
    let available = platform::available_space(&plan.destination).map_err(|e| {
        Error::io(
            format!("checking free space on {}", plan.destination.display()),
            e,
        )
    })?;
    if available < needed {
        return Err(Error::NoSpace {
            path: plan.destination.clone(),
            needed: units::format_bytes(needed),
            available: units::format_bytes(available),
        });
    }
    Ok(())
}
