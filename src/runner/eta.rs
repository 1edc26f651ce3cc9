//! The run's ETA, computed in one place so that every display of the progress (the terminal's
//! bar, the `destbench ui` page) shows the same figure. Pure: the runner tells it what each step
//! was planned to cost and what it took; it holds no clock.
//!
//! A step costs [`Cost`]: seconds it runs for whatever the destination (a block test's duration,
//! a minimum time), bytes it moves and files it handles whatever the time (a file to lay down, a
//! set to copy). Three corrections are learned from the finished steps: how much of its planned
//! time a timed step really takes (a block test that stops once steady takes less), the rate at
//! which the destination moved the bytes of the steps that move bytes (a slow disk takes
//! longer), and what each file costs beyond its bytes (a share's round trips). The remaining
//! time is the runner's plan of the steps left, each predicted with these corrections.

use strum::VariantArray;

use crate::results::{Spent, Untimed};
use crate::settings::RunPlan;

use crate::runner::untimed::Work;

/// The rate assumed for steps that move bytes before any has been timed, bytes/s: an ordinary
/// disk's; the first step that moves bytes (the block tests' file) replaces it.
const PRIOR_RATE: f64 = 100e6;
/// A step that moves bytes teaches the rate only when it took this much longer than its timed
/// floor: one that only lasted its minimum time moved its bytes faster than it shows.
const MOVED_NOT_FLOORED: f64 = 1.5;

/// What a file written on a share costs beyond its bytes before the run has priced one: the
/// least the testbed's sshfs share at 1 Gbit/s showed (0.87-1.3 ms; the lab's cifs share about
/// 6 ms, 14 round trips of 0.41-0.48 ms). A disk's files are priced from nothing.
const SHARE_FILE_S: f64 = 1e-3;

/// An untimed kind teaches its own rate once it has taken this long: before, the rate the
/// destination moved bytes at stands for it.
const UNTIMED_TAUGHT_S: f64 = 0.05;

/// What a step is planned to cost.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Cost {
    /// Seconds it runs for, or at least (a minimum time).
    pub seconds: f64,
    /// Bytes it moves however long that takes (0: a step that only runs for a time).
    pub bytes: u64,
    /// Files it writes on the destination, each priced beyond its bytes.
    pub files: u64,
}

/// A sum of what was seen over a sum of what was planned.
#[derive(Debug, Clone, Copy, Default)]
struct Ratio {
    seen: f64,
    planned: f64,
}

impl Ratio {
    fn add(&mut self, seen: f64, planned: f64) {
        self.seen += seen;
        self.planned += planned;
    }

    fn value(self) -> Option<f64> {
        (self.planned > 0.0 && self.seen > 0.0).then(|| self.seen / self.planned)
    }
}

/// The run's progress in time: how long it has run and how long it is predicted to run yet, as
/// of the start of the step under way. Read [`Eta::remaining_after`] to count down within a step.
#[derive(Debug, Clone, Default)]
pub struct Eta {
    elapsed_s: f64,
    remaining_s: f64,
    /// The predicted seconds of the step under way (part of `remaining_s`).
    current_s: f64,
    /// Seconds taken over seconds planned, of the finished steps that only run for a time.
    timed: Ratio,
    /// Bytes moved over seconds taken, of the finished steps that move bytes but no files.
    moved: Ratio,
    /// Seconds beyond their bytes' time over files, of the finished steps that handle files.
    per_file: Ratio,
    /// What a file costs before any step has shown it ([`SHARE_FILE_S`] on a share).
    file_prior_s: f64,
    /// Each kind of untimed work so far (`untimed::Ledger`), in `Untimed::VARIANTS`' order.
    untimed: [Spent; Untimed::VARIANTS.len()],
}

impl Eta {
    /// The ETA of a run of `plan`, nothing taught yet: a share's files priced from the start.
    pub(in crate::runner) fn for_plan(plan: &RunPlan) -> Eta {
        Eta {
            file_prior_s: if plan.on_share { SHARE_FILE_S } else { 0.0 },
            ..Eta::default()
        }
    }

    /// Seconds the run has taken, up to the start of the step under way.
    pub fn elapsed_s(&self) -> f64 {
        self.elapsed_s
    }

    /// The predicted length of the whole run, in seconds.
    pub fn total_s(&self) -> f64 {
        self.elapsed_s + self.remaining_s
    }

    /// Seconds predicted to remain `into_step_s` seconds after the step under way began: counts
    /// down through the step, but never below what the steps after it are predicted to need.
    pub fn remaining_after(&self, into_step_s: f64) -> f64 {
        let after_step = self.remaining_s - self.current_s;
        (self.remaining_s - into_step_s.max(0.0)).max(after_step)
    }

    /// Whether the runner has planned the run yet (before its first step, nothing is known).
    pub fn planned(&self) -> bool {
        self.total_s() > 0.0
    }

    /// Seconds predicted to remain `into_step_s` into the step under way, None before the plan.
    pub fn countdown(&self, into_step_s: f64) -> Option<f64> {
        self.planned().then(|| self.remaining_after(into_step_s))
    }

    /// The share of the predicted run done `into_step_s` into the step under way, 0 to 1 (0
    /// before the plan).
    pub fn fraction_at(&self, into_step_s: f64) -> f64 {
        let Some(remaining) = self.countdown(into_step_s) else {
            return 0.0;
        };
        let elapsed = self.elapsed_s + into_step_s.max(0.0);
        (elapsed / (elapsed + remaining).max(1e-9)).clamp(0.0, 1.0)
    }

    /// The seconds a step of `cost` is predicted to take, with what the run has taught so far.
    pub(in crate::runner) fn predict(&self, cost: Cost) -> f64 {
        let timed = cost.seconds * self.timed.value().unwrap_or(1.0);
        if cost.bytes == 0 && cost.files == 0 {
            return timed;
        }
        cost.seconds
            .max(cost.bytes as f64 / self.rate() + cost.files as f64 * self.file_s())
    }

    /// Seconds a file costs beyond its bytes, as the steps that handle files showed, else its
    /// prior.
    pub(in crate::runner) fn file_s(&self) -> f64 {
        self.per_file.value().unwrap_or(self.file_prior_s)
    }

    /// Bytes a second the destination moved the bytes of the finished steps at, else the
    /// prior's.
    pub(in crate::runner) fn rate(&self) -> f64 {
        self.moved.value().unwrap_or(PRIOR_RATE)
    }

    /// The seconds untimed `work` is predicted to take: each kind at the price it has shown,
    /// else at its prior or, where files cost more than that allows (a share), at the
    /// destination's rate and the price of a file the timed steps have shown.
    pub(in crate::runner) fn predict_untimed(&self, work: &[Work]) -> f64 {
        // How fast the tree work seen so far went against its kinds' priors: the other kinds
        // are predicted at their priors times that.
        let (prior_s, seen_s) = Untimed::VARIANTS
            .iter()
            .filter_map(|&k| Some((tree_prior(k)?, self.taught(k)?)))
            .fold((0.0, 0.0), |(p, t), (prior, seen)| {
                (p + seen.bytes as f64 / prior, t + seen.seconds)
            });
        let scale = if seen_s > 0.0 { prior_s / seen_s } else { 1.0 };
        work.iter().map(|&w| self.untimed_s(w, scale)).sum()
    }

    /// What `kind` has taken so far, once enough to teach its own price.
    fn taught(&self, kind: Untimed) -> Option<Spent> {
        let seen = self.untimed[kind as usize];
        (seen.seconds >= UNTIMED_TAUGHT_S && seen.bytes + seen.files > 0).then_some(seen)
    }

    /// The seconds of one piece of untimed work, its kind's priors scaled by `scale`.
    fn untimed_s(&self, w: Work, scale: f64) -> f64 {
        let moved = self.rate();
        // Its bytes' own time: at the destination's rate where it moves them, else its
        // kind's prior (a removal frees extents, an eviction drops pages).
        let bytes_s = |bytes: u64| match tree_prior(w.kind) {
            _ if w.kind.moves_bytes() => bytes as f64 / moved,
            Some(prior) => bytes as f64 / prior,
            None => 0.0,
        };
        match self.taught(w.kind) {
            Some(seen) if seen.files > 0 && w.files > 0 => {
                // Its seconds split into its bytes' time and the rest, a price per file.
                let seen_bytes_s = bytes_s(seen.bytes).min(seen.seconds);
                let file_s = (seen.seconds - seen_bytes_s) / seen.files as f64;
                let byte_s = seen_bytes_s / seen.bytes.max(1) as f64;
                return w.bytes as f64 * byte_s + w.files as f64 * file_s;
            }
            Some(seen) if seen.bytes > 0 => {
                return w.bytes as f64 * seen.seconds / seen.bytes as f64;
            }
            _ => {}
        }
        let at_prior = match tree_prior(w.kind) {
            None => w.bytes as f64 / moved,
            // Work that writes or reads the bytes goes no faster than the destination.
            Some(prior) if w.kind.moves_bytes() => w.bytes as f64 / (prior * scale).min(moved),
            Some(prior) => w.bytes as f64 / (prior * scale),
        };
        let files_s = w.files as f64 * self.file_s() * file_share(w.kind);
        at_prior.max(bytes_s(w.bytes) + files_s)
    }

    /// What each kind of untimed work has taken so far.
    pub(in crate::runner) fn set_untimed(&mut self, spent: [Spent; Untimed::VARIANTS.len()]) {
        self.untimed = spent;
    }

    /// A step predicted at `current_s` begins; `after_s` is what the steps after it are
    /// predicted to take.
    pub(in crate::runner) fn begin(&mut self, current_s: f64, after_s: f64) {
        self.current_s = current_s.max(0.0);
        self.remaining_s = self.current_s + after_s.max(0.0);
    }

    /// The run ended: nothing remains.
    pub(in crate::runner) fn end(&mut self) {
        self.remaining_s = 0.0;
        self.current_s = 0.0;
    }

    /// The step under way, planned at `cost`, took `actual_s`, of which `untimed_s` was untimed
    /// work (predicted on its own, so not learned from here).
    pub(in crate::runner) fn finished(&mut self, cost: Cost, actual_s: f64, untimed_s: f64) {
        self.elapsed_s += actual_s;
        self.remaining_s = (self.remaining_s - self.current_s).max(0.0);
        self.current_s = 0.0;
        self.learn(cost, (actual_s - untimed_s).max(0.0));
    }

    /// The run's clock reads `now_s`: time between steps (a variant's clean-up) counts as
    /// elapsed.
    pub(in crate::runner) fn catch_up(&mut self, now_s: f64) {
        self.elapsed_s = self.elapsed_s.max(now_s);
    }

    /// Work of `cost` took `actual_s`: the corrections learn from it (a part of a step, timed
    /// on its own, or a finished step).
    pub(in crate::runner) fn learn(&mut self, cost: Cost, actual_s: f64) {
        if cost.bytes > 0 || cost.files > 0 {
            if actual_s <= cost.seconds * MOVED_NOT_FLOORED || actual_s <= 0.0 {
                return;
            }
            if cost.files > 0 {
                let beyond = actual_s - cost.bytes as f64 / self.rate();
                self.per_file.add(beyond.max(0.0), cost.files as f64);
            } else {
                self.moved.add(cost.bytes as f64, actual_s);
            }
        } else if cost.seconds > 0.0 {
            self.timed.add(actual_s, cost.seconds);
        }
    }
}

/// The rate of untimed work on trees of files before its kind has shown its own, bytes/s (None:
/// the test file, a stream at the destination's rate): as the `backup` profile's sets went on
/// this project's 2-core VM (/var/tmp, 2026-11-27, a loaded machine), where its test file went at
/// gigabytes a second.
fn tree_prior(kind: Untimed) -> Option<f64> {
    Some(match kind {
        Untimed::TestFile => return None,
        Untimed::Generate => 60e6,
        Untimed::Copy => 150e6,
        Untimed::Remove => 240e6,
        Untimed::Verify => 450e6,
        Untimed::Evict => 1.7e9,
    })
}

/// What a file costs `kind` of untimed work against one written, whose price the timed steps
/// teach ([`Eta::file_s`]), until the kind shows its own. A written file takes a share's most
/// requests (create, write, close); a file removed, evicted or read back, a quarter as long on
/// the testbed's sshfs share at 1 Gbit/s (0.22-0.23 ms a file against 0.87-1.03 ms written,
/// 2026-11-30), a third on the lab's cifs share (two round trips against six).
fn file_share(kind: Untimed) -> f64 {
    match kind {
        Untimed::Copy => 1.0,
        Untimed::Remove | Untimed::Evict | Untimed::Verify => 0.25,
        Untimed::TestFile | Untimed::Generate => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untimed_work_is_predicted_at_its_own_rate_once_seen() {
        let mut eta = Eta::default();
        let copy = [Work::new(Untimed::Copy, 200_000_000, 0)];
        assert_eq!(
            eta.predict_untimed(&copy),
            2.0,
            "no faster than the prior rate"
        );
        let mut spent = [Spent::default(); Untimed::VARIANTS.len()];
        spent[Untimed::Copy as usize] = Spent {
            seconds: 1.0,
            bytes: 10_000_000,
            files: 0,
        };
        spent[Untimed::Remove as usize] = Spent {
            seconds: 0.01,
            bytes: 10_000_000,
            files: 0,
        };
        eta.set_untimed(spent);
        assert_eq!(eta.predict_untimed(&copy), 20.0, "10 MB/s, learned");
        let remove = eta.predict_untimed(&[Work::new(Untimed::Remove, 100_000_000, 0)]);
        assert!(
            (remove - 6.25).abs() < 1e-9,
            "too short to teach: its prior, 240 MB/s, slowed as copies were (150 to 10): {remove}"
        );
    }

    /// A share's files cost round trips: a step that writes 1,000 files of 30 MB in 3.3 s at
    /// 100 MB/s teaches 3 ms a file, and the rate its bytes go at stays the block tests'.
    #[test]
    fn steps_with_files_teach_a_price_per_file_not_the_rate() {
        let mut eta = Eta::default();
        let pass = Cost {
            seconds: 0.25,
            bytes: 30_000_000,
            files: 1_000,
        };
        assert!((eta.predict(pass) - 0.3).abs() < 1e-9, "bytes alone before");
        eta.finished(pass, 3.3, 0.0);
        assert!((eta.file_s() - 0.003).abs() < 1e-9, "{}", eta.file_s());
        assert_eq!(eta.rate(), PRIOR_RATE);
        let half = Cost {
            bytes: 15_000_000,
            files: 500,
            ..pass
        };
        assert!((eta.predict(half) - 1.65).abs() < 1e-9);
        // Untimed work of a kind not yet seen: its files at that price, its bytes at the rate.
        let copy = eta.predict_untimed(&[Work::new(Untimed::Copy, 15_000_000, 500)]);
        assert!((copy - 1.65).abs() < 1e-9, "{copy}");
        // A step that only lasted its floor teaches nothing.
        eta.finished(pass, 0.3, 0.0);
        assert!((eta.file_s() - 0.003).abs() < 1e-9);
    }

    /// A share's files are priced before any step has shown one, a disk's are not; work that
    /// only removes, evicts or reads files back is priced at a quarter of a written file.
    #[test]
    fn a_share_prices_its_files_from_the_start() {
        let plan = crate::settings::RunOptions::new("/tmp").plan().unwrap();
        assert_eq!(Eta::for_plan(&plan).file_s(), 0.0);
        let share = Eta::for_plan(&plan.on_a_share(true));
        assert_eq!(share.file_s(), SHARE_FILE_S);
        let of = |kind| share.predict_untimed(&[Work::new(kind, 0, 1_000)]);
        assert!(
            (of(Untimed::Copy) - 1.0).abs() < 1e-9,
            "{}",
            of(Untimed::Copy)
        );
        assert!((of(Untimed::Remove) - 0.25).abs() < 1e-9);
        assert!((of(Untimed::Evict) - 0.25).abs() < 1e-9);
    }

    /// Once a kind has shown its own price, its time splits into its bytes' and its files':
    /// a set of fewer, larger files is predicted by both, not by its bytes alone.
    #[test]
    fn a_kind_seen_on_one_set_prices_another_by_bytes_and_files() {
        let mut eta = Eta::default();
        let mut spent = [Spent::default(); Untimed::VARIANTS.len()];
        // 1,500 files of 30 MB removed in 3 s: 0.125 s of bytes at its prior, the rest files.
        spent[Untimed::Remove as usize] = Spent {
            seconds: 3.0,
            bytes: 30_000_000,
            files: 1_500,
        };
        eta.set_untimed(spent);
        let per_file = (3.0 - 0.125) / 1_500.0;
        let mixed = eta.predict_untimed(&[Work::new(Untimed::Remove, 10_000_000, 180)]);
        let expected = 0.125 / 3.0 + 180.0 * per_file;
        assert!(
            (mixed - expected).abs() < 1e-9,
            "{mixed} against {expected}"
        );
        // Work without files is priced by its kind's bytes.
        let whole = eta.predict_untimed(&[Work::new(Untimed::Remove, 30_000_000, 0)]);
        assert!((whole - 3.0).abs() < 1e-9);
    }

    const TIMED: Cost = Cost {
        seconds: 2.0,
        bytes: 0,
        files: 0,
    };

    #[test]
    fn timed_steps_learn_how_much_of_their_plan_they_take() {
        let mut eta = Eta::default();
        eta.begin(eta.predict(TIMED), 3.0 * 2.0);
        assert_eq!(eta.total_s(), 8.0);
        eta.finished(TIMED, 1.0, 0.0);
        assert_eq!(eta.predict(TIMED), 1.0, "half the plan, learned");
        eta.begin(eta.predict(TIMED), 2.0 * eta.predict(TIMED));
        assert_eq!(
            (eta.elapsed_s(), eta.remaining_s, eta.total_s()),
            (1.0, 3.0, 4.0)
        );
        assert_eq!(eta.fraction_at(0.0), 0.25);
    }

    #[test]
    fn moving_steps_learn_the_rate_unless_they_only_lasted_their_floor() {
        let mut eta = Eta::default();
        let file = Cost {
            bytes: 50_000_000,
            ..Cost::default()
        };
        assert_eq!(eta.predict(file), 0.5, "the prior rate");
        eta.begin(eta.predict(file), 0.0);
        eta.finished(file, 10.0, 0.0);
        assert_eq!(eta.predict(file), 10.0, "5 MB/s, learned");
        let floored = Cost {
            seconds: 1.0,
            bytes: 1_000_000,
            files: 0,
        };
        eta.finished(floored, 1.2, 0.0);
        assert_eq!(
            eta.predict(file),
            10.0,
            "a step at its floor teaches nothing"
        );
    }

    #[test]
    fn within_a_step_it_counts_down_to_what_the_rest_needs() {
        let mut eta = Eta::default();
        eta.begin(2.0, 5.0);
        assert_eq!(eta.remaining_after(0.5), 6.5);
        assert_eq!(eta.remaining_after(9.0), 5.0);
    }
}
