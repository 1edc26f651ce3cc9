//! The estimate's advice: what would change the time, from where it goes.

use super::{CopyMeasurement, Costs, SHORTEST_MEASURE_S, Shares, max, min};

/// The share of the time at which a cost is worth a piece of advice.
const ADVICE_SHARE: f64 = 0.4;

/// Copies of one set this much apart (slowest over fastest) say the destination changed under
/// the measurement, not that copies vary.
const UNSTEADY: f64 = 1.25;

/// Says so when the copies of one set took very different times: the destination's speed
/// changed during the measurement (a deletion of many files just before is a common cause);
/// the estimate's interval widens with it, and the user should know why.
pub(super) fn unsteady(measurements: &[CopyMeasurement]) -> Option<String> {
    let (m, fastest, slowest) = measurements
        .iter()
        .filter(|m| m.seconds.len() >= 2)
        .map(|m| (m, min(&m.seconds), max(&m.seconds)))
        .filter(|&(_, fastest, _)| fastest >= SHORTEST_MEASURE_S)
        .max_by(|a, b| (a.2 / a.1).total_cmp(&(b.2 / b.1)))?;
    (slowest / fastest > UNSTEADY).then(|| {
        format!(
            "the destination's speed changed during the measurement: the {} set's copies took {:.2} s to {:.2} s (another client, a recent deletion of many files, a cache filling or the machine busy); the interval is wide for it: estimate again when the destination is idle",
            m.variant, fastest, slowest
        )
    })
}

/// What would change the time, from where it goes.
pub(super) fn advice(shares: &Shares, costs: &Costs) -> Vec<String> {
    let total = shares.total();
    if total <= 0.0 {
        return Vec::new();
    }
    let human = crate::units::human_duration;
    let mut out = Vec::new();
    let overhead = shares.per_file_s + shares.directories_s;
    if overhead / total >= ADVICE_SHARE {
        // Threads overlap the per-file and per-directory waits at best; the bytes still go
        // through the same bandwidth.
        let four = shares.start_s + shares.bandwidth_s.max(overhead / 4.0);
        out.push(format!(
            "{:.0}% of the time is per-file and per-directory overhead: 4 threads would take {} at best instead of {} (measure it: {} parallel:4), or pack small files into an archive",
            100.0 * overhead / total,
            human(four),
            human(total),
            crate::settings::defs::TOOL,
        ));
    }
    if shares.bandwidth_s / total >= ADVICE_SHARE {
        let faster = shares.start_s + overhead + shares.bandwidth_s / 10.0;
        out.push(format!(
            "{:.0}% of the time is bandwidth ({:.1} MB/s): a destination 10 times faster (a gigabit link instead of 100 Mbit) would take {} at most",
            100.0 * shares.bandwidth_s / total,
            costs.bytes_per_s / 1e6,
            human(faster)
        ));
    }
    out
}
