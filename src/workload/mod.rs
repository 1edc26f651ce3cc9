//! What I/O is issued: the tests, their variants and parameters, and the profiles.
//!
//! Every test variant is declared once, in [`suite`], with its fixed parameters; that one table
//! drives `--tests`, the runner, the docs (`destbench list`, `--help`) and the reports.

mod data;
pub mod fileset;
mod profile;
mod select;
mod suite;
mod test_id;

pub use data::DataStamper;
pub use fileset::SetKind;
pub use profile::{Profile, ProfileName};
pub use select::{TestSelector, select};
pub use suite::{
    FileOp, MetaOp, SetName, SuiteOptions, TM_SMALL_FILES, TM_SMALL_SIZE, TRANSFER_SIZES, Variant,
    Workload, suite,
};
pub use test_id::TestId;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Read,
    Write,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Pattern {
    Sequential,
    Random,
}

/// The member of `all` named `s`, or an error listing the known names ("unknown test 'x'
/// (known: ...)"): how every named choice of the command line parses.
fn find_named<T: Copy>(
    all: &[T],
    name: fn(T) -> &'static str,
    s: &str,
    what: &str,
) -> Result<T, String> {
    all.iter().copied().find(|&t| name(t) == s).ok_or_else(|| {
        let known: Vec<&str> = all.iter().map(|&t| name(t)).collect();
        format!("unknown {what} '{s}' (known: {})", known.join(", "))
    })
}
