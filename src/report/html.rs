//! The HTML report (placeholder while the charts are written).
use crate::history::{Comparison, RunRecord};
pub fn render(_cmp: &Comparison, _records: &[RunRecord]) -> String {
    String::new()
}
