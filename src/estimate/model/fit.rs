//! Weighted linear least squares for the estimate's cost model: `time ≈ Σ x_k × c_k` over a
//! handful of terms, each sample weighted by 1/time² so every sample counts by its relative
//! error. Pure.
//!
//! The terms' amounts run from 1 (the copy's start) to 10^8 (bytes), so the columns are scaled
//! to unit length and the system solved by a QR decomposition (`nalgebra`): squaring it into
//! normal equations would square that spread too.

use nalgebra::{DMatrix, DVector};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// One observation: the terms' amounts (directories, files, bytes, ...) and the time it took.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub x: Vec<f64>,
    pub seconds: f64,
}

/// A column closer than this to the span of the columns before it (all of unit length) is not
/// told apart from them: its coefficient would move by 1/this times the samples' noise.
const INDEPENDENT: f64 = 3e-5;

/// The design matrix of `rows` for `terms`, each row divided by its time (the residuals are
/// relative, the right-hand side all ones), its columns scaled to unit length, with their
/// scales; None where a column is all zero or not finite.
fn scaled_design(rows: &[&Sample], terms: &[usize]) -> Option<(DMatrix<f64>, Vec<f64>)> {
    let k = terms.len();
    let mut a = DMatrix::from_fn(rows.len(), k, |r, c| rows[r].x[terms[c]] / rows[r].seconds);
    let mut scale = vec![0.0; k];
    for (c, mut column) in a.column_iter_mut().enumerate() {
        scale[c] = column.norm();
        if !(scale[c] > 0.0 && scale[c].is_finite()) {
            return None;
        }
        column /= scale[c];
    }
    Some((a, scale))
}

/// The fitted coefficients of the terms in `terms` (the others are 0), or None when the
/// samples do not determine them.
pub fn solve(samples: &[Sample], terms: &[usize], width: usize) -> Option<Vec<f64>> {
    let rows: Vec<&Sample> = samples.iter().filter(|s| s.seconds > 0.0).collect();
    let k = terms.len();
    if rows.len() < k || k == 0 {
        return None;
    }
    let (a, scale) = scaled_design(&rows, terms)?;
    let qr = a.qr();
    let r = qr.r();
    if (0..k).any(|i| r[(i, i)].abs() <= INDEPENDENT) {
        return None;
    }
    let qt_b = qr.q().transpose() * DVector::from_element(rows.len(), 1.0);
    let scaled = r.solve_upper_triangular(&qt_b)?;
    let mut coefficients = vec![0.0; width];
    for (i, &t) in terms.iter().enumerate() {
        coefficients[t] = scaled[i] / scale[i];
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

/// The standard error, in seconds, of the prediction at `x` of the fit `coefficients` (its
/// `terms`) to `samples`: every fitted term's uncertainty carried to `x` together (their
/// covariance from the samples' relative scatter about the fit, weighted as the fit is). None
/// where the samples leave no degree of freedom or do not determine the terms.
pub fn prediction_error(
    samples: &[Sample],
    terms: &[usize],
    coefficients: &[f64],
    x: &[f64],
) -> Option<f64> {
    let rows: Vec<&Sample> = samples.iter().filter(|s| s.seconds > 0.0).collect();
    let k = terms.len();
    if rows.len() <= k || k == 0 {
        return None;
    }
    // The columns at unit length before the product is inverted, as `solve` has them.
    let (a, scale) = scaled_design(&rows, terms)?;
    let scatter = rows
        .iter()
        .map(|s| (predict(coefficients, &s.x) / s.seconds - 1.0).powi(2))
        .sum::<f64>()
        / (rows.len() - k) as f64;
    let inverse = (a.transpose() * &a).try_inverse()?;
    let v = DVector::from_fn(k, |i, _| x[terms[i]] / scale[i]);
    let variance = scatter * (v.transpose() * inverse * &v)[(0, 0)];
    (variance >= 0.0 && variance.is_finite()).then(|| variance.sqrt())
}

/// Student's t at 97.5% for `dof` degrees of freedom: a fit's prediction ± this many standard
/// errors is its 95% interval, wider where few samples leave few degrees of freedom.
pub fn t95(dof: usize) -> f64 {
    StudentsT::new(0.0, 1.0, dof as f64).map_or(f64::INFINITY, |t| t.inverse_cdf(0.975))
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

    fn exact(truth: &[f64], xs: &[[f64; 3]]) -> Vec<Sample> {
        xs.iter()
            .map(|x| Sample {
                x: x.to_vec(),
                seconds: predict(truth, x),
            })
            .collect()
    }

    /// The three costs solved from exact samples of `truth` at `rows`, each within `tolerance`
    /// of the truth (relative); with the samples.
    fn recovered(truth: [f64; 3], rows: &[[f64; 3]], tolerance: f64) -> (Vec<f64>, Vec<Sample>) {
        let samples = exact(&truth, rows);
        let got = solve(&samples, &[0, 1, 2], 3).unwrap();
        for (g, t) in got.iter().zip(truth) {
            assert!((g / t - 1.0).abs() < tolerance, "{got:?}");
        }
        (got, samples)
    }

    #[test]
    fn recovers_three_known_costs_and_refuses_collinear_samples() {
        let rows = [
            [400.0, 0.0, 0.0],
            [40.0, 1600.0, 2.4e6],
            [12.0, 600.0, 2.0e7],
            [1.0, 4.0, 4.8e7],
        ];
        let (got, samples) = recovered([0.004, 0.001, 2.5e-8], &rows, 1e-6);
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

    /// A term that never varies from zero, and fewer samples than terms, determine nothing.
    #[test]
    fn an_absent_term_or_too_few_samples_determine_nothing() {
        let samples = exact(
            &[0.0, 0.001, 2.5e-8],
            &[[0.0, 10.0, 1e6], [0.0, 1000.0, 1e5]],
        );
        assert_eq!(solve(&samples, &[0, 1, 2], 3), None);
        assert_eq!(solve(&samples[..1], &[1, 2], 3), None);
        assert!(solve(&samples, &[1, 2], 3).is_some());
    }

    /// The prediction's error grows with the samples' scatter and with the distance of the
    /// point asked from the samples (an extrapolation carries the slope's error that far), and
    /// is none where exact samples leave nothing to doubt or no degree of freedom is left.
    #[test]
    fn the_prediction_error_carries_both_terms() {
        let line = |noise: f64| -> Vec<Sample> {
            [0.2, 0.2, 0.4, 0.4, 0.8, 0.8]
                .iter()
                .enumerate()
                .map(|(i, &share)| Sample {
                    x: vec![1.0, share],
                    seconds: (1.0 + 3.0 * share)
                        * if i % 2 == 0 { 1.0 + noise } else { 1.0 - noise },
                })
                .collect()
        };
        let exact = line(0.0);
        let c = solve(&exact, &[0, 1], 2).unwrap();
        assert!(prediction_error(&exact, &[0, 1], &c, &[1.0, 1.0]).unwrap() < 1e-9);
        let noisy = line(0.05);
        let c = solve(&noisy, &[0, 1], 2).unwrap();
        let error = |x: f64| prediction_error(&noisy, &[0, 1], &c, &[1.0, x]).unwrap();
        assert!(error(0.5) > 0.0);
        // Beyond the samples the error grows with the distance; at a share of 0 it is the
        // start's alone, larger than in the samples' middle.
        assert!(
            error(2.0) > error(1.0) && error(1.0) > error(0.5),
            "{:?}",
            [error(0.5), error(1.0), error(2.0)]
        );
        assert!(error(0.0) > error(0.5));
        // Twice the scatter, twice the error.
        let wider = line(0.10);
        let c2 = solve(&wider, &[0, 1], 2).unwrap();
        let ratio = prediction_error(&wider, &[0, 1], &c2, &[1.0, 1.0]).unwrap() / error(1.0);
        assert!((ratio - 2.0).abs() < 0.1, "{ratio}");
        assert_eq!(
            prediction_error(&noisy[..2], &[0, 1], &c, &[1.0, 1.0]),
            None
        );
        assert!(t95(1) > t95(4) && t95(4) > t95(30) && t95(30) > 1.96);
        assert!((t95(11) - 2.201).abs() < 0.001 && (t95(30) - 2.042).abs() < 0.001);
        assert_eq!(t95(0), f64::INFINITY);
    }

    /// Terms from 1 to 10^9 (a copy's start beside gigabytes) are recovered to rounding, where
    /// normal equations would square a condition of 10^9.
    #[test]
    fn terms_of_very_different_scales_are_recovered() {
        let rows = [
            [1.0, 0.0, 0.0],
            [1.0, 1600.0, 2.4e6],
            [1.0, 600.0, 2.0e7],
            [1.0, 4.0, 4.8e7],
            [1.0, 2.0, 2.1e9],
        ];
        recovered([0.2, 0.002, 1.0 / 40e6], &rows, 1e-12);
    }
}
