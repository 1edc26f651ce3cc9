//! What a validated plan (`settings::RunPlan`) needs of the destination, in the runner's terms:
//! its peak space (its time is `schedule`'s).

use crate::error::{Error, Result};
use crate::platform;
use crate::settings::{RunPlan, defs};
use crate::units;
use crate::workload::{SetName, Workload};

use crate::runner::kinds::test_for;
use crate::runner::sources::PREP_THREADS;

impl RunPlan {
    pub(in crate::runner) fn has_block_tests(&self) -> bool {
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
            .map(|v| test_for(&v.workload).space_needed(self))
            .max()
            .unwrap_or(0);
        // 5% for filesystem metadata and rounding.
        (block_file + largest_variant) / 20 * 21
    }
}

/// Refuses to start when the destination reports less free space than the run needs, the copy
/// of a `--source` folder included.
pub(in crate::runner) fn check_space(plan: &RunPlan) -> Result<()> {
    let needed = with_source_size(plan)?.space_needed();
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
            instead: format!("a smaller {} or {} quick", defs::SIZE, defs::PROFILE),
        });
    }
    Ok(())
}

/// The plan with the `--source` folder's bytes as its set's size, which planning (no I/O) left
/// at 0: a survey, metadata only, before the run reads the folder whole.
fn with_source_size(plan: &RunPlan) -> Result<RunPlan> {
    let mut plan = plan.clone();
    if let Some(source) = &plan.source {
        let survey = crate::tree::survey::survey(source, PREP_THREADS, plan.cross_filesystems)?;
        let bytes = survey.histogram.total_bytes();
        for set in plan
            .file_sets
            .iter_mut()
            .filter(|s| s.name == SetName::Source)
        {
            set.total_bytes = bytes;
        }
    }
    Ok(plan)
}
