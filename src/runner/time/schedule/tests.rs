use super::*;
use crate::settings::Adaptive;
use crate::stats::precision;

/// The rule on repetitions whose precision is their figures' (no series).
fn decide(
    repeats: Repeats,
    samples: &[f64],
    would_spend_s: f64,
    allowance_s: Option<f64>,
) -> Option<StopReason> {
    let known = precision::median_half_width(samples, precision::CONFIDENCE);
    super::decide(repeats, (samples.len(), known), would_spend_s, allowance_s)
}

const RULE: Repeats = Repeats::UntilPrecise(Adaptive {
    min_runs: 2,
    max_runs: 5,
    precision: 0.02,
});

/// Three variants of 1 s repetitions (2 to 5 of them) with 90 s of budget to share.
fn three_variants() -> Schedule {
    let item = || Item {
        cost: Cost {
            seconds: 1.0,
            ..Cost::default()
        },
        prepare: Cost::default(),
        once: Vec::new(),
        each: Vec::new(),
        single: false,
        teaches: true,
        until_precise: false,
        test: crate::workload::TestId::SeqWrite,
        took_s: 0.0,
        took_reps: 0,
    };
    Schedule {
        items: vec![item(), item(), item()],
        repeats: RULE,
        budget_s: Some(90.0 + FINISH_S),
        judged: 0.0,
        used: 0.0,
        stretched: false,
    }
}

/// The profile's own tests get its whole budget; a few of them, their part of it.
#[test]
fn chosen_tests_get_their_share_of_the_budget() {
    use crate::settings::RunOptions;
    let plan = |tests: Option<&str>| {
        let mut o = RunOptions::new("/tmp");
        o.tests = tests.map(|t| {
            t.split(',')
                .map(|s| s.parse().unwrap())
                .collect::<Vec<_>>()
                .into()
        });
        o.plan().unwrap()
    };
    let budget = |p: &RunPlan| Schedule::new(p, |_| true).budget_s().unwrap();
    assert_eq!(budget(&plan(None)), 90.0);
    let seq = budget(&plan(Some("seq-write")));
    let blocks = budget(&plan(Some("seq-write,seq-read,4k-write,4k-read")));
    assert!(0.0 < seq && seq < blocks && blocks < 90.0, "{seq} {blocks}");
    let more = budget(&plan(Some(
        "seq-write,seq-read,4k-write,4k-read,tm-check,files-copy,files-restore,files-delete,meta,sustained",
    )));
    assert!(
        more > 90.0,
        "tests beyond the profile's get more time: {more}"
    );
}

/// Each variant is planned at its least repetitions (2 s) and a share of what it may spend
/// beyond them (up to its most, 5 s): half at first, then as much as the finished ones
/// used; one that had no room for another repetition teaches nothing.
#[test]
fn variants_are_planned_by_how_much_the_finished_ones_used() {
    let eta = Eta::default();
    let from_second = |s: &Schedule| s.predicted_from(&eta, s.start(&eta, 1));
    let mut s = three_variants();
    assert_eq!(s.allowance(&eta, 0), Some(30.0));
    assert_eq!(s.predicted_from(&eta, s.start(&eta, 0)), 3.0 * 3.5);
    s.finished(&eta, 0, 2.0, Some(30.0));
    let u = 0.05 / 1.1;
    assert!((from_second(&s) - 2.0 * (2.0 + 3.0 * u)).abs() < 1e-9);
    let mut s = three_variants();
    s.finished(&eta, 0, 5.0, Some(30.0));
    let u = 1.05 / 1.1;
    assert!((from_second(&s) - 2.0 * (2.0 + 3.0 * u)).abs() < 1e-9);
    let mut s = three_variants();
    s.finished(&eta, 0, 2.0, Some(2.5));
    assert_eq!(s.extra_share(), 0.5, "no room for a third: nothing learned");
}

/// Untimed work is in each variant's weight: the least work counts it, and a variant's
/// allowance is its weight's share of the budget left (90 s, 1 s in): 2 s, 12 s, 2 s.
#[test]
fn the_budget_plans_the_untimed_work() {
    let mut s = three_variants();
    s.items[1].once = vec![Work::new(Untimed::Copy, 1_000_000_000, 0)];
    let eta = Eta::default();
    assert_eq!(s.least_from(&eta, 0), 3.0 * 2.0 + 10.0, "1 GB at 100 MB/s");
    assert_eq!(s.untimed_from(&eta, 0)[Untimed::Copy as usize], 10.0);
    let mut later = eta.clone();
    later.catch_up(1.0);
    assert_eq!(s.allowance(&later, 0), Some(89.0 * 2.0 / 16.0));
    assert_eq!(s.allowance(&later, 1), Some(89.0 * 12.0 / 14.0));
}

/// A variant not yet repeated is predicted as its test's variants went against their plan.
#[test]
fn a_variant_is_predicted_as_its_siblings_went() {
    let mut s = three_variants();
    s.items[2].test = crate::workload::TestId::SeqRead;
    let eta = Eta::default();
    s.took(0, 3.0);
    s.took(0, 3.0);
    assert_eq!(
        s.next_rep_s(&eta, 1),
        3.0,
        "its sibling took 3 times its plan"
    );
    assert_eq!(s.next_rep_s(&eta, 2), 1.0, "another test: its plan");
}

#[test]
fn a_fixed_count_is_exactly_that_count() {
    let fixed = Repeats::Exactly(3);
    assert_eq!(decide(fixed, &[1.0, 1.0], 1e9, Some(0.0)), None);
    assert_eq!(
        decide(fixed, &[1.0, 5.0, 9.0], 0.0, None),
        Some(StopReason::Count)
    );
}

#[test]
fn never_before_the_least_repetitions() {
    assert_eq!(decide(RULE, &[100.0], 1e9, Some(0.0)), None);
}

/// 100 and 100.2: s = 0.141, t(1) = 12.71, half-width 12.71 * 1.2533 * 0.141 / 1.414 = 1.59
/// MB/s, 1.6% of the median: precise. 100 and 101 give 8%: not yet.
#[test]
fn precise_once_the_interval_is_within_the_target() {
    assert_eq!(
        decide(RULE, &[100.0, 100.2], 0.0, Some(10.0)),
        Some(StopReason::Precise)
    );
    assert_eq!(decide(RULE, &[100.0, 101.0], 0.0, Some(10.0)), None);
}

#[test]
fn budget_when_the_next_repetition_would_overrun_or_at_the_most() {
    let noisy = [100.0, 130.0, 80.0];
    assert_eq!(decide(RULE, &noisy, 9.0, Some(10.0)), None);
    assert_eq!(
        decide(RULE, &noisy, 11.0, Some(10.0)),
        Some(StopReason::Budget)
    );
    let most = [100.0, 130.0, 80.0, 120.0, 90.0];
    assert_eq!(decide(RULE, &most, 0.0, None), Some(StopReason::Budget));
}

/// In a stretched run a short headline figure past its allowance repeats on while imprecise
/// and within reach, up to its most; the others stop, as it does in a run that fits. The
/// default plan's are the headline's four block shapes, write and read, and Time Machine's
/// 500 small files.
#[test]
fn a_short_headline_figure_repeats_past_its_allowance_in_a_stretched_run() {
    let mut schedule = three_variants();
    schedule.items[1].until_precise = true;
    let close = [26.0, 26.2, 26.1];
    let imprecise = (&close[..], Some(0.1));
    let over = |s: &Schedule, i, figures| s.stop(i, figures, 11.0, 1.0, Some(10.0));
    assert_eq!(over(&schedule, 1, imprecise), Some(StopReason::Budget));
    schedule.mark_stretched();
    assert_eq!(over(&schedule, 0, imprecise), Some(StopReason::Budget));
    assert_eq!(over(&schedule, 1, imprecise), None);
    let scattered = [20.0, 26.0, 32.0];
    assert_eq!(
        over(&schedule, 1, (&scattered, Some(0.1))),
        Some(StopReason::Budget)
    );
    let most = [26.0, 26.2, 26.1, 26.0, 26.2];
    assert_eq!(
        over(&schedule, 1, (&most, Some(0.1))),
        Some(StopReason::Budget)
    );
    let plan = crate::settings::RunOptions::new("/tmp").plan().unwrap();
    let headlines: Vec<String> = Schedule::new(&plan, |_| true)
        .items
        .iter()
        .zip(&plan.variants)
        .filter(|(item, _)| item.until_precise)
        .map(|(_, v)| format!("{} {}", v.test, v.name))
        .collect();
    assert_eq!(
        headlines,
        [
            "seq-write SEQ1M-Q1T1",
            "seq-write SEQ1M-Q8T1",
            "seq-read SEQ1M-Q1T1",
            "seq-read SEQ1M-Q8T1",
            "4k-write RND4K-Q1T1",
            "4k-write RND4K-Q32T1",
            "4k-read RND4K-Q1T1",
            "4k-read RND4K-Q32T1",
            "tm-check 500x4KB"
        ]
    );
}
