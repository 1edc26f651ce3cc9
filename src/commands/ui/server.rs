//! One request of `destbench ui`: checked by `guard`, routed, answered. GET reads; POST starts
//! or stops a job. The page and its script are shipped in the binary.

use std::io::Read;

use tiny_http::{Header, Method, Request, Response};

use super::App;
use super::api::{self, value};
use super::guard::{self, Asked};
use super::job::Refused;
use super::reply::{Reply, to_json};
use crate::report;

const PAGE: &str = include_str!("page.html");
const SCRIPT: &str = include_str!("page.js");
const STYLE: &str = include_str!("page.css");

/// The page may run its own script and talk to this server only; the report frames are ours.
const PAGE_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
     connect-src 'self'; frame-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'";

/// The most a POST's form may hold.
const MAX_BODY: u64 = 64 * 1024;

/// The request's path and its query's pairs.
pub struct Target {
    pub path: String,
    pub query: Vec<(String, String)>,
}

impl Target {
    fn parse(url: &str) -> Target {
        let (path, query) = url.split_once('?').unwrap_or((url, ""));
        Target {
            path: path.to_string(),
            query: pairs(query.as_bytes()),
        }
    }

    /// The first value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        value(&self.query, key)
    }

    /// Every value of `key`, in order.
    pub fn all(&self, key: &str) -> Vec<&str> {
        self.query
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .collect()
    }
}

fn pairs(text: &[u8]) -> Vec<(String, String)> {
    form_urlencoded::parse(text).into_owned().collect()
}

pub fn answer(app: &App, mut request: Request) {
    let target = Target::parse(request.url());
    let header = |name: &'static str| {
        request
            .headers()
            .iter()
            .find(|h| h.field.equiv(name))
            .map(|h| h.value.as_str().to_string())
    };
    let (host, origin) = (header("Host"), header("Origin"));
    let asked = Asked {
        host: host.as_deref(),
        origin: origin.as_deref(),
        token: target.get("t"),
    };
    let reply = match guard::check(&asked, &app.token, app.port) {
        Err(refusal) => Reply::text(403, refusal.message()),
        Ok(()) => match request.method() {
            Method::Get => get(app, &target),
            Method::Post => {
                let mut body = Vec::new();
                let read = request.as_reader().take(MAX_BODY).read_to_end(&mut body);
                match read {
                    Ok(_) => post(app, &target.path, &pairs(&body)),
                    Err(e) => Reply::text(400, format!("reading the request: {e}")),
                }
            }
            _ => Reply::text(405, "only GET and POST"),
        },
    };
    let _ = request.respond(response(reply));
}

fn get(app: &App, target: &Target) -> Reply {
    match target.path.as_str() {
        "/" => Reply::html(PAGE.replace("{{TOKEN}}", &app.token), PAGE_CSP.into()),
        "/page.js" => asset("text/javascript; charset=utf-8", SCRIPT),
        "/page.css" => asset(
            "text/css; charset=utf-8",
            &format!("{}\n{STYLE}", report::html::SUMMARY_STYLE),
        ),
        "/api/status" => Reply::json(200, to_json(&app.jobs.status())),
        "/api/destinations" => Reply::json(200, to_json(&api::destinations())),
        "/api/profiles" => api::profiles(app, target.get("path")),
        "/api/history" => api::history(app, target.get("destination")),
        "/api/answer" => api::glance(app, target.get("id")),
        "/report" => api::report(app, &target.all("id")),
        "/api/run" | "/api/cancel" | "/api/estimate" => Reply::text(405, "POST only"),
        _ => Reply::text(404, "not found"),
    }
}

fn post(app: &App, path: &str, form: &[(String, String)]) -> Reply {
    // One job at a time: a request while one runs is refused as such, before its form is
    // checked (a plan reads the destination, which the job under way may be filling).
    let started = match path {
        "/api/run" | "/api/estimate" if app.jobs.busy() => Err(Refused::Busy),
        "/api/run" => api::run_request(app, form).and_then(|request| app.jobs.start_run(request)),
        "/api/estimate" => {
            api::estimate_argv(app, form).and_then(|argv| app.jobs.start_estimate(&argv))
        }
        "/api/cancel" => {
            return if app.jobs.cancel() {
                Reply::json(200, to_json(&app.jobs.status()))
            } else {
                Reply::text(409, "nothing is running")
            };
        }
        _ => return Reply::text(404, "not found"),
    };
    match started {
        Ok(()) => Reply::json(202, to_json(&app.jobs.status())),
        Err(Refused::Busy) => Reply::text(409, "a run or an estimate is under way: one at a time"),
        Err(Refused::Invalid(why)) => Reply::text(400, why),
    }
}

fn asset(content_type: &'static str, body: &str) -> Reply {
    Reply {
        status: 200,
        content_type,
        body: body.to_string(),
        csp: None,
    }
}

fn response(reply: Reply) -> Response<std::io::Cursor<Vec<u8>>> {
    let mut headers = vec![
        header("Content-Type", reply.content_type),
        header("Cache-Control", "no-store"),
        header("X-Content-Type-Options", "nosniff"),
        header("Referrer-Policy", "no-referrer"),
    ];
    if let Some(csp) = &reply.csp {
        headers.push(header("Content-Security-Policy", csp));
    }
    headers.into_iter().flatten().fold(
        Response::from_data(reply.body.into_bytes()).with_status_code(reply.status),
        Response::with_header,
    )
}

fn header(name: &str, value: &str) -> Option<Header> {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).ok()
}
