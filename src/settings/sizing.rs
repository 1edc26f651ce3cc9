//! A run sized for a slow destination: the work fixed in bytes (the block tests' file,
//! QuickBench's transfers, the generated file sets of large files and so every copy made of
//! them) at a share of the profile's sizes, so that a disk of 20-35 MB/s gets its answer in the profile's time.
//! The runner picks the share once the destination has shown its rate
//! (`runner::time::sizing`); this is what each share makes of the plan. Sizes the user gave
//! (`--size`, `--set-size`) are kept.

use super::{MIN_FILE_SIZE, RunPlan};
use crate::workload::{self, SetKind, SetName};

/// The divisors of the profile's sizes a run may take, largest sizes first. Halves, fifths and
/// tenths keep QuickBench's transfers in whole megabytes (20-100 MB, 10-50, 4-20, 2-10), and
/// few steps keep one destination's runs at one size, so their figures compare.
pub const SIZE_DIVISORS: [u64; 4] = [1, 2, 5, 10];

/// The smallest block tests' file a sized run lays down: the quick profile's, the smallest
/// span any profile gives the random tests (a buffered run's file is larger still, see
/// [`RunPlan::sized`]).
pub const MIN_SIZED_FILE: u64 = 64 << 20;

/// How the plan's work fixed in bytes is sized.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizing {
    /// The profile's sizes divided by this (1: as the profile has them).
    pub divisor: u64,
    /// `--size` was given: the block tests' file keeps it.
    pub file_given: bool,
    /// `--set-size` was given: the generated sets keep it.
    pub sets_given: bool,
}

impl RunPlan {
    /// This plan (at the profile's sizes) at a `divisor`th of them where the user gave none:
    /// the block tests' file, in whole MiB, never below [`MIN_SIZED_FILE`] nor `least_file`
    /// (what a buffered repetition's one pass over it needs) nor above the profile's;
    /// QuickBench's transfers; the generated sets (by [`set_divisor`]), each file at most the
    /// block tests' file.
    pub fn sized(&self, divisor: u64, least_file: u64) -> RunPlan {
        debug_assert_eq!(self.sizing.divisor, 1, "sized from the profile's sizes");
        let mut sized = self.clone();
        sized.sizing.divisor = divisor;
        if !self.sizing.file_given {
            let file = (self.file_size / divisor)
                .max(MIN_SIZED_FILE)
                .max(least_file);
            sized.file_size = file.min(self.file_size).next_multiple_of(MIN_FILE_SIZE);
        }
        for set in &mut sized.file_sets {
            if !self.sizing.sets_given {
                set.total_bytes /= set_divisor(set.name, divisor);
            }
            set.size_cap = sized.file_size;
        }
        sized.variants = self
            .variants
            .iter()
            .map(|v| workload::sized(v, divisor))
            .collect();
        sized
    }
}

impl RunPlan {
    /// This plan with `set` at a `divisor`th of its size in `profile` (this plan at the
    /// profile's sizes), as [`RunPlan::sized`] divides sets: a set is sized again where the
    /// run reaches it.
    pub fn with_set_sized(&self, set: SetName, divisor: u64, profile: &RunPlan) -> RunPlan {
        let mut plan = self.clone();
        if self.sizing.sets_given {
            return plan;
        }
        for (spec, whole) in plan.file_sets.iter_mut().zip(&profile.file_sets) {
            if spec.name == set {
                spec.total_bytes = whole.total_bytes / set_divisor(set, divisor);
            }
        }
        plan
    }
}

/// What a sized run divides `set` by: a generated set by `divisor`, but `small` by at most
/// [`SMALL_DIVISOR`]; the user's folder not at all.
fn set_divisor(set: SetName, divisor: u64) -> u64 {
    match set {
        SetName::Generated(SetKind::Small) => divisor.min(SMALL_DIVISOR),
        SetName::Generated(_) => divisor,
        SetName::Source => 1,
    }
}

/// The most the `small` set is divided by: its cost is in its files, not its bytes (30 MB in
/// the backup profile), and the per-file figures come from it. Fewer files weigh each pass's
/// own cost more into them: rsync's start-up was 34 ms of the 45 ms an update of its 1,357
/// files took on the testbed's disk at 35 MB/s, and at a tenth of the set the update's
/// files/s fell from 29,948 to 3,397. The answer's walk now leaves the start-up out (timed
/// apart), but the copies' per-file costs, rsync's included, still carry each pass's own.
const SMALL_DIVISOR: u64 = 2;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::RunOptions;
    use crate::units::ByteSize;

    fn names(plan: &RunPlan) -> Vec<String> {
        plan.variants.iter().map(|v| v.name.clone()).collect()
    }

    /// A tenth of the default plan: a tenth of the transfers and of the mixed set (the small
    /// one whole), the file at its floor; the variants the same but for the transfers' names;
    /// the divisor recorded.
    #[test]
    fn a_tenth_of_the_profile_divides_the_work_fixed_in_bytes() {
        let plan = RunOptions::default().plan().unwrap();
        assert_eq!(plan.sizing.divisor, 1);
        let tenth = plan.sized(10, 0);
        assert_eq!(tenth.sizing.divisor, 10);
        assert_eq!(tenth.file_size, MIN_SIZED_FILE);
        let bytes =
            |p: &RunPlan| -> Vec<u64> { p.file_sets.iter().map(|s| s.total_bytes).collect() };
        assert_eq!(bytes(&plan), [30_000_000, 100_000_000]);
        assert_eq!(bytes(&tenth), [15_000_000, 10_000_000]);
        assert!(
            tenth
                .file_sets
                .iter()
                .all(|s| s.size_cap == tenth.file_size)
        );
        let renamed: Vec<(String, String)> = names(&plan)
            .into_iter()
            .zip(names(&tenth))
            .filter(|(a, b)| a != b)
            .collect();
        let transfers = ("20-100MB".to_string(), "2-10MB".to_string());
        assert_eq!(renamed, [transfers.clone(), transfers]);
        let half = plan.sized(2, 0);
        assert_eq!(half.file_size, plan.file_size / 2);
        assert_eq!(plan.sized(1, 0).file_size, plan.file_size);
    }

    /// A set sized again takes its share of the profile's size, the other sets and the file
    /// as they were.
    #[test]
    fn a_set_is_sized_again_from_the_profiles_size() {
        let plan = RunOptions::default().plan().unwrap();
        let tenth = plan.sized(10, 0);
        let mixed = SetName::Generated(SetKind::Mixed);
        let again = tenth.with_set_sized(mixed, 2, &plan);
        let bytes =
            |p: &RunPlan| -> Vec<u64> { p.file_sets.iter().map(|s| s.total_bytes).collect() };
        assert_eq!(bytes(&again), [15_000_000, 50_000_000]);
        assert_eq!(
            (again.file_size, again.sizing),
            (tenth.file_size, tenth.sizing)
        );
        let small = again.with_set_sized(SetName::Generated(SetKind::Small), 10, &plan);
        assert_eq!(
            bytes(&small),
            [15_000_000, 50_000_000],
            "small at most halved"
        );
    }

    /// The file never goes below what a buffered pass needs, nor above the profile's, and
    /// stays whole MiB; sizes the user gave stay as given.
    #[test]
    fn the_file_keeps_its_floor_and_given_sizes_are_kept() {
        let plan = RunOptions::default().plan().unwrap();
        let buffered = plan.sized(10, 100_000_000);
        assert_eq!(buffered.file_size, 96 << 20, "100 MB, in whole MiB");
        assert_eq!(plan.sized(10, u64::MAX).file_size, plan.file_size);
        let given = RunOptions {
            size: Some(ByteSize(32 << 20).into()),
            set_size: Some(ByteSize(5_000_000).into()),
            ..RunOptions::default()
        }
        .plan()
        .unwrap();
        let sized = given.sized(10, 0);
        assert_eq!(sized.file_size, 32 << 20);
        assert!(sized.file_sets.iter().all(|s| s.total_bytes == 5_000_000));
        assert!(names(&sized).contains(&"2-10MB".to_string()));
    }
}
