//! The one thing `destbench ui` does at a time: a run or an estimate, on its own thread, with
//! what every tab polls (its progress while it goes, its outcome after). A run is the terminal's
//! run: a `RunRequest` made by `run::execute`, the function `destbench run` calls; an estimate is
//! parsed from its argv by the command line's own parser.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use clap::Parser;

use crate::cli::{Cli, Command, EstimateArgs};
use crate::error::{Error, Result};
use crate::interrupt;
use crate::report::{ProgressReader, ProgressView, TerminalProgress};

use super::super::run::{self, OneClient, RunRequest};
use super::super::{db, estimate};

/// What a tab is told of the job: the one under way, or the last one's outcome.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum Status {
    Idle,
    Running {
        what: JobKind,
        /// The destination (a run) or the source (an estimate), as the job sees it.
        path: PathBuf,
        progress: Option<ProgressView>,
        cancelling: bool,
    },
    Done {
        what: JobKind,
        path: PathBuf,
        outcome: Outcome,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum JobKind {
    Run,
    Estimate,
}

#[derive(Debug, Clone, serde::Serialize)]
#[serde(tag = "result", rename_all = "kebab-case")]
pub enum Outcome {
    /// The run, stored in the history under this id.
    Stored {
        run_id: i64,
    },
    /// The run finished but is not in the history (every test failed).
    NotStored,
    /// The estimate, as `destbench estimate` prints it.
    Estimated {
        text: String,
    },
    /// Stopped by Cancel; the scratch directory was removed.
    Cancelled {
        error: String,
    },
    Failed {
        error: String,
    },
}

/// Why a job was not started.
#[derive(Debug)]
pub enum Refused {
    /// Another job is under way (HTTP 409).
    Busy,
    /// The request itself is wrong, in one line (HTTP 400).
    Invalid(String),
}

impl From<Error> for Refused {
    fn from(e: Error) -> Refused {
        Refused::Invalid(e.to_string())
    }
}

#[derive(Default)]
struct Current {
    status: Option<Status>,
    reader: Option<ProgressReader>,
}

/// The job under way or last finished, shared by every request's thread.
#[derive(Default, Clone)]
pub struct Jobs(Arc<Mutex<Current>>);

impl Jobs {
    fn lock(&self) -> MutexGuard<'_, Current> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn status(&self) -> Status {
        let current = self.lock();
        match (&current.status, &current.reader) {
            (
                Some(Status::Running {
                    what,
                    path,
                    cancelling,
                    ..
                }),
                reader,
            ) => Status::Running {
                what: *what,
                path: path.clone(),
                progress: reader.as_ref().map(ProgressReader::view),
                cancelling: *cancelling,
            },
            (Some(status), _) => status.clone(),
            (None, _) => Status::Idle,
        }
    }

    pub fn busy(&self) -> bool {
        matches!(self.lock().status, Some(Status::Running { .. }))
    }

    /// Starts `request`, whose destination, source and history are checked here so that a wrong
    /// path is refused at once.
    pub fn start_run(&self, request: RunRequest) -> std::result::Result<(), Refused> {
        crate::scratch::check_destination(&request.plan.destination)?;
        if let Some(source) = &request.plan.source {
            crate::runner::check_source(source)?;
        }
        if let Some(data) = &request.data {
            crate::runner::check_folder(data, &crate::settings::defs::DATA)?;
        }
        if let Some(history) = &request.history {
            db::open_for_run(false, history)?;
        }
        let progress = TerminalProgress::hidden();
        let reader = progress.reader();
        let path = request.plan.destination.clone();
        self.begin(JobKind::Run, path.clone(), Some(reader))?;
        self.spawn(JobKind::Run, path, move || {
            let mut progress = progress;
            let finished = run::execute(&request, &OneClient, &mut progress)?;
            Ok(match finished.run_id {
                Some(run_id) => Outcome::Stored { run_id },
                None => Outcome::NotStored,
            })
        });
        Ok(())
    }

    /// Starts an estimate of `argv` (the arguments after `destbench estimate`).
    pub fn start_estimate(&self, argv: &[String]) -> std::result::Result<(), Refused> {
        let Command::Estimate(args) = parse(&["estimate"], argv)? else {
            unreachable!("parsed as estimate")
        };
        let args: EstimateArgs = *args;
        let path = args.source.clone();
        self.begin(JobKind::Estimate, path.clone(), None)?;
        self.spawn(JobKind::Estimate, path, move || {
            Ok(Outcome::Estimated {
                text: estimate::text(&args)?,
            })
        });
        Ok(())
    }

    /// Asks the job under way to stop; false when there is none.
    pub fn cancel(&self) -> bool {
        let mut current = self.lock();
        match &mut current.status {
            Some(Status::Running { cancelling, .. }) => {
                *cancelling = true;
                interrupt::cancel();
                true
            }
            _ => false,
        }
    }

    fn begin(
        &self,
        what: JobKind,
        path: PathBuf,
        reader: Option<ProgressReader>,
    ) -> std::result::Result<(), Refused> {
        let mut current = self.lock();
        if matches!(current.status, Some(Status::Running { .. })) {
            return Err(Refused::Busy);
        }
        interrupt::clear_cancel();
        current.status = Some(Status::Running {
            what,
            path,
            progress: None,
            cancelling: false,
        });
        current.reader = reader;
        Ok(())
    }

    /// Runs `job` on its own thread, its outcome kept for the tabs.
    fn spawn(
        &self,
        what: JobKind,
        path: PathBuf,
        job: impl FnOnce() -> Result<Outcome> + Send + 'static,
    ) {
        let jobs = self.clone();
        let shown = path.clone();
        let spawned = std::thread::Builder::new()
            .name("ui-job".into())
            .spawn(move || jobs.end(what, path, job()));
        if let Err(e) = spawned {
            self.end(what, shown, Err(Error::io("starting a thread", e)));
        }
    }

    fn end(&self, what: JobKind, path: PathBuf, outcome: Result<Outcome>) {
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(e @ Error::Interrupted(_)) if self.cancelling() => Outcome::Cancelled {
                error: e.to_string(),
            },
            Err(e) => Outcome::Failed {
                error: e.to_string(),
            },
        };
        let mut current = self.lock();
        current.status = Some(Status::Done {
            what,
            path,
            outcome,
        });
        current.reader = None;
    }

    fn cancelling(&self) -> bool {
        matches!(
            self.lock().status,
            Some(Status::Running {
                cancelling: true,
                ..
            })
        )
    }
}

/// `destbench COMMAND ARGS...` through the command line's own parser, so that the page's values
/// are checked exactly as typed ones are.
fn parse(command: &[&str], argv: &[String]) -> Result<Command> {
    let words = ["destbench"]
        .iter()
        .chain(command)
        .map(|w| w.to_string())
        .chain(argv.iter().cloned());
    let cli = Cli::try_parse_from(words).map_err(|e| {
        let text = e.render().to_string();
        let first = text.lines().next().unwrap_or_default();
        Error::Usage(first.strip_prefix("error: ").unwrap_or(first).to_string())
    })?;
    Ok(cli.command)
}
