//! Combines the clients' own run documents into one (pure: no MPI, no I/O). The aggregate of a
//! repetition is all bytes (or files, or operations) of all clients over the window from the
//! earliest start to the latest end, as IOR defines it; never the sum of the clients' rates,
//! which would flatter a client that finished early while another still worked.

use serde::{Deserialize, Serialize};

use crate::results::{
    Aggregate, AggregateRepetition, ClusterInfo, PerClient, RankRecord, RankWindow,
    RepetitionRecord, RunDocument, TestFailure, TestResult, Unit, Warning,
};
use crate::stats;
use crate::units;

/// What one client hands to rank 0 at the end of a run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RankPart {
    pub rank: usize,
    pub host: String,
    pub clock_offset_s: f64,
    /// Its windows, already on rank 0's clock.
    pub windows: Vec<RankWindow>,
    pub report: RunDocument,
    pub scratch: String,
}

/// How the clients ran, beside their parts.
pub struct Coordination {
    pub mpi_library: String,
    pub stonewall: bool,
}

/// One run document from every client's part (`parts` in rank order, rank 0 first): its
/// `results` are the aggregates, `cluster` keeps each client's windows and results.
pub fn combine(parts: Vec<RankPart>, how: &Coordination) -> RunDocument {
    let Some(first) = parts.first() else {
        return RunDocument::default();
    };
    let mut doc = first.report.clone();
    let aggregates: Vec<Aggregate> = first
        .report
        .results
        .iter()
        .map(|result| aggregate(result, &parts))
        .collect();
    doc.results = first
        .report
        .results
        .iter()
        .zip(&aggregates)
        .map(|(own, agg)| aggregate_result(own, agg))
        .collect();
    doc.failures = parts
        .iter()
        .flat_map(|p| {
            p.report.failures.iter().map(|f| TestFailure {
                error: format!("rank {}: {}", p.rank, f.error),
                ..f.clone()
            })
        })
        .collect();
    for part in &parts[1..] {
        Warning::add_new(&mut doc.warnings, part.report.warnings.iter().cloned());
    }
    doc.started_unix_s = parts
        .iter()
        .map(|p| p.report.started_unix_s)
        .min()
        .unwrap_or(0);
    doc.duration_s = parts
        .iter()
        .map(|p| p.report.duration_s)
        .fold(0.0, f64::max);
    doc.peak_rss_bytes = parts.iter().filter_map(|p| p.report.peak_rss_bytes).max();
    let mut hosts: Vec<String> = Vec::new();
    for part in &parts {
        if !hosts.contains(&part.host) {
            hosts.push(part.host.clone());
        }
    }
    doc.clients = Some(parts.len());
    doc.cluster = Some(ClusterInfo {
        clients: parts.len(),
        hosts,
        mpi_library: how.mpi_library.clone(),
        worst_clock_offset_s: parts
            .iter()
            .map(|p| p.clock_offset_s.abs())
            .fold(0.0, f64::max),
        stonewall: how.stonewall,
        aggregates,
        scaling: Vec::new(),
        ranks: parts
            .into_iter()
            .map(|p| RankRecord {
                rank: p.rank,
                host: p.host,
                clock_offset_s: p.clock_offset_s,
                scratch: p.scratch,
                windows: p.windows,
                results: p.report.results,
            })
            .collect(),
    });
    doc
}

/// One result across the clients: per repetition, every client's window of that repetition.
fn aggregate(result: &TestResult, parts: &[RankPart]) -> Aggregate {
    let same = |w: &&RankWindow| w.test == result.test && w.variant == result.variant;
    let reps = parts
        .iter()
        .flat_map(|p| p.windows.iter().filter(same))
        .map(|w| w.repetition + 1)
        .max()
        .unwrap_or(0);
    let repetitions: Vec<AggregateRepetition> = (0..reps)
        .filter_map(|rep| {
            let windows: Vec<&RankWindow> = parts
                .iter()
                .flat_map(|p| p.windows.iter().filter(same))
                .filter(|w| w.repetition == rep)
                .collect();
            window_aggregate(&windows, result.unit)
        })
        .collect();
    let rates: Vec<f64> = repetitions.iter().map(|r| r.rate).collect();
    let own: Vec<f64> = parts
        .iter()
        .filter_map(|p| {
            p.report
                .results
                .iter()
                .find(|r| r.test == result.test && r.variant == result.variant)
                .map(|r| r.median)
        })
        .collect();
    Aggregate {
        test: result.test,
        variant: result.variant.clone(),
        unit: result.unit,
        aggregate: if rates.is_empty() {
            0.0
        } else {
            stats::median(&rates)
        },
        repetitions,
        per_client: per_client(&own),
    }
}

/// All clients' work in one repetition over the earliest start to the latest end.
pub fn window_aggregate(windows: &[&RankWindow], unit: Unit) -> Option<AggregateRepetition> {
    let start = windows.iter().map(|w| w.start_unix_s).reduce(f64::min)?;
    let end = windows.iter().map(|w| w.end_unix_s).reduce(f64::max)?;
    let bytes = windows.iter().map(|w| w.bytes).sum();
    let ops = windows.iter().map(|w| w.ops).sum::<u64>();
    let seconds = end - start;
    let rate = match unit {
        Unit::MegabytesPerSecond => units::mb_per_s(bytes, seconds),
        Unit::FilesPerSecond | Unit::OpsPerSecond if seconds > 0.0 => ops as f64 / seconds,
        _ => 0.0,
    };
    Some(AggregateRepetition {
        bytes,
        ops,
        start_unix_s: start,
        end_unix_s: end,
        rate,
        stonewalled: windows.iter().filter(|w| w.stonewalled).count(),
    })
}

/// Median, min, max and spread ((max − min) ÷ median) of the clients' own figures.
fn per_client(own: &[f64]) -> PerClient {
    let Some(summary) = stats::summarize(own) else {
        return PerClient::default();
    };
    PerClient {
        median: summary.median,
        min: summary.min,
        max: summary.max,
        spread: if summary.median > 0.0 {
            (summary.max - summary.min) / summary.median
        } else {
            0.0
        },
    }
}

/// Rank 0's result with the aggregates as its figures: the verdict, the tables, the history and
/// `compare` then read the run's figure as that of all clients together.
fn aggregate_result(own: &TestResult, agg: &Aggregate) -> TestResult {
    let samples: Vec<f64> = agg.repetitions.iter().map(|r| r.rate).collect();
    let summary = stats::summarize(&samples);
    // Each client's series is its own: the aggregate knows only its repetitions' figures.
    let precision = stats::precision::of(&samples, None);
    let ops: Vec<f64> = agg
        .repetitions
        .iter()
        .map(|r| {
            let s = r.end_unix_s - r.start_unix_s;
            if s > 0.0 { r.ops as f64 / s } else { 0.0 }
        })
        .collect();
    TestResult {
        median: summary.as_ref().map_or(0.0, |s| s.median),
        min: summary.as_ref().map_or(0.0, |s| s.min),
        max: summary.as_ref().map_or(0.0, |s| s.max),
        mean: summary.as_ref().map_or(0.0, |s| s.mean),
        cv: summary.as_ref().map_or(0.0, |s| s.cv),
        precision: precision.map(|p| p.half_width),
        precision_method: precision.map(|p| p.method),
        ops_per_s_median: if ops.is_empty() {
            0.0
        } else {
            stats::median(&ops)
        },
        samples,
        // Latencies are each client's own (in `cluster.ranks`): they do not add up.
        latency_us: None,
        repetitions: agg
            .repetitions
            .iter()
            .map(|r| RepetitionRecord {
                rate: r.rate,
                bytes: r.bytes,
                ops: r.ops,
                elapsed_s: r.end_unix_s - r.start_unix_s,
                cpu_s: 0.0,
                series_mb_s: Vec::new(),
                series_last_partial: false,
                passes: None,
            })
            .collect(),
        ..own.clone()
    }
}
