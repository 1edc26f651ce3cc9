//! What a validated plan (`settings::RunPlan`) needs of the destination, in the runner's terms:
//! its peak space, its progress steps.

use crate::error::{Error, Result};
use crate::platform;
use crate::settings::RunPlan;
use crate::units;
use crate::workload::{Variant, Workload};

use super::kinds::test_for;

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
            .map(|v| test_for(&v.workload).space_needed(self))
            .max()
            .unwrap_or(0);
        // 5% for filesystem metadata and rounding.
        (block_file + largest_variant) / 20 * 21
    }

    /// The seconds one repetition of `variant` is planned to take, as its test plans it. Only
    /// an estimate for the progress bar's ETA.
    pub(super) fn planned_s(&self, variant: &Variant) -> f64 {
        test_for(&variant.workload).planned_s(self)
    }

    /// The planned seconds of preparing the block tests' file (written once, untimed): as long
    /// as one block test, for lack of a better guess before anything is measured.
    pub(super) fn prepare_planned_s(&self) -> f64 {
        if self.has_block_tests() {
            self.block_duration.as_secs_f64()
        } else {
            0.0
        }
    }

    /// The planned seconds of the whole run.
    pub fn planned_total_s(&self) -> f64 {
        let variants: f64 = self.variants.iter().map(|v| self.planned_s(v)).sum();
        variants * self.runs as f64 + self.prepare_planned_s()
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

#[cfg(test)]
mod tests {
    use crate::settings::RunOptions;
    use crate::workload::ProfileName;

    /// The progress bar's plan adds up: block tests their duration, the rest the minimum time,
    /// the test file's preparation one block test.
    #[test]
    fn planned_seconds_follow_the_durations() {
        let plan = RunOptions {
            destination: std::env::temp_dir(),
            profile: ProfileName::Quick,
            tests: Some(vec!["seq-read".parse().unwrap(), "tm-check".parse().unwrap()].into()),
            runs: Some(3.into()),
            block_duration_s: Some(2.0.into()),
            min_time_s: Some(0.5.into()),
            ..Default::default()
        }
        .plan()
        .unwrap();
        // seq-read: SEQ1M-Q1T1 and SEQ1M-Q8T1 (blocks), 20-100MB (whole files); tm-check: two.
        let per_run = 2.0 * 2.0 + 3.0 * 0.5;
        assert!((plan.planned_total_s() - (3.0 * per_run + 2.0)).abs() < 1e-9);
    }
}
