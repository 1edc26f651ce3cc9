//! The estimate's advice: what would change the time, from where it goes.

use super::{Costs, Shares};

/// The share of the time at which a cost is worth a piece of advice.
const ADVICE_SHARE: f64 = 0.4;

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
            "{:.0}% of the time is per-file and per-directory overhead: 4 threads would take {} at best instead of {} (measure it: --tool parallel:4), or pack small files into an archive",
            100.0 * overhead / total,
            human(four),
            human(total)
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
