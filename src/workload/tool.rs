//! The copy tools `estimate --tool` predicts for: each copies a tree its own way (`cp -a` one
//! file at a time with its metadata after the data; `rsync -a` into a temporary name, then a
//! rename, through a pipe between its sender and receiver; destbench's own copy on N threads;
//! a backup program such as restic or borg, or any command line, run on miniatures of the
//! source), so each is measured by running that very tool.

use std::fmt;
use std::str::FromStr;

use super::presets::{BackupTool, PRESETS};
use super::shape::CopyProgram;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tool {
    /// `cp -a`.
    Cp,
    /// `rsync -a`: what most backup tools on Linux (rsnapshot, Back In Time, Timeshift's rsync
    /// mode) run, so the default.
    Rsync,
    /// destbench's own copy with this many threads.
    Parallel(usize),
    /// Time Machine: estimated from a stored run's tm-backup replay, not by copying.
    TimeMachine,
    /// A backup program's command line (a preset's, or the user's own `cmd:`), run on
    /// miniatures of the source into fresh repositories.
    Backup(Box<BackupTool>),
}

impl Tool {
    /// Whether the tool copies a file with several names once and links the other names (`cp
    /// -a` does; `rsync -a` needs `-H` for it, and destbench's copy copies each name).
    pub fn keeps_hard_links(&self) -> bool {
        matches!(self, Tool::Cp)
    }

    /// The external program the tool runs, if any.
    pub fn program(&self) -> Option<&str> {
        match self {
            Tool::Cp => Some("cp"),
            Tool::Rsync => Some("rsync"),
            Tool::Backup(c) => Some(c.program()),
            Tool::Parallel(_) | Tool::TimeMachine => None,
        }
    }

    /// The copy program the tool runs, if it is one.
    pub fn copy_program(&self) -> Option<CopyProgram> {
        match self {
            Tool::Cp => Some(CopyProgram::Cp),
            Tool::Rsync => Some(CopyProgram::Rsync),
            _ => None,
        }
    }

    /// The command line tool, if this is one.
    pub fn backup(&self) -> Option<&BackupTool> {
        match self {
            Tool::Backup(c) => Some(c),
            _ => None,
        }
    }
}

impl fmt::Display for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tool::Cp => f.write_str("cp"),
            Tool::Rsync => f.write_str("rsync"),
            Tool::Parallel(n) => write!(f, "parallel:{n}"),
            Tool::TimeMachine => f.write_str("timemachine"),
            Tool::Backup(c) => c.fmt(f),
        }
    }
}

impl FromStr for Tool {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "cp" => Ok(Tool::Cp),
            "rsync" => Ok(Tool::Rsync),
            "timemachine" => Ok(Tool::TimeMachine),
            _ if s.starts_with("cmd:") => {
                BackupTool::of_line(&s[4..], None).map(|c| Tool::Backup(Box::new(c)))
            }
            _ if s.starts_with("parallel:") => parallel(s),
            _ => match PRESETS.iter().find(|p| p.name == s) {
                Some(preset) => Ok(Tool::Backup(Box::new(BackupTool::of_preset(preset)))),
                None => Err(format!(
                    "unknown tool '{s}': expected cp, rsync, parallel:N, timemachine, {}, or cmd:COMMAND",
                    PRESETS
                        .iter()
                        .map(|p| p.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            },
        }
    }
}

/// `parallel:N`; the upper bound is the settings' thread limit, checked by the command.
fn parallel(s: &str) -> Result<Tool, String> {
    match s["parallel:".len()..].parse::<usize>() {
        Ok(n) if n >= 1 => Ok(Tool::Parallel(n)),
        _ => Err(format!(
            "{s}: N must be a whole number of threads, 1 or more"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_parse_and_print_back() {
        for s in [
            "cp",
            "rsync",
            "parallel:4",
            "timemachine",
            "restic",
            "borg",
            "cmd:cp -r {src} {repo}",
        ] {
            assert_eq!(s.parse::<Tool>().unwrap().to_string(), s);
        }
        assert!("tar".parse::<Tool>().unwrap_err().contains("unknown tool"));
        assert!("parallel:0".parse::<Tool>().is_err());
        assert!("parallel:x".parse::<Tool>().is_err());
    }
}
