//! `destbench run`, from every caller: a [`RunRequest`] (the validated plan, the link speed,
//! where the report goes and where the run is kept) and the one function that runs it,
//! [`execute`], which the terminal's `destbench run`, `destbench ui`'s page and the MPI ranks
//! (`src/commands/ranks.rs`) all call, so that no caller skips a check.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::cli::{DbArg, RunArgs};
use crate::error::{EXIT_RUNTIME, Error, Result};
use crate::probe::{Chain, DeclaredLink};
use crate::results::{RunDocument, YourData};
use crate::runner::Progress;
use crate::settings::{ConfigFile, RunOptions, RunPlan, defs};

use super::config;
use crate::{answer, cluster, probe, report, runner, verdict};

use super::db::RunStore;
use super::{db, progress, write_stdout};

/// A run as every caller asks for it: what to measure, validated, and what to do with it after.
#[derive(Debug, Clone)]
pub struct RunRequest {
    pub plan: RunPlan,
    /// A link's speed the system cannot report (`--link-speed`), for the verdict.
    pub link_speed: Option<DeclaredLink>,
    pub output: Output,
    /// The history database the run is stored in; None: not stored (`--no-history`).
    pub history: Option<DbArg>,
    /// The folder the answer is for (`--data`); None: the folder the run copies (`--source`),
    /// else the home volume.
    pub data: Option<PathBuf>,
}

/// Where a finished run's report goes.
#[derive(Debug, Clone)]
pub enum Output {
    /// Printed, as the terminal's `destbench run` does: the table (or JSON) on stdout or in
    /// `file`.
    Printed {
        json: bool,
        wide: bool,
        verbose: bool,
        file: Option<PathBuf>,
    },
    /// Not printed: the page shows the stored run.
    Stored,
}

impl RunRequest {
    /// The terminal's run: its flags, the config file under them, planned.
    pub fn from_args(args: &RunArgs) -> Result<RunRequest> {
        let config = config::load()?;
        Ok(RunRequest {
            plan: options(args, config.as_ref())?.plan()?,
            link_speed: args.link_speed.clone(),
            output: Output::Printed {
                json: args.json,
                wide: args.wide || args.verbose,
                verbose: args.verbose,
                file: args.output.clone(),
            },
            history: (!args.no_history).then(|| args.history_db.clone()),
            data: args.data.clone().map(absolute),
        })
    }
}

impl Output {
    /// A report file that cannot be written is refused before minutes of measuring, not after.
    fn check(&self) -> Result<()> {
        let Output::Printed {
            file: Some(path), ..
        } = self
        else {
            return Ok(());
        };
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
        if dir.is_some_and(|d| !d.is_dir()) || path.is_dir() {
            return Err(Error::Usage(format!(
                "{} {}: not a file in an existing directory",
                defs::OUTPUT,
                path.display()
            )));
        }
        Ok(())
    }

    fn json(&self) -> bool {
        matches!(self, Output::Printed { json: true, .. })
    }
}

/// Who measures: this process alone, or every MPI rank together (`src/commands/ranks.rs`).
pub trait Clients {
    /// Whether this process prints and stores the run (the only client, or rank 0).
    fn reports(&self) -> bool;
    /// A step's outcome, made the same on every client: one that failed fails them all.
    fn agree<T>(&self, result: Result<T>) -> Result<T>;
    /// Whether this is the only client: several measure one plan, so none adds the write
    /// that finds a cache from its own view of the user's data.
    fn alone(&self) -> bool {
        true
    }
    /// The chain probed by each client, checked together; one client has nothing to check.
    fn check_chain(&self, chain: Option<&Chain>) -> Result<()> {
        let _ = chain;
        Ok(())
    }
    /// The plan measured; the run to report, on the client that reports.
    fn measure(
        &self,
        plan: &RunPlan,
        chain: Option<Chain>,
        progress: &mut dyn Progress,
    ) -> Result<Option<RunDocument>>;
}

/// One client: the terminal's run and the page's.
pub struct OneClient;

impl Clients for OneClient {
    fn reports(&self) -> bool {
        true
    }

    fn agree<T>(&self, result: Result<T>) -> Result<T> {
        result
    }

    fn measure(
        &self,
        plan: &RunPlan,
        chain: Option<Chain>,
        progress: &mut dyn Progress,
    ) -> Result<Option<RunDocument>> {
        runner::run(plan, chain, progress).map(Some)
    }
}

/// How a run ended, for the caller: stored as which run, and whether a test failed.
#[derive(Debug, Default)]
pub struct Finished {
    pub run_id: Option<i64>,
    pub failed_tests: bool,
}

impl Finished {
    pub fn exit_code(&self) -> ExitCode {
        if self.failed_tests {
            ExitCode::from(EXIT_RUNTIME)
        } else {
            ExitCode::SUCCESS
        }
    }
}

/// The one way a run is made: the report file and the history checked before minutes of
/// measuring, the chain probed once before, the plan measured by `clients`, the Time Machine
/// checks (macOS), the verdict drawn, the report printed and the run stored.
pub fn execute<C: Clients>(
    request: &RunRequest,
    clients: &C,
    progress: &mut dyn Progress,
) -> Result<Finished> {
    let reports = clients.reports();
    clients.agree(if reports {
        request.output.check()
    } else {
        Ok(())
    })?;
    let store = clients.agree(match (&request.history, reports) {
        (Some(db), true) => db::open_for_run(false, db),
        _ => Ok(None),
    })?;
    let installed =
        crate::interrupt::install().map_err(|e| Error::io("installing signal handlers", e));
    clients.agree(installed)?;
    // A path that cannot be probed is left to the runner to report (it names the problem the
    // same way), so the chain is simply absent then.
    // The user's folder is surveyed before the run: a wrong path costs no measuring.
    let data = request.data.as_deref().map(|d| answer::folder(d, progress));
    let data = clients.agree(data.transpose())?;
    let data = data.or_else(|| {
        let home = request.plan.source.is_none() && clients.alone();
        home.then(answer::home_volume).and_then(Result::ok)
    });
    let mut chain = probe::probe(&request.plan.destination, request.link_speed.as_ref()).ok();
    let share = chain.as_ref().is_some_and(probe::Chain::is_network);
    let plan = match &data {
        Some(data) if clients.alone() => request.plan.clone().write_on_for(data.bytes),
        _ => request.plan.clone(),
    }
    .on_a_share(share);
    if let Some(chain) = chain.as_mut() {
        probe::health::read(chain, &probe::health::Live);
    }
    clients.check_chain(chain.as_ref())?;
    let Some(mut run_report) = clients.measure(&plan, chain, progress)? else {
        return Ok(Finished::default());
    };
    if let Some(chain) = run_report.chain.as_mut() {
        probe::health::reread_link_errors(chain, &probe::health::Live);
    }
    let run_report = judge(time_machine_log(run_report, &plan), data, progress);
    print(&request.output, &run_report)?;
    let run_id = match store {
        Some(store) => self::store(&store, &run_report, request.output.json())?,
        None => None,
    };
    Ok(Finished {
        run_id,
        failed_tests: !run_report.failures.is_empty(),
    })
}

/// macOS: Time Machine's own record of the destination, when the run measured what it does
/// there: its speed checks beside tm-check's lines, its backups beside the tm-backup replay.
#[cfg_attr(not(target_os = "macos"), allow(unused_mut, unused_variables))]
fn time_machine_log(mut run_report: RunDocument, plan: &RunPlan) -> RunDocument {
    #[cfg(target_os = "macos")]
    if !run_report.time_machine_log.is_empty()
        || (run_report.results.iter()).any(|r| r.test == crate::workload::TestId::TmBackup)
    {
        let (checks, backups) = probe::time_machine_log(&plan.destination);
        run_report.destination.time_machine_checks = checks;
        run_report.destination.time_machine_backups = backups;
    }
    run_report
}

/// The run the flags ask for, before validation: the flags, then the config file under them
/// (`settings` decides what wins).
pub fn options(args: &RunArgs, config: Option<&ConfigFile>) -> Result<RunOptions> {
    let mut options = args.options.clone();
    options.destination = if args.time_machine {
        probe::time_machine_destination()
            .map_err(|e| Error::Usage(format!("{}: {e}", defs::TIME_MACHINE)))?
    } else {
        absolute(args.path.clone().unwrap_or_else(|| PathBuf::from(".")))
    };
    options.with_config(args.profile.as_deref(), config)
}

/// The destination as an absolute, canonical path, so that the history, comparisons, reports
/// and the Time Machine lines tell destinations apart (`.` would name every one). A path that
/// cannot be resolved is kept as given: the runner then reports what is wrong with it.
pub fn absolute(path: PathBuf) -> PathBuf {
    #[cfg(windows)]
    let canonical = dunce::canonicalize(&path);
    #[cfg(not(windows))]
    let canonical = std::fs::canonicalize(&path);
    canonical.unwrap_or(path)
}

/// `destbench run` in the terminal.
pub fn run(args: &RunArgs) -> Result<ExitCode> {
    let launched = cluster::launcher();
    let asked = args.stonewall || !args.clients.is_empty();
    if let Some(note) = cluster::single_client_note(cfg!(feature = "mpi"), launched, asked) {
        eprintln!("destbench: {note}");
    }
    let request = RunRequest::from_args(args)?;
    Ok(execute(&request, &OneClient, progress().as_mut())?.exit_code())
}

/// The run with its verdict, and the answer for the user's data: the folder they named
/// (`--data`) or the volume holding the home folder, as read before the run, else the folder
/// the run copied (`--source`), else the home volume; with how fast it reads, sampled after
/// the run so the run's figures are its own.
fn judge(
    mut run_report: RunDocument,
    data: Option<YourData>,
    progress: &mut dyn Progress,
) -> RunDocument {
    let verdict = verdict::of(&run_report);
    run_report.share = verdict::share::of(run_report.chain.as_ref(), &run_report.results, &verdict);
    run_report.verdict = Some(verdict);
    let data = data
        .or_else(|| answer::folder_of_run(&run_report))
        .or_else(|| answer::home_volume().ok())
        .map(|data| answer::with_reads(data, progress));
    run_report.answer = data.and_then(|data| answer::of(&run_report, data));
    run_report
}

/// The report printed as `output` asks (nothing for the page's).
fn print(output: &Output, run_report: &RunDocument) -> Result<()> {
    let Output::Printed {
        json,
        wide,
        verbose,
        file,
    } = output
    else {
        return Ok(());
    };
    let text = if *json {
        report::export::json::render(run_report)
    } else {
        let (style, layout) = if file.is_some() {
            // A file is read later, anywhere: the default width, no colour codes.
            let layout = report::terminal::Layout {
                wide: *wide,
                verbose: *verbose,
                ..Default::default()
            };
            (report::terminal::Style { color: false }, layout)
        } else {
            let layout = report::terminal::Layout::detect(*wide, *verbose);
            (report::terminal::Style::detect(), layout)
        };
        let mut text = report::terminal::render(run_report, style, layout);
        if *verbose {
            text.push_str(&report::terminal::repetitions(run_report));
        }
        text
    };
    match file {
        Some(path) => std::fs::write(path, &text)
            .map_err(|e| Error::io(format!("writing the report to {}", path.display()), e)),
        None => write_stdout(&text),
    }
}

/// Stores a finished run in one transaction and says so on stderr; returns its id. An error or
/// an interruption returned before and stored nothing; nor is a run in which every test failed
/// stored (it has no figure to compare): None.
fn store(store: &RunStore, run_report: &RunDocument, json: bool) -> Result<Option<i64>> {
    if run_report.results.is_empty() && !run_report.failures.is_empty() {
        eprintln!("destbench: not stored in the history: every test failed");
        return Ok(None);
    }
    match db::store_run(store, run_report) {
        Ok(id) => {
            eprintln!(
                "destbench: stored as run {id} in {}",
                store.path().display()
            );
            Ok(Some(id))
        }
        Err(e) => Err(not_stored(e, run_report, json)),
    }
}

/// The history could not take a finished run (a full or read-only disk): the error, and where
/// the run's results are kept instead. The report was printed already; with `--json` it is the
/// document on stdout, else the document is written to a new file in the temp directory (never
/// over an existing one).
fn not_stored(cause: Error, run_report: &crate::results::RunDocument, json: bool) -> Error {
    let kept = if json {
        "its JSON report is on stdout".to_string()
    } else {
        let file = std::env::temp_dir().join(format!(
            "destbench-run-{}-{}.json",
            run_report.started_unix_s,
            std::process::id()
        ));
        let text = report::export::json::render(run_report);
        let written = match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&file)
        {
            // Created by us just now, so ours to remove when it cannot be written whole.
            Ok(mut f) => std::io::Write::write_all(&mut f, text.as_bytes()).inspect_err(|_| {
                let _ = std::fs::remove_file(&file);
            }),
            Err(e) => Err(e),
        };
        match written {
            Ok(()) => format!("its JSON report is in {}", file.display()),
            Err(e) => format!(
                "its JSON report could not be saved either: {}: {e}",
                file.display()
            ),
        }
    };
    Error::NotStored {
        cause: Box::new(cause),
        kept,
    }
}
