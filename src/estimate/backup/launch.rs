//! A backup tool's one run: its words filled, its environment set (a fresh home of
//! destbench's, throwaway secrets, nothing that leads to the user's repositories), no shell,
//! no terminal; waited for up to a limit (then killed with what it started), stopped at once
//! on Ctrl-C or SIGTERM, and timed to the end of a sync of the destination where asked.

use crate::settings::defs::{TOOL, TOOL_TIMEOUT};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::interrupt;
use crate::platform::confine::Launcher;
use crate::platform::{self, CpuClock};
use crate::scratch::Scratch;
use crate::workload::presets::{BackupTool, REMOVED, SECRETS, THROWAWAY_SECRET};

/// The most of the tool's stderr an error quotes, in lines.
const TAIL_LINES: usize = 6;

/// What one run is: its words, and where its home and stderr are kept.
pub struct Launch<'a> {
    pub tool: &'a BackupTool,
    /// The words, placeholders filled.
    pub words: Vec<String>,
    /// The tool's HOME (its cache and configuration), a fresh folder of destbench's.
    pub home: &'a Path,
    /// Its TMPDIR, inside the scratch: a confined tool can write nowhere else.
    pub tmp: &'a Path,
    /// Where its stderr goes, for the error's last lines (emptied before each run).
    pub stderr: &'a File,
    pub timeout: Duration,
    /// How it is started: confined to the scratch directories.
    pub launcher: &'a Launcher,
}

/// A finished run: wall time with the syncs, the tool's own, its CPU time and the machine's.
pub struct Ran {
    pub seconds: f64,
    pub tool_s: f64,
    pub cpu_s: Option<f64>,
    pub machine_busy_s: Option<f64>,
}

impl Launch<'_> {
    /// Runs it untimed (a setup).
    pub fn run(&self) -> Result<()> {
        self.run_and_wait().map(|_| ())
    }

    /// Runs it timed from a sync of `destination` before to the end of one after.
    pub fn timed(&self, destination: &Scratch) -> Result<Ran> {
        destination.syncfs()?;
        let busy = platform::machine_busy();
        let start = Instant::now();
        let cpu = self.run_and_wait()?;
        let tool_s = start.elapsed().as_secs_f64();
        let busy = busy
            .zip(platform::machine_busy())
            .map(|(a, b)| (b - a).as_secs_f64());
        destination.syncfs()?;
        Ok(Ran {
            seconds: start.elapsed().as_secs_f64(),
            tool_s,
            cpu_s: cpu.map(|d| d.as_secs_f64()),
            machine_busy_s: busy,
        })
    }

    fn command(&self) -> Result<Command> {
        let mut command = self
            .launcher
            .command(&self.words[0])
            .map_err(|e| Error::io(format!("confining {}", self.words[0]), e))?;
        command.args(&self.words[1..]);
        for name in REMOVED {
            command.env_remove(name);
        }
        for name in SECRETS {
            command.env(name, THROWAWAY_SECRET);
        }
        command.env("HOME", self.home);
        // Unix's and Windows' names for it: a confined tool can write nowhere else.
        for name in ["TMPDIR", "TEMP", "TMP"] {
            command.env(name, self.tmp);
        }
        command.envs(self.tool.env.iter().copied());
        let emptied = (|| {
            self.stderr.set_len(0)?;
            (&mut &*self.stderr).seek(SeekFrom::Start(0))?;
            self.stderr.try_clone()
        })();
        let stderr = emptied.map_err(|e| Error::io("emptying the tool's stderr file", e))?;
        command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr);
        platform::own_process_group(&mut command);
        Ok(command)
    }

    /// Starts it and waits, polling so that a limit or a signal can stop it; the CPU time it
    /// used.
    fn run_and_wait(&self) -> Result<Option<Duration>> {
        let clock = CpuClock::start();
        let mut child = self.command()?.spawn().map_err(|e| {
            Error::Tool(format!(
                "{TOOL} {}: cannot run {} ({e}): {}",
                self.tool,
                self.words[0],
                self.line()
            ))
        })?;
        let group = platform::Group::of(&child);
        let start = Instant::now();
        let waited = platform::wait_unless(&mut child, &group, || {
            interrupt::signalled() || start.elapsed() > self.timeout
        })
        .map_err(|e| Error::io(format!("waiting for {}", self.words[0]), e))?;
        let Some(status) = waited else {
            interrupt::check()?;
            return Err(Error::Tool(format!(
                "{TOOL} {}: killed after {} s ({TOOL_TIMEOUT}): {}",
                self.tool,
                self.timeout.as_secs_f64(),
                self.line()
            )));
        };
        let cpu = clock.used(&child);
        match status.code() {
            Some(code) if code >= 0 && code <= self.tool.max_success => Ok(cpu),
            _ if self.launcher.refused(&self.stderr_text()) => Err(Error::Tool(format!(
                "{TOOL} {}: {} tried to write outside the scratch: refused ({}): {}{}",
                self.tool,
                self.words[0],
                self.launcher.describe(),
                self.line(),
                self.stderr_tail()
            ))),
            _ => Err(Error::Tool(format!(
                "{TOOL} {}: {} ended with {status}: {}{}",
                self.tool,
                self.words[0],
                self.line(),
                self.stderr_tail()
            ))),
        }
    }

    /// The command line as run, each word quoted where a shell would need it.
    fn line(&self) -> String {
        shlex::try_join(self.words.iter().map(String::as_str))
            .unwrap_or_else(|_| self.words.join(" "))
    }

    /// The end of what it wrote to stderr (its last 8 KiB).
    fn stderr_text(&self) -> String {
        let mut bytes = Vec::new();
        if let Ok(mut f) = self.stderr.try_clone() {
            let len = f.metadata().map_or(0, |m| m.len());
            let _ = f.seek(SeekFrom::Start(len.saturating_sub(8192)));
            let _ = f.read_to_end(&mut bytes);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// The stderr's last lines, indented under the error; empty where it said nothing.
    fn stderr_tail(&self) -> String {
        let text = self.stderr_text();
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let tail = &lines[lines.len().saturating_sub(TAIL_LINES)..];
        if tail.is_empty() {
            return "\n  (it wrote nothing to stderr)".to_string();
        }
        format!("\n  its stderr ended:\n    {}", tail.join("\n    "))
    }
}
