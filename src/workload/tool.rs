//! The copy tools `estimate --tool` predicts for: each copies a tree its own way (`cp -a` one
//! file at a time with its metadata after the data; `rsync -a` into a temporary name, then a
//! rename, through a pipe between its sender and receiver; destbench's own copy on N threads),
//! so each is calibrated by copying the same calibration sets with that tool.

use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
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
}

impl Tool {
    /// Whether the tool copies a file with several names once and links the other names (`cp
    /// -a` does; `rsync -a` needs `-H` for it, and destbench's copy copies each name).
    pub fn keeps_hard_links(self) -> bool {
        matches!(self, Tool::Cp)
    }

    /// The external program the tool runs, if any.
    pub fn program(self) -> Option<&'static str> {
        match self {
            Tool::Cp => Some("cp"),
            Tool::Rsync => Some("rsync"),
            Tool::Parallel(_) | Tool::TimeMachine => None,
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
            _ => {
                let threads = s.strip_prefix("parallel:").ok_or_else(|| {
                    format!("unknown tool '{s}': expected cp, rsync, parallel:N or timemachine")
                })?;
                // The upper bound is the settings' thread limit, checked by the command.
                match threads.parse::<usize>() {
                    Ok(n) if n >= 1 => Ok(Tool::Parallel(n)),
                    _ => Err(format!(
                        "{s}: N must be a whole number of threads, 1 or more"
                    )),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_parse_and_print_back() {
        for s in ["cp", "rsync", "parallel:4", "timemachine"] {
            assert_eq!(s.parse::<Tool>().unwrap().to_string(), s);
        }
        assert!("tar".parse::<Tool>().unwrap_err().contains("unknown tool"));
        assert!("parallel:0".parse::<Tool>().is_err());
        assert!("parallel:x".parse::<Tool>().is_err());
    }
}
