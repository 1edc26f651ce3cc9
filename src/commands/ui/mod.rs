//! `destbench ui`: a page on 127.0.0.1 for people who do not live in a terminal. It lists the
//! destinations worth testing, starts a run or an estimate through the same functions as the
//! command line, shows the progress the terminal's bar shows, and draws the results with the
//! HTML report's renderer. The page computes nothing: every figure is the run document's.
//!
//! Safety: bound to loopback only; a random token in the printed address is required on every
//! request; the `Host` header must name this server (DNS rebinding); what changes anything is a
//! POST; the page and the report are served with a Content-Security-Policy.

mod api;
mod guard;
mod job;
mod reply;
mod server;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use crate::cli::{DbArg, UiArgs};
use crate::engine::EngineChoice;
use crate::error::{Error, Result};
use crate::interrupt;

/// What every request's thread shares.
pub struct App {
    pub token: String,
    pub port: u16,
    pub engine: EngineChoice,
    pub db: DbArg,
    pub jobs: job::Jobs,
}

pub fn ui(args: &UiArgs) -> Result<ExitCode> {
    interrupt::install().map_err(|e| Error::io("installing signal handlers", e))?;
    let listener = tiny_http::Server::http(("127.0.0.1", args.port.unwrap_or(0)))
        .map_err(|e| Error::Usage(format!("cannot serve on 127.0.0.1: {e}")))?;
    let port = listener
        .server_addr()
        .to_ip()
        .map(|a| a.port())
        .ok_or_else(|| Error::Usage("the server has no IP address".into()))?;
    let app = Arc::new(App {
        token: guard::new_token()?,
        port,
        engine: args.engine,
        db: args.db.clone(),
        jobs: job::Jobs::default(),
    });
    let url = format!("http://127.0.0.1:{port}/?t={}", app.token);
    // Not println!: a closed stdout (`destbench ui | head -1`) must not stop the server.
    super::write_stdout(&format!(
        "destbench: serving the page at {url}\n\
         destbench: Ctrl-C stops it (and a run under way, removing its scratch)\n"
    ))?;
    if !args.no_browser
        && let Err(e) = opener::open(&url)
    {
        eprintln!("destbench: could not open a browser ({e}); open the address above");
    }
    serve(&listener, &app)?;
    eprintln!("destbench: stopped");
    Ok(ExitCode::SUCCESS)
}

/// Answers requests, each on its own thread, until a signal, once no job is under way (the
/// job stops at the signal as a terminal run does).
fn serve(listener: &tiny_http::Server, app: &Arc<App>) -> Result<()> {
    while !interrupt::signalled() || app.jobs.busy() {
        match listener.recv_timeout(Duration::from_millis(200)) {
            Ok(Some(request)) => {
                let app = Arc::clone(app);
                let spawned = std::thread::Builder::new()
                    .name("ui-request".into())
                    .spawn(move || server::answer(&app, request));
                if let Err(e) = spawned {
                    eprintln!("destbench: a request was dropped: {e}");
                }
            }
            Ok(None) => {}
            Err(e) => return Err(Error::io("serving the page", e)),
        }
    }
    Ok(())
}
