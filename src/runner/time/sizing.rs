//! The run's work fixed in bytes sized from the destination's rate as the run goes
//! (`RunPlan::sized`), so a slow disk gets its answer in the profile's time, not twice that:
//! once the test file's first part has shown the rate, the test file and QuickBench's transfers
//! take the largest of the profile's sizes (whole, a half, a fifth or a tenth) whose least work
//! fits the budget; each generated set, and so the copies made of it, the largest that fits
//! where the run reaches it, from what the run has seen by then. A disk too slow even for a
//! tenth stretches the run, as before (`budget::stretched`).

use crate::settings::{RunPlan, SIZE_DIVISORS};
use crate::workload::SetName;

use crate::runner::eta::{Cost, Eta};
use crate::runner::kinds::test_for;
use crate::runner::time::schedule::Schedule;

/// The share of the budget left that the least work may be forecast to take: the rest is for
/// what the forecast cannot see before the sets are copied. On this project's VM disk under
/// other builds' load (3 to 4), three default runs sized to fit the whole budget took 98.8,
/// 100.0 and 102.3 s: the sets' copies ran at half their prior rate, and each step's own set-up
/// (5 s in all) is in no plan.
const FORECAST_SHARE: f64 = 0.9;

/// A smaller size that saves less than this, in seconds, is not taken where none fits: its
/// figures would be less precise for nothing.
const WORTH_S: f64 = 1.0;

/// Block durations a buffered run's test file holds at the rate shown: such a repetition makes
/// one pass over the file (docs/methods.md), so it must not end before its rate is steady,
/// reads included, which may go twice as fast as writes.
const BUFFERED_PASS: f64 = 2.0;

/// What the run knows when it sizes its work: the rate and the time so far (`eta`, `now_s`),
/// the test file's bytes already written (all of them once it is down), the first variant
/// still to run, and whether a block repetition makes one pass over the file (buffered I/O)
/// rather than going round it.
pub(in crate::runner) struct Seen<'e> {
    pub eta: &'e Eta,
    pub now_s: f64,
    pub written: u64,
    pub next: usize,
    pub one_pass: bool,
}

/// `plan` (at the profile's sizes) sized for the destination as `seen` shows it, once the test
/// file's first part is down: the test file and QuickBench's transfers at the largest share of
/// the profile's sizes that [`choose`] takes, the sets forecast at their least (each is sized
/// where the run reaches it: [`sized_set`]).
pub(in crate::runner) fn sized(
    plan: &RunPlan,
    schedule: &Schedule,
    seen: &Seen<'_>,
    runnable: &dyn Fn(usize) -> bool,
) -> RunPlan {
    let least_file = if seen.one_pass {
        (seen.eta.rate() * plan.block_duration.as_secs_f64() * BUFFERED_PASS) as u64
    } else {
        0
    };
    let least = SIZE_DIVISORS[SIZE_DIVISORS.len() - 1];
    let candidates = SIZE_DIVISORS.map(|divisor| {
        let sets = plan.file_sets.iter().map(|s| s.name);
        sets.fold(plan.sized(divisor, least_file), |c, set| {
            c.with_set_sized(set, least, plan)
        })
    });
    choose(candidates, schedule, seen, runnable).unwrap_or_else(|| plan.clone())
}

/// `current` with the generated `set` sized where the run reaches it (`seen.next`, the variant
/// that generates it), from its size in `profile` (the plan at the profile's sizes): by then
/// the run has seen how its block tests, and the sets before, went against their plan.
pub(in crate::runner) fn sized_set(
    (current, profile): (&RunPlan, &RunPlan),
    set: SetName,
    schedule: &Schedule,
    seen: &Seen<'_>,
    runnable: &dyn Fn(usize) -> bool,
) -> RunPlan {
    let candidates = SIZE_DIVISORS.map(|divisor| current.with_set_sized(set, divisor, profile));
    choose(candidates, schedule, seen, runnable).unwrap_or_else(|| current.clone())
}

/// The variants that generate a set (the first to read each), with the set, from `from` on.
pub(in crate::runner) fn set_starts(plan: &RunPlan, from: usize) -> Vec<(usize, SetName)> {
    let mut seen = Vec::new();
    let mut starts = Vec::new();
    for (i, v) in plan.variants.iter().enumerate() {
        if let Some(set @ SetName::Generated(_)) = test_for(&v.workload).source_set()
            && !seen.contains(&set)
        {
            seen.push(set);
            if i >= from {
                starts.push((i, set));
            }
        }
    }
    starts
}

/// Of `candidates` (largest sizes first), the first whose least work from variant `seen.next`
/// on, the rest of the test file included, is forecast to take at most [`FORECAST_SHARE`] of
/// the budget left (one step of sizes too large would end the run well past it); where none
/// is, the smallest worth taking. None without a budget (`--runs N`): the sizes stay.
fn choose<const N: usize>(
    candidates: [RunPlan; N],
    schedule: &Schedule,
    seen: &Seen<'_>,
    runnable: &dyn Fn(usize) -> bool,
) -> Option<RunPlan> {
    let room = schedule.work_left_s(seen.now_s)? * FORECAST_SHARE;
    let leasts = candidates
        .each_ref()
        .map(|c| least_s(c, schedule, seen, runnable));
    let smallest = leasts.iter().copied().fold(f64::INFINITY, f64::min);
    let fits = leasts.iter().position(|&least| least <= room);
    let worth = leasts.iter().position(|&least| least <= smallest + WORTH_S);
    let chosen = fits.or(worth)?;
    candidates.into_iter().nth(chosen)
}

/// Seconds the least work of `candidate` needs from variant `seen.next` on, the rest of its
/// test file included.
fn least_s(
    candidate: &RunPlan,
    schedule: &Schedule,
    seen: &Seen<'_>,
    runnable: &dyn Fn(usize) -> bool,
) -> f64 {
    let mut schedule = schedule.clone();
    schedule.replan(candidate, seen.next, runnable);
    let rest = Cost {
        bytes: candidate.file_size.saturating_sub(seen.written),
        ..Cost::default()
    };
    seen.eta.predict(rest) + schedule.least_from(seen.eta, seen.next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::RunOptions;

    /// `eta` once it has seen the destination move bytes at `mb_s`.
    fn at(mut eta: Eta, mb_s: f64) -> Eta {
        let file = Cost {
            bytes: 16 << 20,
            ..Cost::default()
        };
        eta.learn(file, (16 << 20) as f64 / (mb_s * 1e6));
        eta
    }

    /// The divisor and the test file `plan` is sized to once the file's first part is down.
    fn sized_with(plan: &RunPlan, eta: &Eta, one_pass: bool) -> (u64, u64) {
        let schedule = Schedule::new(plan, |_| true);
        let seen = Seen {
            eta,
            now_s: 0.5,
            written: 16 << 20,
            next: 0,
            one_pass,
        };
        let sized = sized(plan, &schedule, &seen, &|_| true);
        (sized.sizing.divisor, sized.file_size)
    }

    fn divisor(mb_s: f64, one_pass: bool) -> (u64, u64) {
        let plan = RunOptions::new("/tmp").plan().unwrap();
        sized_with(&plan, &at(Eta::default(), mb_s), one_pass)
    }

    /// A fast disk keeps the profile's sizes, a USB 2.0 disk takes smaller ones; a buffered
    /// run's file still holds two block durations at the rate shown.
    #[test]
    fn the_sizes_follow_the_rate() {
        let (fast, fast_file) = divisor(500.0, false);
        assert_eq!((fast, fast_file), (1, 512 << 20));
        let (slow, slow_file) = divisor(35.0, false);
        assert!(slow > 1, "35 MB/s at a {slow}th");
        assert!(slow_file < 512 << 20);
        let (_, buffered_file) = divisor(35.0, true);
        assert!(buffered_file as f64 >= 2.0 * 1.5 * 35e6, "{buffered_file}");
    }

    /// A share's files cost round trips from the start: the rate from which a share's run
    /// keeps the profile's sizes is higher than a disk's (its three 4 KiB variants left out).
    #[test]
    fn a_share_is_sized_for_its_files_as_well_as_its_rate() {
        let whole_from = |share: bool| {
            let options = RunOptions {
                seed: Some(7),
                ..RunOptions::new("/tmp")
            };
            let plan = options.plan().unwrap().on_a_share(share);
            let rates = (1..=80).map(|step| f64::from(step) * 25.0);
            rates
                .into_iter()
                .find(|&rate| sized_with(&plan, &at(Eta::for_plan(&plan), rate), false).0 == 1)
        };
        let disk = whole_from(false).expect("a fast disk keeps the profile's sizes");
        let share = whole_from(true);
        assert!(share.is_none_or(|share| share > disk), "{share:?} {disk}");
    }

    /// Without a budget (`--runs N`) the run keeps the profile's sizes.
    #[test]
    fn a_fixed_count_keeps_the_profiles_sizes() {
        let plan = RunOptions {
            runs: Some(3.into()),
            ..RunOptions::new("/tmp")
        }
        .plan()
        .unwrap();
        assert_eq!(sized_with(&plan, &at(Eta::default(), 5.0), false).0, 1);
    }

    /// Each generated set is sized where its first variant starts, to the time left then: the
    /// mixed set whole early in the run, a tenth of it late.
    #[test]
    fn a_set_takes_the_size_the_time_left_allows() {
        let plan = RunOptions::new("/tmp").plan().unwrap();
        let starts = set_starts(&plan, 0);
        let names: Vec<SetName> = starts.iter().map(|s| s.1).collect();
        assert_eq!(
            names,
            plan.file_sets.iter().map(|s| s.name).collect::<Vec<_>>()
        );
        let (mixed_at, mixed) = starts[1];
        assert_eq!(set_starts(&plan, mixed_at), [(mixed_at, mixed)]);
        let schedule = Schedule::new(&plan, |_| true);
        let eta = at(Eta::default(), 100.0);
        let bytes_at = |now_s| {
            let seen = Seen {
                eta: &eta,
                now_s,
                written: plan.file_size,
                next: mixed_at,
                one_pass: false,
            };
            let sized = sized_set((&plan, &plan), mixed, &schedule, &seen, &|_| true);
            sized.file_sets[1].total_bytes
        };
        assert_eq!(bytes_at(10.0), 100_000_000);
        assert_eq!(bytes_at(75.0), 10_000_000);
    }
}
