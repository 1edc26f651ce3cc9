//! A setting's value together with where it came from, so that an error about it names what the
//! user wrote: the flag as typed, or the config file's line.

use std::fmt::{self, Display};
use std::path::PathBuf;

use crate::error::Error;

/// Where a value came from.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Origin {
    /// The command line, or a library caller: an error names the flag.
    #[default]
    Flag,
    /// A line of the config file; `written` is its `key = value` as it stands there.
    File {
        path: PathBuf,
        line: usize,
        written: String,
    },
}

/// A value and its origin.
#[derive(Debug, Clone, PartialEq)]
pub struct Given<T> {
    pub value: T,
    pub origin: Origin,
}

/// A value of the command line's (or of a library caller's).
impl<T> From<T> for Given<T> {
    fn from(value: T) -> Self {
        Given {
            value,
            origin: Origin::Flag,
        }
    }
}

impl<T> Given<T> {
    /// A usage error about this value: `{flag}: {problem}` when it came from the command line
    /// (`flag` as typed, e.g. `--duration 0`), `config PATH:LINE: duration = 0: {problem}` when
    /// it came from the config file.
    pub fn refuse(&self, flag: impl Display, problem: impl Display) -> Error {
        Error::Usage(match &self.origin {
            Origin::Flag => format!("{flag}: {problem}"),
            file => format!("{file}: {problem}"),
        })
    }
}

/// `config PATH:LINE: key = value` for a value of the file; nothing for a flag, which only the
/// caller can show as typed.
impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Flag => Ok(()),
            Origin::File {
                path,
                line,
                written,
            } => write!(f, "config {}:{line}: {written}", path.display()),
        }
    }
}
