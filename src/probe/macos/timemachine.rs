//! Time Machine's own view: its destinations (`tmutil destinationinfo -X`), and what its unified
//! log records: the speed check when it checks a destination ("Wrote 1 50 MB file at 286.15
//! MB/s to ..."), a figure no one here wrote, shown beside `tm-check`; and each backup's start
//! and what it copied, from which the first-backup answer takes Time Machine's own time per
//! item on this Mac.

use std::path::{Path, PathBuf};

use plist::Value;

use super::Tools;

/// One configured Time Machine destination.
#[derive(Debug, Clone, PartialEq)]
pub struct Destination {
    pub name: String,
    /// `Local` (a disk) or `Network` (a share).
    pub kind: String,
    /// Where it is mounted now; None when it is not.
    pub mount_point: Option<PathBuf>,
    /// The share's URL (network destinations).
    pub url: Option<String>,
    pub id: String,
}

/// The destinations of `tmutil destinationinfo -X`.
pub fn parse_destinations(xml: &str) -> Vec<Destination> {
    let Ok(value) = Value::from_reader_xml(xml.as_bytes()) else {
        return Vec::new();
    };
    let list = value
        .as_dictionary()
        .and_then(|d| d.get("Destinations"))
        .and_then(Value::as_array);
    list.into_iter()
        .flatten()
        .filter_map(Value::as_dictionary)
        .map(|d| {
            let s = |k: &str| d.get(k).and_then(Value::as_string).map(str::to_string);
            Destination {
                name: s("Name").unwrap_or_default(),
                kind: s("Kind").unwrap_or_default(),
                mount_point: s("MountPoint").map(PathBuf::from),
                url: s("URL"),
                id: s("ID").unwrap_or_default(),
            }
        })
        .collect()
}

/// The destination `run --time-machine` measures: the first one mounted now.
pub fn pick(destinations: &[Destination]) -> Result<PathBuf, String> {
    if destinations.is_empty() {
        return Err("Time Machine has no destination (tmutil destinationinfo lists none)".into());
    }
    destinations
        .iter()
        .find_map(|d| d.mount_point.clone())
        .ok_or_else(|| {
            let names: Vec<&str> = destinations.iter().map(|d| d.name.as_str()).collect();
            format!(
                "no Time Machine destination is mounted ({}): connect it, or open its share in Finder",
                names.join(", ")
            )
        })
}

/// One speed check Time Machine logged.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SpeedCheck {
    /// Several files written at once ("Concurrently wrote ...") or one after another.
    pub concurrent: bool,
    pub files: u64,
    /// Each file's size as logged ("50 MB", "4 KB").
    pub file_size: String,
    pub mb_s: f64,
    pub destination: Option<String>,
    pub seconds: Option<f64>,
    /// The log line's timestamp (its first two words).
    pub when: String,
}

impl std::fmt::Display for SpeedCheck {
    /// As backupd logs it, with its time: the same shape as destbench's own `tm-check` lines.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (verb, plural) = match (self.concurrent, self.files) {
            (true, _) => ("Concurrently wrote", "s"),
            (false, 1) => ("Wrote", ""),
            (false, _) => ("Wrote", "s"),
        };
        write!(
            f,
            "{}: {verb} {} {} file{plural} at {:.2} MB/s",
            self.when, self.files, self.file_size, self.mb_s
        )?;
        match self.seconds {
            Some(s) => write!(f, " in {s:.3} seconds"),
            None => Ok(()),
        }
    }
}

/// A log line of Time Machine's speed check: `... Wrote 1 50 MB file at 286.15 MB/s to
/// "/Volumes/..." in 0.175 seconds` or `... Concurrently wrote 500 4 KB files at 3.07 MB/s ...`.
pub fn parse_speed_line(line: &str) -> Option<SpeedCheck> {
    let (start, concurrent) = match line.find("Concurrently wrote ") {
        Some(i) => (i + "Concurrently wrote ".len(), true),
        None => (line.find("Wrote ")? + "Wrote ".len(), false),
    };
    let rest = &line[start..];
    let words: Vec<&str> = rest.split_whitespace().collect();
    let [files, size, unit, _file_word, "at", rate, "MB/s", ..] = words[..] else {
        return None;
    };
    let destination = rest
        .split_once(" to \"")
        .and_then(|(_, r)| r.split_once('"'))
        .map(|(d, _)| d.to_string());
    let seconds = rest
        .rsplit_once(" in ")
        .and_then(|(_, r)| r.strip_suffix(" seconds"))
        .and_then(|s| s.trim().parse().ok());
    let when: Vec<&str> = line.split_whitespace().take(2).collect();
    Some(SpeedCheck {
        concurrent,
        files: files.parse().ok()?,
        file_size: format!("{size} {unit}"),
        mb_s: rate.parse().ok()?,
        destination,
        seconds,
        when: when.join(" "),
    })
}

/// The speed checks in a `log show` output, oldest first.
pub fn parse_speed_log(text: &str) -> Vec<SpeedCheck> {
    text.lines().filter_map(parse_speed_line).collect()
}

/// The checks of the volume holding `destination`: those of that path or a directory above it.
pub fn checks_of(destination: &Path, checks: Vec<SpeedCheck>) -> Vec<SpeedCheck> {
    checks
        .into_iter()
        .filter(|c| {
            c.destination
                .as_deref()
                .is_some_and(|d| destination.starts_with(d))
        })
        .collect()
}

/// The `log show` arguments that list Time Machine's speed checks and its backups' starts and
/// copies of the last `days` days.
pub fn log_args(days: u32) -> Vec<String> {
    [
        "log",
        "show",
        "--style",
        "syslog",
        "--last",
        &format!("{days}d"),
        "--predicate",
        "subsystem == \"com.apple.TimeMachine\" AND (eventMessage CONTAINS[c] \"rote \" \
         OR eventMessage BEGINSWITH \"Starting\" OR eventMessage CONTAINS \" volumes to \" \
         OR eventMessage BEGINSWITH \"Copied \" OR eventMessage BEGINSWITH \"Finished copying\")",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Time Machine's destinations, read through `tools`.
pub fn destinations(tools: &dyn Tools) -> Vec<Destination> {
    tools
        .output(&["tmutil", "destinationinfo", "-X"])
        .map(|x| parse_destinations(&x))
        .unwrap_or_default()
}

/// What Time Machine logged in the last `days` days: its speed checks and its backups, oldest
/// first, read through `tools` (one `log show`).
pub fn read_log(tools: &dyn Tools, days: u32) -> (Vec<SpeedCheck>, Vec<LoggedBackup>) {
    let args = log_args(days);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    tools
        .output(&args)
        .map(|t| (parse_speed_log(&t), parse_backup_log(&t)))
        .unwrap_or_default()
}

/// One backup Time Machine logged, from its start to its last volume's copy.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LoggedBackup {
    /// Its start line's timestamp.
    pub when: String,
    /// The mount point it backed up to, where the log names it ("Backing up 1 volumes to NAME
    /// (...): /Volumes/NAME"): on a share, the disk image's volume.
    pub destination: Option<String>,
    /// Where its speed check wrote: on a share, the share's own mount point.
    pub checked: Option<String>,
    /// From "Starting ... backup" to the last "Finished copying from volume" (or "Copied N
    /// items (SIZE) from volume", before Big Sur).
    pub seconds: f64,
    /// The items it added and their logical size, every volume's.
    pub items: u64,
    pub bytes: u64,
}

/// A backup whose start the log showed, its copies summed as they come.
struct Open {
    start: f64,
    when: String,
    destination: Option<String>,
    checked: Option<String>,
    end: Option<f64>,
    items: u64,
    bytes: u64,
}

impl Open {
    fn finished(self) -> Option<LoggedBackup> {
        let end = self.end?;
        Some(LoggedBackup {
            when: self.when,
            destination: self.destination,
            checked: self.checked,
            seconds: end - self.start,
            items: self.items,
            bytes: self.bytes,
        })
    }
}

/// The backups in a `log show --style syslog` output whose start and copies it shows, oldest
/// first. Since Big Sur a volume's copy ends with "Finished copying from volume" and lines
/// without a timestamp of their own, among them "N Total Items Added (l: SIZE p: SIZE)";
/// before it, with "Copied N items (SIZE) from volume NAME.".
pub fn parse_backup_log(text: &str) -> Vec<LoggedBackup> {
    let mut backups = Vec::new();
    let mut open: Option<Open> = None;
    // The volume whose "Finished copying" awaits its "Total Items Added" line.
    let mut finishing = false;
    for line in text.lines() {
        let Some((t, when, message)) = stamped(line) else {
            if let (true, Some(o), Some((items, bytes))) =
                (finishing, open.as_mut(), items_added(line))
            {
                o.items += items;
                o.bytes += bytes;
                finishing = false;
            }
            continue;
        };
        finishing = false;
        if message.starts_with("Starting") && message.contains("backup") {
            backups.extend(open.take().and_then(Open::finished));
            open = Some(Open {
                start: t,
                when,
                destination: None,
                checked: None,
                end: None,
                items: 0,
                bytes: 0,
            });
        } else if let Some(o) = open.as_mut() {
            if let Some(check) = parse_speed_line(line) {
                o.checked = check.destination;
            } else if message.starts_with("Backing up ") && message.contains(" volumes to ") {
                o.destination = message
                    .rsplit_once("): ")
                    .map(|(_, mount)| mount.trim().to_string());
            } else if message.starts_with("Finished copying from volume") {
                o.end = Some(t);
                finishing = true;
            } else if let Some((items, bytes)) = copied_from_volume(message) {
                o.end = Some(t);
                o.items += items;
                o.bytes += bytes;
            }
        }
    }
    backups.extend(open.and_then(Open::finished));
    backups
}

/// A log line's time (seconds since the epoch), its timestamp as written and its message (what
/// follows backupd's `[subsystem:category] `, or the rest of the line).
fn stamped(line: &str) -> Option<(f64, String, &str)> {
    let mut words = line.split_whitespace();
    let when = format!("{} {}", words.next()?, words.next()?);
    let t = jiff::fmt::strtime::parse("%Y-%m-%d %H:%M:%S%.f%z", &when)
        .and_then(|t| t.to_timestamp())
        .ok()?;
    let rest = &line[line.find(&when)? + when.len()..];
    let message = match rest.find("] ") {
        Some(i) => &rest[i + 2..],
        None => rest.trim_start(),
    };
    Some((t.as_millisecond() as f64 / 1e3, when, message.trim_end()))
}

/// "403274 Total Items Added (l: 224.93 GB p: 219.31 GB)": the items and their logical size.
fn items_added(line: &str) -> Option<(u64, u64)> {
    let (count, rest) = line.trim().split_once(" Total Items Added (l: ")?;
    let size = rest.split(" p: ").next()?.trim_end_matches(')');
    Some((count.trim().parse().ok()?, logged_size(size)?))
}

/// "Copied 302475 items (173.7 GB) from volume External1. Linked 0. Moved 0": the items and
/// their size. Not the progress lines ("Copied 60.21 GB of 79.08 GB, ...").
fn copied_from_volume(message: &str) -> Option<(u64, u64)> {
    let rest = message.strip_prefix("Copied ")?;
    let (count, rest) = rest.split_once(" items (")?;
    let (size, rest) = rest.split_once(')')?;
    if !rest.starts_with(" from volume") {
        return None;
    }
    Some((count.parse().ok()?, logged_size(size)?))
}

/// A size as Time Machine logs it, in bytes: "173.7 GB", "6 KB", "Zero KB" (decimal units).
fn logged_size(text: &str) -> Option<u64> {
    let (number, unit) = text.trim().split_once(' ')?;
    let scale = match unit {
        "bytes" => 1.0,
        "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "TB" => 1e12,
        _ => return None,
    };
    let number: f64 = if number == "Zero" {
        0.0
    } else {
        number.parse().ok()?
    };
    Some((number * scale).round() as u64)
}

/// The backups to the volume holding `destination`: to that path or a directory above it, or
/// whose speed check wrote there (a share's backups go to a disk image's volume inside it).
pub fn backups_of(destination: &Path, backups: Vec<LoggedBackup>) -> Vec<LoggedBackup> {
    backups
        .into_iter()
        .filter(|b| {
            [&b.destination, &b.checked]
                .into_iter()
                .flatten()
                .any(|d| destination.starts_with(d))
        })
        .collect()
}
