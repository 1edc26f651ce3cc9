//! Steady state and the write cliff, from a throughput time series. Pure code.
//!
//! # Steady
//!
//! The series is steady when its recent part is flat: over the last half of everything written
//! so far (and at least a minimum number of intervals), the least-squares slope moves the rate
//! by at most [`SLOPE_LIMIT`] of its mean across that window, and the coefficient of variation
//! is at most [`SPREAD_LIMIT`]. Asking for "the last half" means the rate after a cliff must
//! have held for as long as everything before it. The minimum is the caller's (at least
//! [`MIN_STEADY_POINTS`]): a flat start cannot be told from a cache that has not run out yet,
//! so the minimum is how long a flat start must last before it is believed; the runner makes it
//! a quarter of `--time`.
//!
//! # The cliff
//!
//! The one change point that best splits the series into two flat parts (least squared error
//! around each part's mean), kept only when the later part's mean is at least [`CLIFF_DROP`]
//! below the earlier one's and each part is at least [`MIN_SEGMENT_POINTS`] intervals long. The
//! bytes before the cliff are those of the intervals before the change point: the size of an
//! SSD's SLC cache, or what an enclosure wrote before it throttled.

/// Intervals the steady window needs at least.
pub const MIN_STEADY_POINTS: usize = 8;
/// Largest change the fitted slope may make across the steady window, as a fraction of its mean.
pub const SLOPE_LIMIT: f64 = 0.05;
/// Largest coefficient of variation of the steady window.
pub const SPREAD_LIMIT: f64 = 0.10;
/// Smallest drop that counts as a cliff, as a fraction of the rate before it.
pub const CLIFF_DROP: f64 = 0.20;
/// Intervals each side of a cliff needs at least.
pub const MIN_SEGMENT_POINTS: usize = 3;

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

fn squared_error(v: &[f64]) -> f64 {
    let m = mean(v);
    v.iter().map(|x| (x - m).powi(2)).sum()
}

/// Least-squares slope per interval.
fn slope(v: &[f64]) -> f64 {
    let n = v.len() as f64;
    let xm = (n - 1.0) / 2.0;
    let ym = mean(v);
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, y) in v.iter().enumerate() {
        let dx = i as f64 - xm;
        sxy += dx * (y - ym);
        sxx += dx * dx;
    }
    if sxx > 0.0 { sxy / sxx } else { 0.0 }
}

/// How flat a window is.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Flatness {
    /// The fitted change across the window, as a fraction of its mean.
    pub drift: f64,
    /// Coefficient of variation.
    pub cv: f64,
}

impl Flatness {
    pub fn of(window: &[f64]) -> Option<Flatness> {
        let m = mean(window);
        if window.len() < 2 || m <= 0.0 {
            return None;
        }
        let variance = squared_error(window) / (window.len() - 1) as f64;
        Some(Flatness {
            drift: (slope(window) * (window.len() - 1) as f64 / m).abs(),
            cv: variance.sqrt() / m,
        })
    }

    pub fn is_flat(&self) -> bool {
        self.drift <= SLOPE_LIMIT && self.cv <= SPREAD_LIMIT
    }
}

/// Whether the series (complete intervals only) has reached its steady state; see the module
/// documentation for the rule.
pub fn is_steady(rates: &[f64], min_points: usize) -> bool {
    let window = rates
        .len()
        .div_ceil(2)
        .max(min_points)
        .max(MIN_STEADY_POINTS);
    if rates.len() < window {
        return false;
    }
    Flatness::of(&rates[rates.len() - window..]).is_some_and(|f| f.is_flat())
}

/// The series averaged over groups of `factor` intervals (an incomplete last group dropped):
/// steadiness is judged on points of about a second, where the spread is the device's rather
/// than the granularity of its requests (eight 1 MiB writes make a 200 ms point jumpy).
pub fn rebin(rates: &[f64], factor: usize) -> Vec<f64> {
    rates
        .chunks_exact(factor.max(1))
        .map(|c| c.iter().sum::<f64>() / c.len() as f64)
        .collect()
}

/// A drop in the write rate.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Cliff {
    /// The first interval after the cliff.
    pub index: usize,
    pub before_mb_s: f64,
    pub after_mb_s: f64,
}

/// The cliff in `rates` (MB/s per interval), if there is one; see the module documentation.
pub fn find_cliff(rates: &[f64]) -> Option<Cliff> {
    let n = rates.len();
    if n < 2 * MIN_SEGMENT_POINTS {
        return None;
    }
    let best = (MIN_SEGMENT_POINTS..=n - MIN_SEGMENT_POINTS)
        .map(|k| (k, squared_error(&rates[..k]) + squared_error(&rates[k..])))
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    let (before, after) = (mean(&rates[..best.0]), mean(&rates[best.0..]));
    (after < before * (1.0 - CLIFF_DROP)).then_some(Cliff {
        index: best.0,
        before_mb_s: before,
        after_mb_s: after,
    })
}

/// Megabytes written before `cliff` in `rates` (MB/s per interval of `dt` seconds): the
/// intervals before the change point, with the two at the boundary split by where their rate
/// lies between the rates before and after (a cliff mid-interval shows as a rate in between),
/// so the position is found to a fraction of an interval.
pub fn megabytes_before(rates: &[f64], cliff: &Cliff, dt: f64) -> f64 {
    let i = cliff.index;
    // Medians: the boundary interval itself must not pull the rates it is split by.
    let (before, after) = (super::median(&rates[..i]), super::median(&rates[i..]));
    let fast_share = |r: f64| {
        if before > after {
            ((r - after) / (before - after)).clamp(0.0, 1.0)
        } else {
            1.0
        }
    };
    let whole: f64 = rates[..i - 1].iter().sum::<f64>() * dt;
    whole
        + [i - 1, i]
            .iter()
            .map(|&j| fast_share(rates[j]) * before * dt)
            .sum::<f64>()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic wobble of ±`amplitude` (fraction) around `rate`.
    fn noisy(rate: f64, n: usize, amplitude: f64, seed: u64) -> Vec<f64> {
        let mut rng = fastrand::Rng::with_seed(seed);
        (0..n)
            .map(|_| rate * (1.0 + amplitude * (2.0 * rng.f64() - 1.0)))
            .collect()
    }

    #[test]
    fn flat_series_is_steady_once_long_enough_and_has_no_cliff() {
        let flat = vec![100.0; 20];
        assert!(!is_steady(&flat[..MIN_STEADY_POINTS - 1], 0));
        assert!(is_steady(&flat[..MIN_STEADY_POINTS], 0));
        assert!(find_cliff(&flat).is_none());
        assert!(!is_steady(&flat, 21), "the caller's minimum counts");
    }

    #[test]
    fn cliff_is_found_where_it_was_put() {
        let mut s = noisy(150.0, 17, 0.05, 1);
        s.extend(noisy(40.0, 25, 0.05, 2));
        let cliff = find_cliff(&s).unwrap();
        assert_eq!(cliff.index, 17);
        assert!((cliff.before_mb_s - 150.0).abs() < 5.0 && (cliff.after_mb_s - 40.0).abs() < 2.0);
    }

    #[test]
    fn a_cliff_mid_interval_is_placed_within_the_interval() {
        // 10.25 intervals at 150 MB/s, then 40: the eleventh interval averages the two.
        let mut s = vec![150.0; 10];
        s.push(0.25 * 150.0 + 0.75 * 40.0);
        s.extend(vec![40.0; 12]);
        let cliff = find_cliff(&s).unwrap();
        let mb = megabytes_before(&s, &cliff, 0.2);
        assert!((mb - 10.25 * 150.0 * 0.2).abs() < 1e-9, "{mb}");
    }

    #[test]
    fn steady_needs_the_new_rate_to_last_as_long_as_the_cache_did() {
        let mut s = vec![150.0; 20];
        s.extend(vec![40.0; 19]);
        assert!(
            !is_steady(&s, 0),
            "19 points after 20 of cache are not yet half"
        );
        s.push(40.0);
        assert!(is_steady(&s, 0));
    }

    #[test]
    fn noise_within_the_spread_limit_is_steady_and_not_a_cliff() {
        let s = noisy(80.0, 40, 0.12, 3);
        assert!(is_steady(&s, 0), "{:?}", Flatness::of(&s[20..]));
        assert!(find_cliff(&s).is_none());
        let wild = noisy(80.0, 40, 0.5, 4);
        assert!(!is_steady(&wild, 0));
    }

    #[test]
    fn slow_drift_is_not_steady_nor_a_cliff() {
        // Thermal creep: 1% lower every interval, 10% over the window.
        let s: Vec<f64> = (0..20).map(|i| 100.0 * (1.0 - 0.01 * i as f64)).collect();
        assert!(!is_steady(&s, 0), "{:?}", Flatness::of(&s[10..]));
        assert!(
            find_cliff(&s).is_none(),
            "a 19% total drift is below the cliff threshold"
        );
    }
}
