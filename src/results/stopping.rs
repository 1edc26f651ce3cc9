//! Why a variant's repetitions stopped, as data: the reports and the warnings read it, so a
//! figure that ran out of time is never shown as a precise one.

use serde::{Deserialize, Serialize};

/// Why a variant stopped repeating.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::IntoStaticStr, strum::Display,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum StopReason {
    /// Its median was known to the target precision (the profile's, see `stats::precision`).
    Precise,
    /// Its share of the run's time budget, or the most repetitions the profile allows, ran out
    /// before the median was that precise.
    Budget,
    /// It ran the count it was asked for (`--runs N`, or a test that runs once).
    Count,
}

impl StopReason {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// The adaptive rule a run's repetitions followed, as the document records it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AdaptiveSettings {
    pub min_runs: usize,
    pub max_runs: usize,
    /// The target half-width of the median's 95% confidence interval, a fraction of it.
    pub precision: f64,
    /// The time the run aimed at, in seconds.
    pub budget_s: f64,
    /// The share of the profile's sizes the run's work fixed in bytes was sized to once the
    /// destination showed its rate (the block tests' file, QuickBench's transfers, the
    /// generated sets, where the user gave no size): 1, or 0.5, 0.2 or 0.1 to fit the budget.
    #[serde(default = "whole")]
    pub size_share: f64,
}

/// Documents written before runs were sized had the profile's sizes.
fn whole() -> f64 {
    1.0
}
