//! Stored runs side by side: per test and variant, each run's median, its ratio to the first run,
//! and whether the difference is real (Welch's t-test over the repetitions). Pure code; the
//! terminal, Markdown and HTML reports render the [`Comparison`] and compute nothing themselves.

use serde::Serialize;

use super::record::RunRecord;
use crate::probe::{Key, Node, NodeKind};
use crate::results::{TestResult, Unit};
use crate::stats::{self, Significance};
use crate::workload::{TestId, Workload};

/// One compared run: a column of the tables.
#[derive(Debug, Clone, Serialize)]
pub struct RunColumn {
    pub id: i64,
    /// The label, or "run ID".
    pub name: String,
    pub destination: String,
    pub started_unix_s: i64,
    /// Clients that measured at once (1 unless run under MPI): a 4-client run's figures are
    /// the four clients' aggregates.
    pub clients: usize,
    /// The run's answer in its first sentence (a backup's time for the user's data), where the
    /// run has one.
    pub answer: Option<String>,
}

/// One run's figure for one variant.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub cv: f64,
    pub samples: Vec<f64>,
    /// This median over the first run's; None in the first column or when the first run lacks
    /// the variant (or measured 0).
    pub ratio: Option<f64>,
    /// Against the first run; None in the first column or when the first run lacks the variant.
    #[serde(skip)]
    pub significance: Option<Significance>,
    /// `significance` in words, for tables and JSON.
    pub verdict: Option<String>,
    pub p_value: Option<f64>,
}

/// One variant across the runs.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub variant: String,
    /// What the variant did (None for imported fio jobs of no destbench shape).
    #[serde(skip)]
    pub workload: Option<Workload>,
    pub unit: Unit,
    /// Copy threads (None in documents that do not record them).
    pub threads: Option<usize>,
    /// One per run, in the order of [`Comparison::runs`]; None where the run lacks the variant.
    pub cells: Vec<Option<Cell>>,
}

/// One test (a table, a bar chart).
#[derive(Debug, Clone, Serialize)]
pub struct Group {
    pub test: TestId,
    pub rows: Vec<Row>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub runs: Vec<RunColumn>,
    /// The settings in which the runs differ, each as `file size: [1] 16 MiB, [2] 1 GiB`: a
    /// difference in the figures may then come from the settings, not the destination.
    pub settings_differ: Vec<String>,
    /// The disk's health facts that differ between runs of the same disk (by its serial, else
    /// its device), each as `pending sectors: [1] 0, [2] 8`: a disk that is wearing out.
    pub health_changed: Vec<String>,
    pub groups: Vec<Group>,
}

/// The health facts a comparison follows from run to run.
const HEALTH: [Key; 9] = [
    Key::SmartAssessment,
    Key::ReallocatedSectors,
    Key::PendingSectors,
    Key::UncorrectableSectors,
    Key::LinkErrors,
    Key::CriticalWarning,
    Key::EnduranceUsed,
    Key::MediaErrors,
    Key::UnsafeShutdowns,
];

/// The first disk of a run's chain that SMART was read for.
fn disk(record: &RunRecord) -> Option<&Node> {
    let chain = record.run.chain.as_ref()?;
    chain
        .nodes()
        .into_iter()
        .find(|n| n.kind == NodeKind::Disk && HEALTH.iter().any(|k| n.get(*k).is_some()))
}

/// The disk's identity across runs: its serial, else the device it was.
fn identity(node: &Node) -> Option<String> {
    node.get(Key::Serial)
        .or_else(|| node.get(Key::Device))
        .map(ToString::to_string)
}

/// The health facts that changed between the runs of the first run's disk, one line each.
fn health_changed(records: &[RunRecord]) -> Vec<String> {
    let disks: Vec<(usize, &Node)> = records
        .iter()
        .enumerate()
        .filter_map(|(i, r)| disk(r).map(|d| (i, d)))
        .collect();
    let Some(first) = disks.first().and_then(|(_, d)| identity(d)) else {
        return Vec::new();
    };
    let same: Vec<(usize, &Node)> = disks
        .into_iter()
        .filter(|(_, d)| identity(d).as_ref() == Some(&first))
        .collect();
    HEALTH
        .iter()
        .filter_map(|&key| {
            let values: Vec<(usize, String)> = same
                .iter()
                .filter_map(|(i, d)| d.get(key).map(|v| (*i, v.to_string())))
                .collect();
            values.iter().any(|(_, v)| *v != values[0].1).then(|| {
                let each: Vec<String> = values
                    .iter()
                    .map(|(i, v)| format!("[{}] {v}", i + 1))
                    .collect();
                format!("{key}: {}", each.join(", "))
            })
        })
        .collect()
}

/// The settings that shape the figures and differ between `records`, one line each.
fn settings_differ(records: &[RunRecord]) -> Vec<String> {
    type Describe = fn(&RunRecord) -> String;
    let settings: [(&str, Describe); 6] = [
        ("profile", |r| r.run.settings.profile.to_string()),
        ("engine", |r| r.run.settings.engine.clone()),
        ("file size", |r| {
            crate::units::format_bytes(r.run.settings.file_size_bytes)
        }),
        ("duration", |r| {
            format!("{} s", r.run.settings.block_duration_s)
        }),
        ("min time", |r| format!("{} s", r.run.settings.min_time_s)),
        ("repetitions", |r| r.run.settings.runs.to_string()),
    ];
    settings
        .iter()
        .filter_map(|(name, describe)| {
            let values: Vec<String> = records.iter().map(describe).collect();
            values.iter().any(|v| *v != values[0]).then(|| {
                let each: Vec<String> = values
                    .iter()
                    .enumerate()
                    .map(|(i, v)| format!("[{}] {v}", i + 1))
                    .collect();
                format!("{name}: {}", each.join(", "))
            })
        })
        .collect()
}

fn find<'a>(record: &'a RunRecord, test: TestId, variant: &str) -> Option<&'a TestResult> {
    record
        .run
        .results
        .iter()
        .find(|r| r.test == test && r.variant == variant)
}

/// Lays `records` side by side; the first is the baseline of every ratio and test.
pub fn compare(records: &[RunRecord]) -> Comparison {
    // Tests and variants in the order they first appear, so the tables follow the suite.
    let mut keys: Vec<(TestId, String)> = Vec::new();
    for record in records {
        for r in &record.run.results {
            if !keys.iter().any(|(t, v)| *t == r.test && *v == r.variant) {
                keys.push((r.test, r.variant.clone()));
            }
        }
    }
    let mut groups: Vec<Group> = Vec::new();
    for (test, variant) in keys {
        let base = records.first().and_then(|b| find(b, test, &variant));
        let mut unit = Unit::default();
        let mut threads = None;
        let mut workload = None;
        let cells = records
            .iter()
            .enumerate()
            .map(|(index, record)| {
                let r = find(record, test, &variant)?;
                unit = r.unit;
                threads = threads.or((r.threads > 0).then_some(r.threads));
                if workload.is_none() {
                    workload = r.workload.clone();
                }
                let significance = base
                    .filter(|_| index > 0)
                    .map(|b| stats::welch(&b.samples, &r.samples));
                Some(Cell {
                    median: r.median,
                    min: r.min,
                    max: r.max,
                    cv: r.cv,
                    samples: r.samples.clone(),
                    ratio: base
                        .filter(|b| index > 0 && b.median != 0.0)
                        .map(|b| r.median / b.median),
                    significance,
                    verdict: significance.map(Significance::describe),
                    p_value: significance.and_then(Significance::p_value),
                })
            })
            .collect();
        let row = Row {
            variant,
            workload,
            unit,
            threads,
            cells,
        };
        match groups.iter_mut().find(|g| g.test == test) {
            Some(group) => group.rows.push(row),
            None => groups.push(Group {
                test,
                rows: vec![row],
            }),
        }
    }
    Comparison {
        runs: records
            .iter()
            .map(|r| RunColumn {
                id: r.id,
                name: r.name(),
                destination: super::with_filesystem(
                    &r.run.destination.path.display().to_string(),
                    &r.environment.filesystem,
                ),
                started_unix_s: r.run.started_unix_s as i64,
                clients: r.run.clients.unwrap_or(1),
                answer: r.run.answer.as_ref().and_then(|a| a.words.first().cloned()),
            })
            .collect(),
        settings_differ: settings_differ(records),
        health_changed: health_changed(records),
        groups,
    }
}
