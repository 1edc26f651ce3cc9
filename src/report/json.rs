//! The `--json` document, schema `destbench.run/1` (documented in docs/json.md). Field names
//! carry their units; `median`, `min`, `max` and `samples` are in the result's `unit`.

use serde::Serialize;

use crate::results::{
    AccessInfo, Details, FileSetInfo, RUN_SCHEMA, RunReport, RunSettings, TestFailure, TestResult,
};
use crate::runner::time_machine_lines;
use crate::stats::LatencySummary;

#[derive(Serialize)]
struct RunDoc<'a> {
    schema: &'static str,
    destbench_version: &'static str,
    destination: Destination,
    settings: &'a RunSettings,
    access: &'a AccessInfo,
    started_unix_s: u64,
    duration_s: f64,
    results: Vec<ResultDoc<'a>>,
    failures: &'a [TestFailure],
    warnings: &'a [String],
    time_machine_log: Vec<String>,
    peak_rss_bytes: Option<u64>,
    chain: Option<&'a crate::probe::Chain>,
    verdict: Option<&'a crate::verdict::Verdict>,
}

#[derive(Serialize)]
struct Destination {
    path: String,
}

#[derive(Serialize)]
struct ResultDoc<'a> {
    test: &'static str,
    variant: &'a str,
    unit: &'static str,
    median: f64,
    min: f64,
    max: f64,
    mean: f64,
    cv: f64,
    samples: Vec<f64>,
    ops_per_s_median: f64,
    op_kind: &'static str,
    latency_us: Option<LatencySummary>,
    method: &'static str,
    engine: &'static str,
    block_size_bytes: u64,
    queue_depth: usize,
    series_interval_s: f64,
    threads: usize,
    file_set: Option<&'a FileSetInfo>,
    repetitions: Vec<RepetitionDoc>,
    warnings: &'a [String],
    /// Only for the tests that have details (sustained, throttled).
    #[serde(skip_serializing_if = "Option::is_none")]
    details: Option<&'a Details>,
}

#[derive(Serialize)]
struct RepetitionDoc {
    rate: f64,
    bytes: u64,
    ops: u64,
    elapsed_s: f64,
    cpu_s: f64,
    series_mb_s: Vec<f64>,
}

fn result_doc(r: &TestResult) -> ResultDoc<'_> {
    ResultDoc {
        test: r.test.as_str(),
        variant: &r.variant,
        unit: r.unit.as_str(),
        median: r.summary.median,
        min: r.summary.min,
        max: r.summary.max,
        mean: r.summary.mean,
        cv: r.summary.cv,
        samples: r.samples(),
        ops_per_s_median: r.ops_per_s.median,
        op_kind: r.op_kind,
        latency_us: r.latency_us,
        method: r.method.as_str(),
        engine: r.engine.name(),
        block_size_bytes: r.block_size,
        queue_depth: r.queue_depth,
        series_interval_s: r
            .repetitions
            .first()
            .map_or(0.0, |rep| rep.series.interval().as_secs_f64()),
        threads: r.threads,
        file_set: r.file_set.as_ref(),
        repetitions: r
            .repetitions
            .iter()
            .map(|rep| RepetitionDoc {
                rate: rep.rate,
                bytes: rep.bytes,
                ops: rep.ops,
                elapsed_s: rep.elapsed.as_secs_f64(),
                cpu_s: rep.cpu.as_secs_f64(),
                series_mb_s: rep.series.rates_mb_s(rep.elapsed),
            })
            .collect(),
        warnings: &r.warnings,
        details: r.details.as_ref(),
    }
}

/// The JSON document, pretty-printed, with a trailing newline.
pub fn render(report: &RunReport) -> String {
    let doc = RunDoc {
        schema: RUN_SCHEMA,
        destbench_version: report.destbench_version,
        destination: Destination {
            path: report.destination.display().to_string(),
        },
        settings: &report.settings,
        access: &report.access,
        started_unix_s: report.started_unix_s,
        duration_s: report.duration.as_secs_f64(),
        results: report.results.iter().map(result_doc).collect(),
        failures: &report.failures,
        warnings: &report.warnings,
        time_machine_log: time_machine_lines(report),
        peak_rss_bytes: report.peak_rss_bytes,
        chain: report.chain.as_ref(),
        verdict: report.verdict.as_ref(),
    };
    let mut text = serde_json::to_string_pretty(&doc).expect("results serialise");
    text.push('\n');
    text
}
