//! Time Machine's own view: its destinations (`tmutil destinationinfo -X`), and the speed check
//! its unified log records when it checks a destination ("Wrote 1 50 MB file at 286.15 MB/s to
//! ..."): a figure no one here wrote, shown beside `tm-check`.

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

/// The `log show` arguments that list Time Machine's speed checks of the last `days` days.
pub fn log_args(days: u32) -> Vec<String> {
    [
        "log",
        "show",
        "--style",
        "syslog",
        "--last",
        &format!("{days}d"),
        "--predicate",
        "subsystem == \"com.apple.TimeMachine\" AND eventMessage CONTAINS[c] \"rote \"",
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

/// Time Machine's logged speed checks of the last `days` days, read through `tools`.
pub fn speed_checks(tools: &dyn Tools, days: u32) -> Vec<SpeedCheck> {
    let args = log_args(days);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    tools
        .output(&args)
        .map(|t| parse_speed_log(&t))
        .unwrap_or_default()
}
