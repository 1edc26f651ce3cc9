//! A disk's recording kind from its model: the vendors' published lists of SMR models and the
//! known QLC and TLC families, as data (`data/drive_kinds.csv`, each row with its source), and
//! TRIM on a hard disk as the sign of drive-managed SMR where no list names the model.

use std::sync::LazyLock;

use super::{DriveKind, Recording, Rotation};
use crate::probe::{Fact, Value};

/// The table as shipped.
const TABLE: &str = include_str!("../../../data/drive_kinds.csv");

static ROWS: LazyLock<Vec<Row>> =
    LazyLock::new(|| parse(TABLE).expect("data/drive_kinds.csv parses (checked by its unit test)"));

/// One row: models whose number starts with `model_prefix`.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct Row {
    pub model_prefix: String,
    pub kind: Recording,
    pub vendor: String,
    pub family: String,
    pub source: String,
}

/// Every row of a table in drive_kinds.csv's format, or the first malformed one.
pub fn parse(table: &str) -> Result<Vec<Row>, String> {
    csv::ReaderBuilder::new()
        .comment(Some(b'#'))
        .from_reader(table.as_bytes())
        .deserialize::<Row>()
        .map(|row| {
            let row = row.map_err(|e| e.to_string())?;
            if row.model_prefix.trim().is_empty() || row.source.trim().is_empty() {
                return Err(format!("a row without a model or a source: {row:?}"));
            }
            Ok(row)
        })
        .collect()
}

/// Whether `model` as smartctl reports it ("WDC WD40EFAX-68JH4N0", "Samsung SSD 870 QVO 1TB")
/// is a model of `prefix`: it starts with it, case aside and every space removed from both (the
/// table's rule, in its header).
fn matches(model: &str, prefix: &str) -> bool {
    let squeeze = |s: &str| -> String {
        s.chars()
            .filter(|c| !c.is_whitespace())
            .map(|c| c.to_ascii_uppercase())
            .collect()
    };
    squeeze(model).starts_with(&squeeze(prefix))
}

/// The kind of the disk of `model` with the facts SMART gave; None when neither a list nor a
/// sign says.
pub fn of(model: Option<&str>, facts: &[Fact]) -> Option<DriveKind> {
    if let Some(model) = model
        && let Some(row) = ROWS.iter().find(|r| matches(model, &r.model_prefix))
    {
        return Some(DriveKind {
            recording: row.kind,
            basis: format!(
                "{} {} in data/drive_kinds.csv, from {}",
                row.vendor, row.family, row.source
            ),
            inferred: false,
        });
    }
    let said = |wanted: fn(&Value) -> bool| facts.iter().any(|f| wanted(&f.value));
    let spins = said(|v| matches!(v, Value::Rotation(Rotation::Rpm(_))));
    (spins && said(|v| *v == Value::Trim(true))).then(|| DriveKind {
        recording: Recording::Smr,
        basis: "a hard disk that accepts TRIM, as drive-managed SMR disks do".into(),
        inferred: true,
    })
}
