//! The errors destbench reports, each naming the path or flag at fault, and the exit code it maps to.

use std::io;
use std::path::PathBuf;

/// Exit code for a malformed command line (as clap uses).
pub const EXIT_USAGE: u8 = 2;
/// Exit code for anything that went wrong while running.
pub const EXIT_RUNTIME: u8 = 1;
/// Exit code after Ctrl-C or SIGTERM (128 + SIGINT, as shells report it).
pub const EXIT_INTERRUPTED: u8 = 130;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The command line asks for something that cannot be: an unknown test, a bad size.
    #[error("{0}")]
    Usage(String),

    /// The destination cannot be benchmarked: missing, not a directory, read-only, no permission.
    #[error("{}: {problem}", path.display())]
    Destination { path: PathBuf, problem: String },

    /// Not enough free space for what the profile writes.
    #[error(
        "{}: not enough free space: this run needs {needed}, {available} is free (try {instead})",
        path.display()
    )]
    NoSpace {
        path: PathBuf,
        needed: String,
        available: String,
        /// What asks for less, in the flags' words (`a smaller --size`).
        instead: String,
    },

    /// The destination filled up during a test.
    #[error("destination full while {during}")]
    DestinationFull { during: String },

    /// Ctrl-C, SIGTERM or SIGHUP arrived; scratch data was removed.
    #[error("interrupted by {0}; scratch data removed")]
    Interrupted(&'static str),

    /// Several clients (MPI ranks) could not run together: their destinations differ, or one of
    /// them failed and every client stopped; the message names the rank, its host and why.
    #[error("{0}")]
    Cluster(String),

    /// This client stopped because another one failed: its own work was fine, and the client
    /// that failed says why.
    #[error("another client failed")]
    OtherClientFailed,

    /// A client other than rank 0 stopped; rank 0 prints why (it alone speaks for the run).
    #[error("stopped with the other clients (rank 0 says why)")]
    ReportedByRankZero(u8),

    /// The history database cannot be used, or has no such run.
    #[error(transparent)]
    History(#[from] HistoryError),

    /// A finished run could not be stored in the history; `kept` says where its results are.
    #[error("{cause}; the run was not stored ({kept})")]
    NotStored { cause: Box<Error>, kept: String },

    /// A program destbench ran (a backup tool under `estimate --tool`) failed or hung; the
    /// message names the command line it ran and ends with the program's last words.
    #[error("{0}")]
    Tool(String),

    /// An I/O call failed; `context` says which and on what.
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: io::Error,
    },
}

/// Why the history database could not be used (constructed in `crate::history`).
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    /// The database cannot be opened, read or written; the message names the file.
    #[error("history database {}: {problem}", path.display())]
    Database { path: PathBuf, problem: String },

    /// No run with this id.
    #[error("no run {id} in the history database {} (`destbench history` lists the runs)", path.display())]
    UnknownRun { id: i64, path: PathBuf },
}

impl Error {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_) => EXIT_USAGE,
            Error::Interrupted(_) => EXIT_INTERRUPTED,
            Error::ReportedByRankZero(code) => *code,
            _ => EXIT_RUNTIME,
        }
    }

    /// Wraps an I/O error with what was being done; a full disk or quota becomes
    /// [`Error::DestinationFull`].
    pub fn io(context: impl Into<String>, source: io::Error) -> Self {
        match source.kind() {
            io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded => Error::DestinationFull {
                during: context.into(),
            },
            _ => Error::Io {
                context: context.into(),
                source,
            },
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
