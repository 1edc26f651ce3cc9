use super::*;

/// A standard normal draw (Box-Muller).
fn normal(rng: &mut fastrand::Rng) -> f64 {
    let u = 1.0 - rng.f64();
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * rng.f64()).cos()
}

/// `n` points around `level` of an AR(1) series: each point's noise is `phi` of the last one's
/// plus fresh noise, scaled so the points' standard deviation is `sd`.
fn ar1(level: f64, sd: f64, phi: f64, n: usize, seed: u64) -> Vec<f64> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let fresh = sd * (1.0 - phi * phi).sqrt();
    let mut e = sd * normal(&mut rng);
    (0..n)
        .map(|_| {
            e = phi * e + fresh * normal(&mut rng);
            level + e
        })
        .collect()
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

/// The classic 95% half-width of the mean of all `points` taken as independent, as a fraction.
fn classic(points: &[f64]) -> f64 {
    let m = mean(points);
    let var = points.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (points.len() - 1) as f64;
    1.96 * (var / points.len() as f64).sqrt() / m
}

/// The batch-means half-width of repetitions whose figures are their series' means.
fn batched(series: &[Vec<f64>]) -> (f64, BatchEstimate) {
    let figures: Vec<f64> = series.iter().map(|s| mean(s)).collect();
    let parts: Vec<&[f64]> = series.iter().map(Vec::as_slice).collect();
    let e = estimate(&figures, &parts).expect("long enough");
    let median = crate::stats::median(&figures);
    (e.half_width(figures.len(), median, 0.95).unwrap(), e)
}

/// Independent points: batches of one, and about the classic interval of all points. The
/// figures' own spread takes over when the two means happen to lie further apart than the
/// series' noise predicts (|Z| > 1, a third of the time), so the interval is never tighter than
/// the classic one and its typical width is close to it.
#[test]
fn independent_points_give_about_the_classic_interval() {
    let mut ratios: Vec<f64> = (0..20)
        .map(|seed| {
            let reps: Vec<Vec<f64>> = (0..2)
                .map(|r| ar1(100.0, 5.0, 0.0, 200, seed * 10 + r))
                .collect();
            let (h, e) = batched(&reps);
            assert_eq!(e.batch, 1, "seed {seed}: {e:?}");
            h / classic(&reps.concat())
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    assert!(ratios[0] > 0.9, "{ratios:?}");
    assert!((0.95..=1.3).contains(&ratios[10]), "median {ratios:?}");
}

/// Correlated points know their mean less well than as many independent ones: an AR(1) series
/// at 0.8 has about a ninth of its points' worth of information ((1 + 0.8) / (1 - 0.8) = 9,
/// a 3x wider interval). The batches grow, and the interval widens with the correlation.
#[test]
fn the_interval_widens_with_autocorrelation() {
    let mut widths = Vec::new();
    for phi in [0.0, 0.5, 0.8] {
        let reps: Vec<Vec<f64>> = (0..3).map(|r| ar1(100.0, 5.0, phi, 240, 7 + r)).collect();
        let (h, e) = batched(&reps);
        let naive = classic(&reps.concat());
        eprintln!(
            "phi {phi}: {h:.4} (batch {}, lag1 {:.2}); naive {naive:.4}",
            e.batch, e.lag1
        );
        if phi == 0.8 {
            assert!(e.batch > 1, "{e:?}");
            assert!(h > 2.0 * naive, "{h} vs {naive}");
        }
        widths.push(h);
    }
    assert!(widths[0] < widths[1] && widths[1] < widths[2], "{widths:?}");
}

/// Two repetitions each flat to 0.1% but at 26 and 29 MB/s: the interval covers both, however
/// tight each series is.
#[test]
fn repetitions_at_different_levels_are_wide() {
    let reps = vec![ar1(26.0, 0.026, 0.0, 40, 1), ar1(29.0, 0.029, 0.0, 40, 2)];
    let (h, _) = batched(&reps);
    let median = 27.5;
    assert!(h * median >= 1.5, "±{:.3} MB/s", h * median);
    let same = vec![ar1(26.0, 0.026, 0.0, 40, 1), ar1(26.0, 0.026, 0.0, 40, 2)];
    assert!(batched(&same).0 < 0.002, "{}", batched(&same).0);
}

/// Too few points for MIN_DF degrees of freedom, one figure, or a mismatch: no estimate.
#[test]
fn short_or_single_series_give_no_estimate() {
    let short = [26.0, 26.1, 25.9];
    assert!(estimate(&[26.0, 26.0], &[&short, &short[..2]]).is_none());
    assert!(estimate(&[26.0], &[&[26.0; 40]]).is_none());
    assert!(estimate(&[26.0, 26.0], &[&[26.0; 40]]).is_none());
    let few = [26.0; MIN_DF / 2];
    assert!(
        estimate(&[26.0, 26.0], &[&few, &few]).is_none(),
        "MIN_DF - 2 df"
    );
    let flat = [26.0; 10];
    let e = estimate(&[26.0, 26.0], &[&flat, &flat]).unwrap();
    assert_eq!((e.df, e.standard_error), (18, 0.0));
}

/// The steady part leaves out the first interval and what came before a cliff.
#[test]
fn the_steady_part_starts_after_the_queue_fills_and_after_a_cliff() {
    let plain = [5.0, 26.0, 26.0, 26.0];
    assert_eq!(steady_part(&plain), &plain[1..]);
    let mut cliff = vec![0.0];
    cliff.extend([150.0; 10]);
    cliff.extend([40.0; 12]);
    assert_eq!(steady_part(&cliff), &[40.0; 12]);
    assert!(steady_part(&[]).is_empty());
}
