//! `mpirun -n N destbench run ...` (feature `mpi`): one client per rank. Rank 0's command line is
//! what every rank runs, through `run::execute` as every run is; rank 0 alone prints, writes JSON
//! and stores the run.

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::cluster::{self, Session, StepOutcome};
use crate::error::{Error, Result};
use crate::probe::Chain;
use crate::results::{RunDocument, ScalingPoint};
use crate::runner::{NoProgress, Progress};
use crate::settings::RunPlan;

use super::progress;
use super::run::{self, Clients, RunRequest};

pub fn run() -> Result<ExitCode> {
    let (session, argv) = Session::start(std::env::args_os().collect())?;
    let outcome = run_ranks(&session, argv);
    // Rank 0 speaks before any rank leaves: the launcher may stop the job once one rank has
    // exited with an error, and rank 0's message must not be lost with it.
    let outcome = match outcome {
        Err(e) if session.rank == 0 && !matches!(e, Error::ReportedByRankZero(_)) => {
            eprintln!("destbench: {e}");
            Err(Error::ReportedByRankZero(e.exit_code()))
        }
        other => other,
    };
    session.barrier();
    outcome
}

fn run_ranks(session: &Session, argv: Vec<std::ffi::OsString>) -> Result<ExitCode> {
    // Every rank parses rank 0's command line the same way; only rank 0 reports a problem.
    let args = match Cli::try_parse_from(argv).map(|cli| cli.command) {
        Ok(Command::Run(args)) => Ok(args),
        _ => Err(Error::Usage(
            "rank 0's command line could not be read as `destbench run`".into(),
        )),
    };
    let args = session.agree(args)?;
    let request = RunRequest::from_args(&args).map(|mut request| {
        // Each client's data differs (a deduplicating server must not see one client's blocks
        // as another's); the seed recorded is rank 0's.
        request.plan.seed = request.plan.seed.wrapping_add(session.rank as u64);
        request
    });
    let request = session.agree(request)?;
    let counts = session.agree(cluster::check_client_counts(&args.clients, session.size))?;
    let mut progress: Box<dyn Progress> = if session.rank == 0 {
        progress()
    } else {
        Box::new(NoProgress)
    };
    let ranks = Ranks {
        session,
        counts,
        stonewall: args.stonewall,
    };
    Ok(run::execute(&request, &ranks, progress.as_mut())?.exit_code())
}

/// Every rank, measuring with the first k ranks for each count of clients asked.
struct Ranks<'a> {
    session: &'a Session,
    counts: Vec<usize>,
    stonewall: bool,
}

impl Clients for Ranks<'_> {
    fn alone(&self) -> bool {
        false
    }

    fn reports(&self) -> bool {
        self.session.rank == 0
    }

    fn agree<T>(&self, result: Result<T>) -> Result<T> {
        self.session.agree(result)
    }

    fn check_chain(&self, chain: Option<&Chain>) -> Result<()> {
        self.session.check_same_filesystem(chain)
    }

    /// Rank 0's document of the last count, with every count's aggregates when there are more.
    fn measure(
        &self,
        plan: &RunPlan,
        chain: Option<Chain>,
        progress: &mut dyn Progress,
    ) -> Result<Option<RunDocument>> {
        let mut points: Vec<(usize, RunDocument)> = Vec::new();
        for &clients in &self.counts {
            let step =
                self.session
                    .step(clients, plan, chain.as_ref(), self.stonewall, progress)?;
            if let StepOutcome::Combined(doc) = step {
                points.push((clients, *doc));
            }
        }
        let Some((_, mut doc)) = points.last().cloned() else {
            return Ok(None);
        };
        if points.len() > 1
            && let Some(info) = doc.cluster.as_mut()
        {
            info.scaling = points
                .iter()
                .map(|(clients, d)| ScalingPoint {
                    clients: *clients,
                    aggregates: d
                        .cluster
                        .as_ref()
                        .map(|c| c.aggregates.clone())
                        .unwrap_or_default(),
                })
                .collect();
        }
        Ok(Some(doc))
    }
}
