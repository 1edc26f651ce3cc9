//! A monotonic trend over the order of the repetitions (Mann-Kendall), and its size (Theil-Sen):
//! a destination whose state changes under the test (a cache filling, heat, the aftermath of our
//! own cleanup) drifts in one direction even when the spread is small.
//!
//! Mann-Kendall's S counts, over every pair of repetitions, +1 when the later one is higher and
//! -1 when it is lower. Without ties S has the distribution of `n(n-1)/2 - 2 * inversions` of a
//! random permutation, so its p-value is exact from the Mahonian numbers up to
//! [`EXACT_UP_TO`] samples; above, and with ties, the normal approximation with the tie
//! correction and a continuity correction (Kendall 1975; Hipel & McLeod 1994, ch. 23).

/// Repetitions needed before a trend can be significant at 5% (two-sided): with 4 the most
/// extreme order has p = 2/24 = 0.083; with 5, p = 2/120 = 0.017.
pub const MIN_TREND_SAMPLES: usize = 5;

/// Up to this many samples without ties, the p-value is exact.
const EXACT_UP_TO: usize = 40;

/// A trend found by [`trend`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Trend {
    /// Mann-Kendall's S: positive when later samples are higher.
    pub s: i64,
    /// Two-sided p-value of S under "no trend".
    pub p: f64,
    /// The change from the first sample to the last along the Theil-Sen line, as a fraction of
    /// the line's value at the first sample (-0.2: 20% lower at the end).
    pub change: f64,
}

/// The trend of `samples` in their order; None for fewer than [`MIN_TREND_SAMPLES`].
pub fn trend(samples: &[f64]) -> Option<Trend> {
    let n = samples.len();
    if n < MIN_TREND_SAMPLES {
        return None;
    }
    let mut s = 0i64;
    for i in 0..n {
        for j in i + 1..n {
            s += match samples[j].total_cmp(&samples[i]) {
                std::cmp::Ordering::Greater => 1,
                std::cmp::Ordering::Less => -1,
                std::cmp::Ordering::Equal => 0,
            };
        }
    }
    let ties = tie_groups(samples);
    let p = if ties.is_empty() && n <= EXACT_UP_TO {
        exact_p(n, s)
    } else {
        normal_p(n, s, &ties)
    };
    Some(Trend {
        s,
        p,
        change: sen_change(samples),
    })
}

/// Sizes of the groups of equal samples (groups of one left out).
fn tie_groups(samples: &[f64]) -> Vec<usize> {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mut groups = Vec::new();
    let mut run = 1;
    for w in sorted.windows(2) {
        if w[0] == w[1] {
            run += 1;
        } else {
            if run > 1 {
                groups.push(run);
            }
            run = 1;
        }
    }
    if run > 1 {
        groups.push(run);
    }
    groups
}

/// P(|S'| >= |s|) over the n! orders, from the counts of permutations by inversions.
fn exact_p(n: usize, s: i64) -> f64 {
    let pairs = n * (n - 1) / 2;
    // counts[k]: permutations of the first m items with k inversions (as f64: 40! overflows).
    let mut counts = vec![0.0f64; pairs + 1];
    counts[0] = 1.0;
    for m in 2..=n {
        let mut next = vec![0.0f64; pairs + 1];
        let most = m * (m - 1) / 2;
        for (k, slot) in next.iter_mut().enumerate().take(most + 1) {
            // The m-th item adds 0..m-1 inversions.
            *slot = (0..m.min(k + 1)).map(|add| counts[k - add]).sum();
        }
        counts = next;
    }
    let total: f64 = counts.iter().sum();
    // S = pairs - 2 * inversions.
    let extreme: f64 = counts
        .iter()
        .enumerate()
        .filter(|&(k, _)| (pairs as i64 - 2 * k as i64).abs() >= s.abs())
        .map(|(_, c)| c)
        .sum();
    (extreme / total).min(1.0)
}

/// The normal approximation of S with ties, continuity-corrected.
fn normal_p(n: usize, s: i64, ties: &[usize]) -> f64 {
    let var_of = |t: usize| {
        let t = t as f64;
        t * (t - 1.0) * (2.0 * t + 5.0)
    };
    let variance = (var_of(n) - ties.iter().map(|&t| var_of(t)).sum::<f64>()) / 18.0;
    if variance <= 0.0 || s == 0 {
        return 1.0;
    }
    let z = (s.abs() as f64 - 1.0) / variance.sqrt();
    (2.0 * (1.0 - standard_normal_cdf(z))).clamp(0.0, 1.0)
}

fn standard_normal_cdf(z: f64) -> f64 {
    use statrs::function::erf::erfc;
    0.5 * erfc(-z / std::f64::consts::SQRT_2)
}

/// The Theil-Sen line's change from the first sample to the last, relative to its start.
fn sen_change(samples: &[f64]) -> f64 {
    let n = samples.len();
    let mut slopes = Vec::with_capacity(n * (n - 1) / 2);
    for i in 0..n {
        for j in i + 1..n {
            slopes.push((samples[j] - samples[i]) / (j - i) as f64);
        }
    }
    let slope = super::median(&slopes);
    let offsets: Vec<f64> = samples
        .iter()
        .enumerate()
        .map(|(i, x)| x - slope * i as f64)
        .collect();
    let start = super::median(&offsets);
    if start == 0.0 {
        return 0.0;
    }
    slope * (n - 1) as f64 / start
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_steady_decline_is_significant_with_five_samples() {
        let t = trend(&[100.0, 95.0, 90.0, 85.0, 80.0]).unwrap();
        assert_eq!(t.s, -10);
        // Only the two fully ordered permutations of five reach |S| = 10: 2/120.
        assert!((t.p - 2.0 / 120.0).abs() < 1e-12, "{}", t.p);
        assert!((t.change + 0.20).abs() < 1e-12, "{}", t.change);
    }

    #[test]
    fn exact_p_values_match_kendalls_table() {
        // n = 5, S = 8: one inversion; 1 + 4 permutations on each side, 10/120.
        let t = trend(&[1.0, 3.0, 2.0, 4.0, 5.0]).unwrap();
        assert_eq!(t.s, 8);
        assert!((t.p - 10.0 / 120.0).abs() < 1e-12, "{}", t.p);
        // n = 6, S = 15: P(S >= 15) = 1/720 on each side.
        let t = trend(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        assert!((t.p - 2.0 / 720.0).abs() < 1e-12, "{}", t.p);
    }

    #[test]
    fn no_order_no_trend() {
        let t = trend(&[10.0, 12.0, 9.0, 11.0, 10.5, 9.5, 11.5]).unwrap();
        assert!(t.p > 0.5, "{t:?}");
        assert!(trend(&[1.0, 2.0, 3.0, 4.0]).is_none(), "four cannot tell");
    }

    #[test]
    fn ties_use_the_corrected_normal_approximation() {
        let t = trend(&[5.0, 5.0, 4.0, 4.0, 3.0, 3.0, 2.0, 2.0]).unwrap();
        // S = -24 (the 4 tied pairs count 0); var = (8*7*21 - 4*2*1*9) / 18 = 61.33.
        assert_eq!(t.s, -24);
        let z = 23.0 / ((1176.0f64 - 72.0) / 18.0).sqrt();
        let expected = 2.0 * (1.0 - standard_normal_cdf(z));
        assert!((t.p - expected).abs() < 1e-12, "{} vs {expected}", t.p);
        assert!(t.p < 0.01);
        assert!(trend(&[7.0; 6]).unwrap().p == 1.0, "all equal: no trend");
    }
}
