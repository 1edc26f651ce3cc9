//! `mpirun -n N destbench run ...` (feature `mpi`): one client per rank. Rank 0's command line is
//! what every rank runs; rank 0 alone prints, writes JSON and stores the run.

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::cluster::{self, Session, StepOutcome};
use crate::error::{Error, Result};
use crate::probe;
use crate::results::{RunReport, ScalingPoint};
use crate::runner::{NoProgress, Progress};

use super::{db, progress};

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
    let rank0 = session.rank == 0;
    // Every rank parses rank 0's command line the same way; only rank 0 reports a problem.
    let args = match Cli::try_parse_from(argv).map(|cli| cli.command) {
        Ok(Command::Run(args)) => Ok(args),
        _ => Err(Error::Usage(
            "rank 0's command line could not be read as `destbench run`".into(),
        )),
    };
    let args = session.agree(args)?;
    let plan = super::run::options(&args)
        .and_then(|o| o.plan())
        .map(|mut plan| {
            // Each client's data differs (a deduplicating server must not see one client's blocks
            // as another's); the seed recorded is rank 0's.
            plan.seed = plan.seed.wrapping_add(session.rank as u64);
            plan
        });
    let plan = session.agree(plan)?;
    let counts = session.agree(cluster::check_client_counts(&args.clients, session.size))?;
    let store = if rank0 {
        db::open_for_run(args.no_history, &args.history_db)
    } else {
        Ok(None)
    };
    let store = session.agree(store)?;
    let installed =
        crate::interrupt::install().map_err(|e| Error::io("installing signal handlers", e));
    session.agree(installed)?;
    let chain = probe::probe(&plan.destination, args.link_speed.as_ref()).ok();
    session.check_same_filesystem(chain.as_ref())?;
    let mut progress: Box<dyn Progress> = if rank0 {
        progress()
    } else {
        Box::new(NoProgress)
    };
    let mut points: Vec<(usize, RunReport)> = Vec::new();
    for &clients in &counts {
        match session.step(
            clients,
            &plan,
            chain.as_ref(),
            args.stonewall,
            progress.as_mut(),
        )? {
            StepOutcome::Combined(doc) => points.push((clients, *doc)),
            StepOutcome::Done => {}
        }
    }
    let Some((_, mut doc)) = points.last().cloned() else {
        return Ok(ExitCode::SUCCESS);
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
    super::run::finish(&args, doc, store)
}
