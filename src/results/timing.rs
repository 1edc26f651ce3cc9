//! How a run spent its time against the plan its budget made: the timed repetitions, each kind
//! of untimed work between them, and the ETA it showed along the way (docs/methods.md, "The
//! budget is a deadline").

use serde::{Deserialize, Serialize};

/// A kind of untimed work: what the run does beside its timed repetitions, which takes time the
/// budget plans for though no figure measures it.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Untimed {
    /// The block tests' shared file laid down.
    TestFile,
    /// A file set generated as a source.
    Generate,
    /// Files laid down for a test to read or delete (a set's copy, whole files to read back),
    /// or to warm the destination up (Time Machine's many files, written once).
    Copy,
    /// A copy's cached pages evicted before it is read.
    Evict,
    /// What a repetition or a variant made, removed.
    Remove,
    /// A restored copy read back against its source.
    Verify,
}

impl Untimed {
    /// Whether it writes or reads the bytes it handles (not just their metadata or cache).
    pub fn moves_bytes(self) -> bool {
        matches!(
            self,
            Untimed::TestFile | Untimed::Generate | Untimed::Copy | Untimed::Verify
        )
    }
}

/// Seconds, bytes and files of one kind of untimed work.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Spent {
    pub seconds: f64,
    pub bytes: u64,
    /// The small files among them on the destination, each priced apart from its bytes (none
    /// for whole files of megabytes, nor for work on the source's side: generating).
    #[serde(default)]
    pub files: u64,
}

/// One kind of untimed work: what the plan reserved for it and what it took.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UntimedLine {
    pub kind: Untimed,
    /// Seconds the plan reserved for it, once the run knew the destination's rate.
    pub planned_s: f64,
    pub spent: Spent,
}

/// The run's time against its plan.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TimeAccount {
    /// The budget the run aimed at (none with `--runs N`).
    pub budget_s: Option<f64>,
    /// Whole run as planned once the destination's rate was known (the test file's first part).
    pub planned_s: f64,
    /// Of which the timed repetitions.
    pub planned_measuring_s: f64,
    /// Seconds the timed repetitions took.
    pub measuring_s: f64,
    /// Each kind of untimed work: reserved and taken.
    pub untimed: Vec<UntimedLine>,
    /// The run's own length (its clock, from before the destination was checked to the end of
    /// its last step).
    pub spent_s: f64,
    /// The ETA's whole length at each step's start: `[elapsed_s, predicted_total_s]`.
    pub predictions: Vec<[f64; 2]>,
    /// When the run said it was `stretched`, on its clock (none: it was not).
    pub stretched_at_s: Option<f64>,
}

impl TimeAccount {
    /// Seconds of untimed work, planned and taken.
    pub fn untimed_s(&self) -> (f64, f64) {
        self.untimed.iter().fold((0.0, 0.0), |(p, s), line| {
            (p + line.planned_s, s + line.spent.seconds)
        })
    }
}
