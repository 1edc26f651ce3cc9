//! Whether two sets of repetitions differ for real: Welch's t-test (unequal variances), with the
//! Student-t CDF from `statrs` so that no special function is written here.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// A difference is called real below this two-sided p-value.
pub const SIGNIFICANCE_LEVEL: f64 = 0.05;

/// The outcome of comparing run B's samples against run A's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Significance {
    /// Welch's t-test could run: `p` is the two-sided p-value, `df` the Welch–Satterthwaite
    /// degrees of freedom.
    Welch { t: f64, df: f64, p: f64 },
    /// Neither run varied at all (the null engine, or a perfectly repeatable figure): the means
    /// either are equal or differ with certainty; no distribution is needed.
    NoSpread { equal: bool },
    /// Fewer than two repetitions in one of the runs: a spread cannot be estimated.
    TooFewSamples,
}

impl Significance {
    /// True when the difference is real at [`SIGNIFICANCE_LEVEL`].
    pub fn is_real(self) -> bool {
        match self {
            Significance::Welch { p, .. } => p < SIGNIFICANCE_LEVEL,
            Significance::NoSpread { equal } => !equal,
            Significance::TooFewSamples => false,
        }
    }

    /// The p-value, when a test ran (0 or 1 for [`Significance::NoSpread`]).
    pub fn p_value(self) -> Option<f64> {
        match self {
            Significance::Welch { p, .. } => Some(p),
            Significance::NoSpread { equal } => Some(if equal { 1.0 } else { 0.0 }),
            Significance::TooFewSamples => None,
        }
    }

    /// A short verdict for tables: "real (p=0.003)", "no real difference (p=0.41)".
    pub fn describe(self) -> String {
        match self {
            Significance::Welch { p, .. } if self.is_real() => format!("real ({})", format_p(p)),
            Significance::Welch { p, .. } => format!("no real difference ({})", format_p(p)),
            Significance::NoSpread { equal: false } => "real (no spread in either run)".into(),
            Significance::NoSpread { equal: true } => "no difference (identical)".into(),
            Significance::TooFewSamples => "unknown (needs 2+ repetitions each)".into(),
        }
    }
}

/// "p<0.001" or "p=0.023": three decimals are all a handful of repetitions can support.
pub fn format_p(p: f64) -> String {
    if p < 0.001 {
        "p<0.001".into()
    } else {
        format!("p={p:.3}")
    }
}

fn mean_and_variance(samples: &[f64]) -> (f64, f64) {
    let n = samples.len() as f64;
    let mean = samples.iter().sum::<f64>() / n;
    let variance = samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, variance)
}

/// Welch's two-sided t-test of `b` against `a`.
pub fn welch(a: &[f64], b: &[f64]) -> Significance {
    if a.len() < 2 || b.len() < 2 {
        return Significance::TooFewSamples;
    }
    let (mean_a, var_a) = mean_and_variance(a);
    let (mean_b, var_b) = mean_and_variance(b);
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let (sa, sb) = (var_a / na, var_b / nb);
    let se2 = sa + sb;
    // Relative to the means, so that rounding noise in identical figures is not a "spread".
    let scale = mean_a.abs().max(mean_b.abs()).max(f64::MIN_POSITIVE);
    if se2.sqrt() <= scale * 1e-12 {
        return Significance::NoSpread {
            equal: (mean_a - mean_b).abs() <= scale * 1e-12,
        };
    }
    let t = (mean_b - mean_a) / se2.sqrt();
    let df = se2 * se2 / (sa * sa / (na - 1.0) + sb * sb / (nb - 1.0));
    let p = match StudentsT::new(0.0, 1.0, df) {
        Ok(dist) => (2.0 * dist.sf(t.abs())).clamp(0.0, 1.0),
        // df is positive and finite whenever se2 > 0; this cannot happen, but a test that
        // cannot run must not claim a difference.
        Err(_) => return Significance::TooFewSamples,
    };
    Significance::Welch { t, df, p }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn welch_parts(s: Significance) -> (f64, f64, f64) {
        match s {
            Significance::Welch { t, df, p } => (t, df, p),
            other => panic!("expected a Welch test, got {other:?}"),
        }
    }

    #[test]
    fn equal_variances_give_pooled_degrees_of_freedom_and_table_p_values() {
        // n = 3 each, variance 1 each: df = 2n - 2 = 4 exactly. The two-sided 5% critical value
        // of t with 4 df is 2.776445 (any t table), so a shift of 2.776445 * sqrt(2/3) is p = 0.05.
        let a = [10.0, 11.0, 12.0];
        let shift = 2.776_445 * (2.0f64 / 3.0).sqrt();
        let b = a.map(|x| x + shift);
        let (t, df, p) = welch_parts(welch(&a, &b));
        assert!((df - 4.0).abs() < 1e-12, "df {df}");
        assert!((t - 2.776_445).abs() < 1e-9, "t {t}");
        assert!((p - 0.05).abs() < 1e-5, "p {p}");

        // df = 10 (n = 6 each); the two-sided 1% critical value is 3.169273.
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let var = 3.5; // of 1..6
        let shift = 3.169_273 * (2.0 * var / 6.0f64).sqrt();
        let b = a.map(|x| x - shift);
        let (t, df, p) = welch_parts(welch(&a, &b));
        assert!((df - 10.0).abs() < 1e-12 && t < 0.0);
        assert!((p - 0.01).abs() < 1e-5, "p {p}");
    }

    #[test]
    fn unequal_variances_use_welch_satterthwaite() {
        // a: mean 2, variance 1 (n 3); b: mean 12, variance 16 (n 5): s_a = 1/3, s_b = 3.2.
        let a = [1.0, 2.0, 3.0];
        let d = 4.0 * 2.0f64.sqrt();
        let b = [12.0 - d, 12.0, 12.0, 12.0, 12.0 + d];
        let (t, df, _) = welch_parts(welch(&a, &b));
        let (sa, sb) = (1.0 / 3.0, 16.0 / 5.0);
        let expected_df = (sa + sb) * (sa + sb) / (sa * sa / 2.0 + sb * sb / 4.0);
        assert!((df - expected_df).abs() < 1e-9, "df {df} vs {expected_df}");
        assert!((t - 10.0 / (sa + sb).sqrt()).abs() < 1e-9);
    }

    #[test]
    fn verdicts() {
        let noisy_same = welch(&[100.0, 110.0, 90.0], &[101.0, 111.0, 89.0]);
        assert!(!noisy_same.is_real());
        assert!(noisy_same.describe().starts_with("no real difference (p="));
        let clearly = welch(&[100.0, 101.0, 99.0], &[200.0, 202.0, 198.0]);
        assert!(clearly.is_real());
        assert_eq!(clearly.describe(), "real (p<0.001)");
        assert_eq!(
            welch(&[5.0, 5.0], &[5.0, 5.0]),
            Significance::NoSpread { equal: true }
        );
        assert!(welch(&[5.0, 5.0], &[6.0, 6.0]).is_real());
        assert_eq!(welch(&[5.0], &[6.0, 7.0]), Significance::TooFewSamples);
        assert!(!Significance::TooFewSamples.is_real());
    }
}
