//! `destbench ui`'s HTTP API, from outside, as a browser's tabs reach it: the token, the `Host`
//! and `Origin` checks and their status codes, one job at a time seen alike by every tab, Cancel
//! removing the scratch as Ctrl-C does, and a run from the page stored as one from the terminal.
//! Runs use the null engine: the page's behaviour is under test, not a disk.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{destbench, each};

/// A `destbench ui` process, stopped by SIGTERM when dropped.
pub struct Ui {
    child: Child,
    /// Kept open: the server's stdout.
    _stdout: BufReader<std::process::ChildStdout>,
    pub port: u16,
    pub token: String,
    pub db: PathBuf,
}

impl Ui {
    /// Serves with `engine` and a history in `dir`.
    pub fn start(dir: &Path, engine: &str) -> Ui {
        let db = dir.join("history.sqlite");
        let mut child = destbench()
            .args(["ui", "--no-browser", "--engine", engine, "--db"])
            .arg(&db)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(dir.join("ui.stderr")).unwrap())
            .spawn()
            .expect("start destbench ui");
        let mut line = String::new();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        stdout.read_line(&mut line).unwrap();
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://127.0.0.1:"))
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        let rest = url.trim_start_matches("http://127.0.0.1:");
        let (port, token) = rest.split_once("/?t=").unwrap();
        Ui {
            child,
            _stdout: stdout,
            port: port.parse().unwrap(),
            token: token.to_string(),
            db,
        }
    }

    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// `path` with the token added to its query.
    pub fn with_token(&self, path: &str) -> String {
        let join = if path.contains('?') { '&' } else { '?' };
        format!("{path}{join}t={}", self.token)
    }

    pub fn get(&self, path: &str) -> (u16, String) {
        request(
            self.port,
            "GET",
            &self.with_token(path),
            &self.host(),
            &[],
            "",
        )
    }

    pub fn post(&self, path: &str, form: &str) -> (u16, String) {
        request(
            self.port,
            "POST",
            &self.with_token(path),
            &self.host(),
            &[],
            form,
        )
    }

    pub fn status(&self) -> Value {
        let (code, body) = self.get("/api/status");
        assert_eq!(code, 200, "{body}");
        serde_json::from_str(&body).unwrap()
    }

    /// Polls the status until the job is done; its last status.
    pub fn wait_done(&self, within: Duration) -> Value {
        let start = Instant::now();
        loop {
            let status = self.status();
            if status["state"] == "done" {
                return status;
            }
            assert!(start.elapsed() < within, "not done in {within:?}: {status}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Sends SIGTERM and waits for the server to end.
    pub fn stop(&mut self) -> std::process::ExitStatus {
        let pid = rustix::process::Pid::from_raw(self.child.id() as i32).unwrap();
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        self.child.wait().unwrap()
    }
}

impl Drop for Ui {
    fn drop(&mut self) {
        if self.child.try_wait().is_ok_and(|s| s.is_none()) {
            self.stop();
        }
    }
}

/// One HTTP/1.1 request over its own connection (a tab of its own); the status and the body.
pub fn request(
    port: u16,
    method: &str,
    target: &str,
    host: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let mut head = format!("{method} {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if method == "POST" {
        head.push_str("Content-Type: application/x-www-form-urlencoded\r\n");
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(head.as_bytes()).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {answer:?}"));
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, body.to_string())
}

/// The headers of `GET target`, lower-cased.
fn headers_of(ui: &Ui, target: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", ui.port)).unwrap();
    let ask = format!(
        "GET {} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        ui.with_token(target),
        ui.host()
    );
    stream.write_all(ask.as_bytes()).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
        .split_once("\r\n\r\n")
        .unwrap()
        .0
        .to_ascii_lowercase()
}

fn form(path: &Path, profile: &str) -> String {
    let path: String = form_urlencoded::byte_serialize(path.to_str().unwrap().as_bytes()).collect();
    format!("path={path}&profile={profile}")
}

fn scratch_dirs(dir: &Path) -> Vec<String> {
    crate::support::entries(dir)
        .into_iter()
        .filter(|e| e.starts_with(".destbench-"))
        .collect()
}

/// A temp directory with an empty `dest` folder in it.
fn with_dest() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("dest");
    std::fs::create_dir(&dest).unwrap();
    (dir, dest)
}

/// Starts a long run on `dest` and returns once its scratch directory is there.
fn run_until_scratch(ui: &Ui, dest: &Path) {
    let (code, body) = ui.post("/api/run", &form(dest, "backup"));
    assert_eq!(code, 202, "{body}");
    let start = Instant::now();
    while scratch_dirs(dest).is_empty() {
        assert!(start.elapsed() < Duration::from_secs(30), "no scratch made");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn every_request_needs_the_token_this_host_and_post_to_change_anything() {
    let dir = tempfile::tempdir().unwrap();
    let ui = Ui::start(dir.path(), "null");
    let host = ui.host();
    let get = |target: &str, host: &str, headers: &[(&str, &str)]| {
        request(ui.port, "GET", target, host, headers, "").0
    };
    assert_eq!(get("/", &host, &[]), 403, "no token");
    assert_eq!(get("/api/status", &host, &[]), 403, "no token");
    assert_eq!(get("/?t=0123", &host, &[]), 403, "a wrong token");
    let page = ui.with_token("/");
    assert_eq!(get(&page, &host, &[]), 200);
    assert_eq!(get(&page, &format!("localhost:{}", ui.port), &[]), 200);
    assert_eq!(
        get(&page, &format!("evil.example:{}", ui.port), &[]),
        403,
        "rebound DNS"
    );
    assert_eq!(get(&page, "127.0.0.1:1", &[]), 403, "another port");
    assert_eq!(get(&ui.with_token("/nothing"), &host, &[]), 404);
    assert_eq!(
        get(&ui.with_token("/api/run"), &host, &[]),
        405,
        "a run is a POST"
    );
    let run = form(dir.path(), "quick");
    let post = |target: &str, headers: &[(&str, &str)]| {
        request(ui.port, "POST", target, &host, headers, &run).0
    };
    assert_eq!(post("/api/run", &[]), 403, "a POST without the token");
    let foreign = [("Origin", "http://evil.example")];
    assert_eq!(
        post(&ui.with_token("/api/run"), &foreign),
        403,
        "from another page"
    );
    assert_eq!(
        ui.status()["state"],
        "idle",
        "nothing refused started a run"
    );
    let headers = headers_of(&ui, "/");
    assert!(
        headers.contains("content-security-policy: default-src 'none'; script-src 'self'"),
        "{headers}"
    );
    assert!(headers.contains("frame-ancestors 'none'"), "{headers}");
}

#[test]
fn a_path_or_profile_the_command_line_refuses_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let ui = Ui::start(dir.path(), "null");
    let (code, body) = ui.post("/api/run", &form(&dir.path().join("missing"), "quick"));
    assert_eq!(
        (code, body.as_str()),
        (
            400,
            format!("{}: does not exist", dir.path().join("missing").display()).as_str()
        )
    );
    let file = dir.path().join("history.sqlite.file");
    std::fs::write(&file, "").unwrap();
    let (code, body) = ui.post("/api/run", &form(&file, "quick"));
    assert_eq!(code, 400);
    assert!(body.ends_with("is not a directory"), "{body}");
    let (code, body) = ui.post("/api/run", &form(dir.path(), "nope"));
    assert_eq!(code, 400);
    assert!(
        body.starts_with("--profile: unknown profile 'nope'"),
        "{body}"
    );
    let (code, body) = ui.post("/api/run", "profile=quick");
    assert_eq!(
        (code, body.as_str()),
        (400, "a destination folder is needed")
    );
    let (code, _) = ui.post("/api/cancel", "");
    assert_eq!(code, 409, "nothing to cancel");
    assert_eq!(ui.status()["state"], "idle");
}

#[test]
fn profiles_come_with_their_planned_time_and_volumes_with_their_chain() {
    let (dir, dest) = with_dest();
    let ui = Ui::start(dir.path(), "null");
    let (code, body) = ui.get(&format!("/api/profiles?path={}", dest.display()));
    assert_eq!(code, 200, "{body}");
    let profiles: Value = serde_json::from_str(&body).unwrap();
    let names: Vec<&str> = each(&profiles, "name", Value::as_str);
    assert_eq!(names, ["quick", "backup", "full"]);
    let planned: Vec<f64> = each(&profiles, "planned_s", Value::as_f64);
    assert!(
        planned[0] > 0.0 && planned[0] < planned[1] && planned[1] < planned[2],
        "{planned:?}"
    );
    let defaults: Vec<&Value> = profiles
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["default"] == true)
        .collect();
    assert_eq!(defaults.len(), 1, "{profiles}");
    let (code, body) = ui.get("/api/destinations");
    assert_eq!(code, 200, "{body}");
    let volumes: Value = serde_json::from_str(&body).unwrap();
    for v in volumes.as_array().unwrap() {
        assert!(Path::new(v["path"].as_str().unwrap()).is_absolute(), "{v}");
        assert!(!v["chain"].as_str().unwrap().is_empty(), "{v}");
        assert!(
            ["removable", "share", "fixed"].contains(&v["kind"].as_str().unwrap()),
            "{v}"
        );
        assert_ne!(v["free_bytes"], 0, "no byte free: no backup fits: {v}");
    }
}

#[test]
fn one_run_at_a_time_and_every_tab_sees_it() {
    let dir = tempfile::tempdir().unwrap();
    let ui = Ui::start(dir.path(), "null");
    let (code, body) = ui.post("/api/run", &form(dir.path(), "quick"));
    assert_eq!(code, 202, "{body}");
    let (code, body) = ui.post("/api/run", &form(dir.path(), "quick"));
    assert_eq!(
        (code, body.as_str()),
        (409, "a run or an estimate is under way: one at a time")
    );
    // Two tabs (two connections) at once see the same run under way.
    let tabs: Vec<Value> = std::thread::scope(|s| {
        let tabs: Vec<_> = (0..2).map(|_| s.spawn(|| ui.status())).collect();
        tabs.into_iter().map(|t| t.join().unwrap()).collect()
    });
    for tab in &tabs {
        assert_eq!(tab["state"], "running", "{tab}");
        assert_eq!(
            tab["path"],
            dir.path().canonicalize().unwrap().to_str().unwrap()
        );
        assert!(tab["progress"]["eta"].is_string(), "{tab}");
    }
    let done = ui.wait_done(Duration::from_secs(120));
    assert_eq!(done["outcome"]["result"], "stored", "{done}");
    let id = done["outcome"]["run_id"].as_i64().unwrap();
    let (code, answer) = ui.get(&format!("/api/answer?id={id}"));
    assert_eq!(code, 200);
    assert!(answer.contains("data-tile=\"verdict\""), "{answer}");
    assert!(answer.contains("data-tile=\"figure\""), "{answer}");
    let (code, report) = ui.get(&format!("/report?id={id}"));
    assert_eq!(code, 200);
    assert!(report.contains("<h1>destbench report</h1>"));
    let (code, _) = ui.get("/report?id=999");
    assert_eq!(code, 404, "an unknown run");
    let (code, _) = ui.get("/report?id=one");
    assert_eq!(code, 400);
}

#[test]
fn cancel_stops_the_run_and_removes_its_scratch() {
    let (dir, dest) = with_dest();
    let ui = Ui::start(dir.path(), "null");
    run_until_scratch(&ui, &dest);
    let (code, body) = ui.post("/api/cancel", "");
    assert_eq!(code, 200, "{body}");
    let done = ui.wait_done(Duration::from_secs(30));
    assert_eq!(done["outcome"]["result"], "cancelled", "{done}");
    assert_eq!(
        done["outcome"]["error"],
        "interrupted by Cancel on the page; scratch data removed"
    );
    assert_eq!(scratch_dirs(&dest), Vec::<String>::new());
    let (_, history) = ui.get("/api/history");
    let history: Value = serde_json::from_str(&history).unwrap();
    assert_eq!(
        history["runs"],
        serde_json::json!([]),
        "a cancelled run is not stored"
    );
    // The next run is not cancelled by the last one's Cancel.
    let (code, _) = ui.post("/api/run", &form(&dest, "quick"));
    assert_eq!(code, 202);
    let done = ui.wait_done(Duration::from_secs(120));
    assert_eq!(done["outcome"]["result"], "stored", "{done}");
}

#[test]
fn sigterm_stops_the_server_and_its_run_removing_the_scratch() {
    let (dir, dest) = with_dest();
    let mut ui = Ui::start(dir.path(), "null");
    run_until_scratch(&ui, &dest);
    let start = Instant::now();
    let status = ui.stop();
    assert!(status.success(), "{status:?}");
    assert!(start.elapsed() < Duration::from_secs(30), "stopped late");
    assert_eq!(scratch_dirs(&dest), Vec::<String>::new());
}

/// Every path of a JSON document's keys, arrays' items merged: its shape.
fn shape(value: &Value, at: &str, out: &mut std::collections::BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let path = format!("{at}/{k}");
                out.insert(path.clone());
                shape(v, &path, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| shape(v, &format!("{at}[]"), out)),
        _ => {}
    }
}

#[test]
fn a_run_from_the_page_is_stored_as_one_from_the_terminal() {
    let (dir, dest) = with_dest();
    let ui = Ui::start(dir.path(), "null");
    let (code, body) = ui.post("/api/run", &form(&dest, "quick"));
    assert_eq!(code, 202, "{body}");
    let page_id = ui.wait_done(Duration::from_secs(120))["outcome"]["run_id"].clone();
    let terminal = destbench()
        .args(["run", "--engine", "null", "--profile", "quick", "--db"])
        .arg(&ui.db)
        .arg(&dest)
        .output()
        .unwrap();
    assert!(terminal.status.success(), "{terminal:?}");
    let (_, history) = ui.get(&format!("/api/history?destination={}", dest.display()));
    let history: Value = serde_json::from_str(&history).unwrap();
    let ids: Vec<i64> = each(&history["runs"], "id", Value::as_i64);
    assert_eq!(
        ids,
        [2, page_id.as_i64().unwrap()],
        "both in the same history, newest first"
    );
    let shapes: Vec<_> = [1, 2]
        .iter()
        .map(|id| {
            let out = destbench()
                .args(["show", &id.to_string(), "--json", "--db"])
                .arg(&ui.db)
                .output()
                .unwrap();
            let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
            let mut keys = std::collections::BTreeSet::new();
            shape(&doc["runs"][0]["run"], "", &mut keys);
            keys
        })
        .collect();
    assert!(shapes[0].len() > 50, "a whole document: {:?}", shapes[0]);
    // The two compared, as the page's Compare shows them: the HTML report of both.
    let (code, compared) = ui.get("/report?id=1&id=2");
    assert_eq!(code, 200);
    assert!(
        compared.contains("run 1 vs run 2"),
        "the comparison's title"
    );
    assert!(
        compared.contains("Welch's t-test"),
        "compare's significance test"
    );
    assert_eq!(
        shapes[0], shapes[1],
        "the page's run and the terminal's have one shape"
    );
}

#[test]
#[ignore = "an estimate copies its calibration sets to a disk folder: about 30 s"]
fn an_estimate_from_the_page_is_the_commands_text() {
    let dir = crate::support::disk_tempdir("destbench-ui-estimate-");
    let (source, to) = (dir.path().join("source"), dir.path().join("to"));
    std::fs::create_dir(&source).unwrap();
    std::fs::create_dir(&to).unwrap();
    for i in 0..20 {
        std::fs::write(source.join(format!("f{i}")), vec![i as u8; 20_000]).unwrap();
    }
    let ui = Ui::start(dir.path(), "null");
    let encode = |p: &Path| -> String {
        form_urlencoded::byte_serialize(p.to_str().unwrap().as_bytes()).collect()
    };
    let (code, body) = ui.post("/api/estimate", &format!("source={}", encode(&source)));
    assert_eq!(
        (code, body.as_str()),
        (400, "a destination to estimate for is needed")
    );
    // The page's tool goes to --tool, whose parser refuses what it does not know.
    let tar = format!("source={}&to={}&tool=tar", encode(&source), encode(&to));
    let (code, body) = ui.post("/api/estimate", &tar);
    assert_eq!(code, 400, "{body}");
    assert!(body.contains("unknown tool 'tar'"), "{body}");
    let estimate = format!("source={}&to={}&tool=", encode(&source), encode(&to));
    let (code, body) = ui.post("/api/estimate", &estimate);
    assert_eq!(code, 202, "{body}");
    let (code, _) = ui.post("/api/run", &form(&to, "quick"));
    assert_eq!(code, 409, "one job at a time, an estimate included");
    let done = ui.wait_done(Duration::from_secs(300));
    let text = done["outcome"]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{done}"));
    let first = format!(
        "first full backup of {}: 20 files, 390.62 KiB in 1 directories",
        source.display()
    );
    assert!(text.starts_with(&first), "{text}");
    assert!(
        text.contains(&format!("to {} (measured now):", to.display())),
        "{text}"
    );
    assert!(text.contains("predicted for rsync: "), "{text}");
    assert_eq!(scratch_dirs(&to), Vec::<String>::new());
    assert_eq!(scratch_dirs(dir.path()), Vec::<String>::new());
}
