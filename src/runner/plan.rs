//! What a validated plan (`settings::RunPlan`) needs of the destination, in the runner's terms:
//! its peak space, its progress steps.

use crate::error::{Error, Result};
use crate::platform;
use crate::settings::RunPlan;
use crate::units;
use crate::workload::{Direction, Workload};

use super::throttled;

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
