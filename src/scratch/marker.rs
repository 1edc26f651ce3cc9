//! The marker every scratch directory carries: who made it (process, host), when, with which
//! version. A later run reads it to tell a leftover of a run that died (process gone, same host)
//! from a run still going, or another machine's scratch on a shared NAS.

use std::io::{Read, Write};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::platform::HandleRef;
use crate::platform::{self, OpenHow};

/// The marker's name inside a scratch directory.
pub const NAME: &str = ".destbench-marker";
/// A marker is a few lines; anything longer is not ours.
const MAX_LEN: u64 = 4096;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    pub pid: u32,
    pub host: String,
    /// Seconds since the epoch.
    pub started: u64,
    pub version: String,
}

impl Marker {
    /// The marker of this process, now.
    pub fn ours() -> Marker {
        Marker {
            pid: std::process::id(),
            host: platform::hostname(),
            started: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
            version: crate::version::VERSION.to_string(),
        }
    }

    fn text(&self) -> String {
        format!(
            "destbench scratch\npid={}\nhost={}\nstarted={}\nversion={}\n",
            self.pid, self.host, self.started, self.version
        )
    }

    /// The marker in `text`; None if it is not one of ours.
    pub fn parse(text: &str) -> Option<Marker> {
        let mut lines = text.lines();
        if lines.next()? != "destbench scratch" {
            return None;
        }
        let (mut pid, mut host, mut started, mut version) = (None, None, None, None);
        for line in lines {
            let (key, value) = line.split_once('=')?;
            match key {
                "pid" => pid = value.parse().ok(),
                "host" => host = Some(value.to_string()),
                "started" => started = value.parse().ok(),
                "version" => version = Some(value.to_string()),
                _ => {}
            }
        }
        Some(Marker {
            pid: pid?,
            host: host?,
            started: started?,
            version: version?,
        })
    }

    /// How long ago it was made, roughly ("3 h").
    pub fn age(&self) -> String {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let s = now.saturating_sub(self.started);
        match s {
            0..120 => format!("{s} s"),
            120..7200 => format!("{} min", s / 60),
            7200..172_800 => format!("{} h", s / 3600),
            _ => format!("{} days", s / 86_400),
        }
    }

    /// Whether the run that made it is over: made on this host by a process that is gone.
    /// A marker of another host is never stale here (that machine may still be running).
    pub fn is_stale(&self) -> bool {
        self.host == platform::hostname()
            && self.pid != std::process::id()
            && !platform::process_exists(self.pid)
    }
}

/// Writes this process's marker into the open directory `dir`.
pub fn write(dir: HandleRef<'_>) -> std::io::Result<()> {
    let how = OpenHow {
        write: true,
        create: true,
        direct: false,
    };
    let mut file = platform::into_file(platform::open_in(dir, NAME, how)?);
    file.write_all(Marker::ours().text().as_bytes())
}

/// The marker in the open directory `dir`, if it has one of ours.
pub fn read(dir: HandleRef<'_>) -> Option<Marker> {
    let how = OpenHow {
        write: false,
        create: false,
        direct: false,
    };
    let file = platform::into_file(platform::open_in(dir, NAME, how).ok()?);
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut text = String::new();
    file.take(MAX_LEN).read_to_string(&mut text).ok()?;
    Marker::parse(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marker_reads_back_and_a_foreign_file_is_not_one() {
        let ours = Marker::ours();
        assert_eq!(Marker::parse(&ours.text()), Some(ours.clone()));
        assert!(!ours.is_stale(), "this process is alive");
        assert_eq!(Marker::parse("hello\npid=1\n"), None);
        let gone = Marker {
            pid: u32::MAX - 1,
            ..ours.clone()
        };
        assert!(gone.is_stale());
        let elsewhere = Marker {
            host: format!("{}-other", ours.host),
            ..gone
        };
        assert!(!elsewhere.is_stale());
    }
}
