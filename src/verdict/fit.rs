//! Weighted linear least squares for the estimate's cost model: `time ≈ Σ x_k × c_k` over a
//! handful of terms, each sample weighted by 1/time² so every sample counts by its relative
//! error. Pure, and small enough (at most four unknowns) for the normal equations.

use serde::Serialize;

/// A prediction with its range.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Range {
    pub low: f64,
    pub expected: f64,
    pub high: f64,
}

/// One observation: the terms' amounts (directories, files, bytes, ...) and the time it took.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub x: Vec<f64>,
    pub seconds: f64,
}

/// The fitted coefficients of the terms in `terms` (the others are 0), or None when the
/// samples do not determine them.
pub fn solve(samples: &[Sample], terms: &[usize], width: usize) -> Option<Vec<f64>> {
    let k = terms.len();
    let mut a = vec![vec![0.0; k + 1]; k];
    for s in samples.iter().filter(|s| s.seconds > 0.0) {
        let w = 1.0 / (s.seconds * s.seconds);
        for (i, &ti) in terms.iter().enumerate() {
            for (j, &tj) in terms.iter().enumerate() {
                a[i][j] += w * s.x[ti] * s.x[tj];
            }
            a[i][k] += w * s.x[ti] * s.seconds;
        }
    }
    // Gaussian elimination with partial pivoting; a pivot tiny next to its column's scale
    // means the samples cannot tell two terms apart (sets of one shape).
    let scale: Vec<f64> = (0..k).map(|i| a[i][i].abs()).collect();
    for col in 0..k {
        let pivot = (col..k).max_by(|&p, &q| a[p][col].abs().total_cmp(&a[q][col].abs()))?;
        a.swap(col, pivot);
        if a[col][col].abs() <= 1e-9 * scale[col] || a[col][col].is_nan() {
            return None;
        }
        let pivot_row = a[col].clone();
        for (r, row) in a.iter_mut().enumerate() {
            if r != col {
                let f = row[col] / pivot_row[col];
                for (cell, p) in row.iter_mut().zip(&pivot_row).skip(col) {
                    *cell -= f * p;
                }
            }
        }
    }
    let mut coefficients = vec![0.0; width];
    for (i, &t) in terms.iter().enumerate() {
        coefficients[t] = a[i][k] / a[i][i];
    }
    coefficients
        .iter()
        .all(|c| c.is_finite())
        .then_some(coefficients)
}

/// The model's prediction for `x`.
pub fn predict(coefficients: &[f64], x: &[f64]) -> f64 {
    coefficients.iter().zip(x).map(|(c, x)| c * x).sum()
}

/// The root mean square of the samples' relative residuals, `predicted / measured - 1`.
pub fn relative_rms(coefficients: &[f64], samples: &[Sample]) -> f64 {
    let n = samples.len().max(1) as f64;
    (samples
        .iter()
        .map(|s| (predict(coefficients, &s.x) / s.seconds - 1.0).powi(2))
        .sum::<f64>()
        / n)
        .sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_three_known_costs_and_refuses_collinear_samples() {
        let truth = [0.004, 0.001, 2.5e-8];
        let xs = [
            [400.0, 0.0, 0.0],
            [40.0, 1600.0, 2.4e6],
            [12.0, 600.0, 2.0e7],
            [1.0, 4.0, 4.8e7],
        ];
        let samples: Vec<Sample> = xs
            .iter()
            .map(|x| Sample {
                x: x.to_vec(),
                seconds: predict(&truth, x),
            })
            .collect();
        let got = solve(&samples, &[0, 1, 2], 3).unwrap();
        for (g, t) in got.iter().zip(truth) {
            assert!((g / t - 1.0).abs() < 1e-6, "{got:?}");
        }
        assert!(relative_rms(&got, &samples) < 1e-9);
        // Two terms always in the same proportion cannot be told apart.
        let collinear: Vec<Sample> = (1..4)
            .map(|i| Sample {
                x: vec![i as f64, 2.0 * i as f64],
                seconds: i as f64,
            })
            .collect();
        assert_eq!(solve(&collinear, &[0, 1], 2), None);
    }
}
