//! What I/O is issued: the tests, their variants and parameters, and the profiles.
//!
//! Every test variant is declared once, in [`suite()`], with its fixed parameters; that one table
//! drives `--tests`, the runner, the docs (`destbench list`, `--help`) and the reports.

mod data;
pub mod desktop;
pub mod fileset;
pub mod presets;
mod profile;
mod select;
mod shape;
mod suite;
mod test_id;
pub mod tm_pattern;
mod tool;

pub use data::DataStamper;
pub use fileset::SetKind;
pub use profile::{Profile, ProfileName};
pub use select::{TestSelector, known_workload, select};
pub use shape::{CopyProgram, FileOp, MetaOp, SetName, Workload, size_label};
pub use suite::{
    SuiteOptions, TM_SMALL_FILES, TM_SMALL_SIZE, TRANSFER_SIZES, Variant, left_out_on_a_share,
    sized, suite,
};
pub use test_id::TestId;
pub use tool::Tool;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Read,
    Write,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pattern {
    Sequential,
    Random,
}

/// `Display` and `FromStr` by the names `as_str` gives, for the named choices of the command
/// line (tests, sets, profiles).
macro_rules! named_choice {
    ($ty:ty, $what:literal) => {
        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $ty {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                find_named(&<$ty>::ALL, <$ty>::as_str, s, $what)
            }
        }
    };
}

/// Serde by the same names, for the named values of the run document that are no command-line
/// choice of their own.
macro_rules! serde_by_name {
    ($ty:ty) => {
        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let name = String::deserialize(d)?;
                name.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

named_choice!(TestId, "test");
named_choice!(SetKind, "file set");
named_choice!(ProfileName, "profile");
named_choice!(SetName, "file set");
named_choice!(FileOp, "file operation");
serde_by_name!(SetName);
serde_by_name!(FileOp);

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
        // escape_debug: a newline or escape sequence in the input cannot break the one-line
        // error or reach the terminal raw.
        format!(
            "unknown {what} '{}' (known: {})",
            s.escape_debug(),
            known.join(", ")
        )
    })
}
