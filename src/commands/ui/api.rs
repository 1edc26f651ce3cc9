//! What the page reads: the destinations worth testing, the profiles and their planned time,
//! the history, a run's answer and its HTML report; and the jobs it starts, built from its form:
//! a run as a `RunRequest` (the terminal's settings path, without its parser), an estimate as
//! the argv of `destbench estimate`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cli::RunId;
use crate::history::RunRecord;
use crate::probe::{self, Chain, NodeKind};
use crate::report;
use crate::workload::ProfileName;
use crate::{platform, units};

use super::super::run::{self, Output, RunRequest};
use super::super::{config, db};
use super::App;
use super::job::Refused;
use super::reply::{Reply, to_json};
use crate::error::Result;
use crate::settings::{ConfigFile, RunOptions, RunPlan, defs};

/// A destination offered on the page.
#[derive(serde::Serialize)]
pub struct Destination {
    path: PathBuf,
    /// The chain in one line, or why it could not be probed.
    chain: String,
    /// Free space, as the space check reads it.
    free: Option<String>,
    free_bytes: Option<u64>,
    kind: VolumeKind,
}

/// Removable disks and shares come first: they are the backup destinations.
#[derive(serde::Serialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
enum VolumeKind {
    Removable,
    Share,
    Fixed,
}

/// How long a volume may take to answer the probe: a dead share hangs a `stat` for minutes.
const PROBE_PATIENCE: Duration = Duration::from_secs(3);

pub fn destinations() -> Vec<Destination> {
    // A dead share delays the list by PROBE_PATIENCE at most.
    let replies = probe::replies_within(probe::volumes(), PROBE_PATIENCE, |path: &PathBuf| {
        destination(path.clone())
    });
    let mut list: Vec<Destination> = replies
        .into_iter()
        .map(|(path, reply)| {
            reply.unwrap_or_else(|| Destination {
                chain: format!("not probed: no reply within {} s", PROBE_PATIENCE.as_secs()),
                free: None,
                free_bytes: None,
                kind: VolumeKind::Fixed,
                path,
            })
        })
        .filter(can_take_a_backup)
        .collect();
    list.sort_by(|a, b| a.kind.cmp(&b.kind));
    list
}

/// A volume with no byte free cannot take a backup: a FUSE helper's mount reports 0 B. (The
/// platforms' lists already leave out read-only mounts.) One whose space is unknown is kept:
/// a share that did not answer in time may still be the destination.
fn can_take_a_backup(d: &Destination) -> bool {
    d.free_bytes != Some(0)
}

fn destination(path: PathBuf) -> Destination {
    let chain = probe::probe(&path, None);
    let free_bytes = platform::available_space(&path).ok();
    Destination {
        chain: match &chain {
            Ok(chain) => report::chain::one_line(chain),
            Err(e) => format!("not probed: {e}"),
        },
        free: free_bytes.map(units::format_bytes),
        free_bytes,
        kind: chain.as_ref().map_or(VolumeKind::Fixed, kind),
        path,
    }
}

fn kind(chain: &Chain) -> VolumeKind {
    let external = |label: &str| label.starts_with("USB") || label.starts_with("Thunderbolt");
    if chain.is_network() {
        VolumeKind::Share
    } else if chain
        .nodes()
        .iter()
        .any(|n| n.kind == NodeKind::Transport && external(&n.label))
    {
        VolumeKind::Removable
    } else {
        VolumeKind::Fixed
    }
}

#[derive(serde::Serialize)]
struct Profile {
    name: ProfileName,
    /// The one `run` takes when none is named.
    default: bool,
    planned_s: f64,
    planned: String,
}

/// Each profile with the time its plan takes on `path` (the current directory when none).
pub fn profiles(app: &App, path: Option<&str>) -> Reply {
    let path = path.filter(|p| !p.is_empty()).unwrap_or(".");
    let planned = config::load().and_then(|config| {
        ProfileName::ALL
            .into_iter()
            .map(|name| {
                let form = RunForm {
                    path,
                    profile: name.as_str(),
                    data: None,
                };
                let planned_s = crate::runner::planned_total_s(&plan(app, &form, config.as_ref())?);
                Ok(Profile {
                    name,
                    default: name == ProfileName::default(),
                    planned_s,
                    planned: units::human_duration(planned_s),
                })
            })
            .collect::<Result<Vec<Profile>>>()
    });
    match planned {
        Ok(list) => Reply::json(200, to_json(&list)),
        Err(why) => Reply::text(400, why.to_string()),
    }
}

/// What the page's form asks of a run.
struct RunForm<'a> {
    /// The destination.
    path: &'a str,
    /// destbench's or the config file's.
    profile: &'a str,
    /// "What do you back up?": a folder the answer is for (`--data`, surveyed, never copied);
    /// None for the home volume.
    data: Option<&'a str>,
}

/// The plan of a run of the page's, with the server's engine, checked as the terminal's flags
/// are.
fn plan(app: &App, form: &RunForm<'_>, config: Option<&ConfigFile>) -> Result<RunPlan> {
    let options = RunOptions {
        engine: app.engine,
        ..RunOptions::new(run::absolute(PathBuf::from(form.path)))
    };
    options.with_config(Some(form.profile), config)?.plan()
}

/// `destbench history --json`, of every run or of those on `destination`.
pub fn history(app: &App, destination: Option<&str>) -> Reply {
    let entries = match db::open_existing(&app.db) {
        Ok((_, Some(store))) => store.list(),
        Ok((_, None)) => Ok(Vec::new()),
        Err(e) => return Reply::text(500, e.to_string()),
    };
    let mut entries = match entries {
        Ok(entries) => entries,
        Err(e) => return Reply::text(500, e.to_string()),
    };
    if let Some(destination) = destination.filter(|d| !d.is_empty()) {
        let wanted = std::fs::canonicalize(destination).unwrap_or_else(|_| destination.into());
        entries.retain(|e| Path::new(&e.destination) == wanted);
    }
    Reply::json(200, report::export::list(&entries))
}

/// The stored runs of `ids`, in order.
fn records(app: &App, ids: &[&str]) -> Result<Vec<RunRecord>, Reply> {
    if ids.is_empty() {
        return Err(Reply::text(400, "which run? give id=N"));
    }
    let ids: Vec<RunId> = ids
        .iter()
        .map(|id| id.parse::<RunId>())
        .collect::<Result<_, _>>()
        .map_err(|why| Reply::text(400, why))?;
    db::records(&app.db, &ids).map_err(|e| Reply::text(404, e.to_string()))
}

/// A stored run's verdict and headline tiles.
pub fn glance(app: &App, id: Option<&str>) -> Reply {
    match records(app, &id.into_iter().collect::<Vec<_>>()) {
        Ok(records) => Reply::html(
            report::html::tiles::glance(&records[0].run).into_string(),
            report::html::CSP.to_string(),
        ),
        Err(reply) => reply,
    }
}

/// The HTML report of the runs `ids` (`report --html`), framed by the page: one run's tables and
/// charts, or several compared with `compare`'s significance test.
pub fn report(app: &App, ids: &[&str]) -> Reply {
    match records(app, ids) {
        Ok(records) => Reply::html(
            report::html::render(&records, &crate::history::compare::compare(&records)),
            format!("{}; frame-ancestors 'self'", report::html::CSP),
        ),
        Err(reply) => reply,
    }
}

/// The run the form asks for: its destination, profile and what is backed up, stored in the
/// server's history.
pub fn run_request(app: &App, form: &[(String, String)]) -> Result<RunRequest, Refused> {
    let asked = RunForm {
        path: required(form, "path", "a destination folder")?,
        profile: value(form, "profile").unwrap_or(ProfileName::default().as_str()),
        data: data(form)?,
    };
    let config = config::load()?;
    Ok(RunRequest {
        plan: plan(app, &asked, config.as_ref())?,
        link_speed: None,
        output: Output::Stored,
        history: Some(app.db.clone()),
        data: asked.data.map(|s| run::absolute(PathBuf::from(s))),
    })
}

/// "What do you back up?": empty for the home volume, else a folder by its full path (the
/// server's working directory means nothing to the page).
fn data(form: &[(String, String)]) -> Result<Option<&str>, Refused> {
    match value(form, "data").map(str::trim).filter(|s| !s.is_empty()) {
        Some(s) if !Path::new(s).is_absolute() => Err(Refused::Invalid(format!(
            "what you back up: {s}: give the folder's full path, e.g. /home/me/Documents"
        ))),
        data => Ok(data),
    }
}

pub fn estimate_argv(app: &App, form: &[(String, String)]) -> Result<Vec<String>, Refused> {
    let source = required(form, "source", "a source folder to estimate")?;
    let to = required(form, "to", "a destination to estimate for")?;
    let mut argv: Vec<String> = vec![defs::TO.to_string(), to.into()];
    // The tool as `--tool` takes it (a backup program too); checked by the command's parser.
    if let Some(tool) = value(form, "tool").filter(|t| !t.trim().is_empty()) {
        argv.extend([defs::TOOL.to_string(), tool.trim().into()]);
    }
    argv.extend(db_args(app));
    argv.extend(["--".into(), source.into()]);
    Ok(argv)
}

fn required<'a>(form: &'a [(String, String)], key: &str, what: &str) -> Result<&'a str, Refused> {
    value(form, key)
        .filter(|v| !v.trim().is_empty())
        .ok_or_else(|| Refused::Invalid(format!("{what} is needed")))
}

fn db_args(app: &App) -> Vec<String> {
    match &app.db.db {
        Some(db) => vec![defs::DB.to_string(), db.display().to_string()],
        None => Vec::new(),
    }
}

/// The first value of `key` in a form or a query.
pub fn value<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::Node;

    fn chain(links: &[(NodeKind, &str)]) -> Chain {
        let mut nodes = links.iter().rev().map(|&(k, label)| Node::new(k, label));
        let last = nodes.next().unwrap();
        let root = nodes.fold(last, |child, mut parent| {
            parent.children.push(child);
            parent
        });
        Chain {
            path: PathBuf::from("/mnt"),
            root,
            notes: Vec::new(),
        }
    }

    #[test]
    fn removable_disks_then_shares_then_the_rest() {
        let usb = chain(&[
            (NodeKind::Mount, "ext4 at /media/b from /dev/sdb1"),
            (NodeKind::Disk, "disk sdb"),
            (NodeKind::Transport, "USB 2.0 (BOT)"),
        ]);
        let share = chain(&[
            (NodeKind::Mount, "cifs at /mnt/nas from //nas/b"),
            (NodeKind::Server, "server nas"),
        ]);
        let internal = chain(&[
            (NodeKind::Mount, "ext4 at / from /dev/nvme0n1p2"),
            (NodeKind::Transport, "PCIe 3.0 x4"),
        ]);
        assert_eq!(
            report::chain::one_line(&usb),
            "ext4 at /media/b from /dev/sdb1 → disk sdb → USB 2.0 (BOT)"
        );
        let mut kinds = [kind(&internal), kind(&share), kind(&usb)];
        kinds.sort();
        assert!(kinds == [VolumeKind::Removable, VolumeKind::Share, VolumeKind::Fixed]);
    }

    /// A mount with no byte free (a FUSE helper's) is left out; one with space, or whose space
    /// did not answer in time, stays.
    #[test]
    fn a_volume_with_no_byte_free_is_left_out() {
        let volume = |free_bytes| Destination {
            path: PathBuf::from("/mnt/x"),
            chain: String::new(),
            free: None,
            free_bytes,
            kind: VolumeKind::Fixed,
        };
        assert!(!can_take_a_backup(&volume(Some(0))));
        assert!(can_take_a_backup(&volume(Some(1))));
        assert!(can_take_a_backup(&volume(None)));
    }

    /// "What do you back up?": nothing typed is the home volume; a folder by its full path.
    #[test]
    fn what_is_backed_up_is_nothing_or_a_full_path() {
        let form = |data: &str| vec![("data".to_string(), data.to_string())];
        assert_eq!(data(&form("  ")).ok(), Some(None));
        assert_eq!(data(&[]).ok(), Some(None));
        let full = std::env::temp_dir();
        let full = full.to_str().unwrap();
        assert_eq!(data(&form(full)).ok(), Some(Some(full)));
        match data(&form("Documents")) {
            Err(Refused::Invalid(why)) => assert_eq!(
                why,
                "what you back up: Documents: give the folder's full path, e.g. /home/me/Documents"
            ),
            other => panic!("{:?}", other.map(|_| ())),
        }
    }
}
