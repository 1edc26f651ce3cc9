//! Backup programs as `estimate --tool` runs them: each preset's command line, its
//! repository's init, its environment and what it supports, written once in [`PRESETS`]; and
//! a user's own `cmd:` line, checked the same way.
//!
//! A line is split as a POSIX shell splits words (`shlex`), never run by a shell, and its
//! placeholders are filled word by word: `{src}` (the miniature of the source), `{repo}` (a
//! path inside the destination's scratch, not yet made: the setup or the tool makes it) and
//! `{n}` (the backup's number in that repository, 1 for the first: borg names archives by it).

use std::fmt;

/// The placeholders a command line may hold.
pub const SRC: &str = "{src}";
pub const REPO: &str = "{repo}";
pub const NUMBER: &str = "{n}";

/// One preset: a backup program as people run it.
#[derive(Debug, PartialEq, Eq)]
pub struct Preset {
    pub name: &'static str,
    pub command: &'static str,
    /// Run untimed before each first backup (a repository's init).
    pub setup: Option<&'static str>,
    /// Set for the tool, beside the throwaway secrets every command gets.
    pub env: &'static [(&'static str, &'static str)],
    /// Whether a second run into the same repository is an incremental backup.
    pub incremental: bool,
    /// Cores the tool's own work keeps busy at most (borg chunks, hashes and compresses on one
    /// thread); None: as many as there are.
    pub threads: Option<usize>,
    /// The highest exit status that means success (robocopy's 1-7 say what it copied).
    pub max_success: i32,
}

/// A preset with the common case for all but its name and line: no setup, no environment of
/// its own, incremental, as many cores as there are, and only 0 a success.
const fn tool(name: &'static str, command: &'static str) -> Preset {
    Preset {
        name,
        command,
        setup: None,
        env: &[],
        incremental: true,
        threads: None,
        max_success: 0,
    }
}

pub const PRESETS: [Preset; 6] = [
    Preset {
        setup: Some("restic -r {repo} init"),
        ..tool("restic", "restic -r {repo} backup {src}")
    },
    Preset {
        // Encrypted as borg's docs advise (its default compression, lz4), with the
        // throwaway passphrase.
        setup: Some("borg init --encryption repokey {repo}"),
        env: &[("BORG_DISPLAY_PASSPHRASE", "no")],
        threads: Some(1),
        ..tool("borg", "borg create {repo}::backup-{n} {src}")
    },
    tool("rclone", "rclone copy {src} {repo}"),
    tool("rclone-sync", "rclone sync {src} {repo}"),
    Preset {
        setup: Some("kopia repository create filesystem --path {repo}"),
        ..tool("kopia", "kopia snapshot create {src}")
    },
    Preset {
        max_success: 7,
        ..tool("robocopy", "robocopy {src} {repo} /MIR")
    },
];

/// The value of every secret a command tool is given: a tool that asks for a password finds
/// one, and never the user's.
pub const THROWAWAY_SECRET: &str = "destbench-throwaway-secret";
/// The secrets set to [`THROWAWAY_SECRET`].
pub const SECRETS: [&str; 3] = ["RESTIC_PASSWORD", "BORG_PASSPHRASE", "KOPIA_PASSWORD"];
/// What would lead a tool to the user's own repositories, secrets, caches or configuration:
/// removed from its environment (its home is a fresh folder of destbench's).
pub const REMOVED: [&str; 20] = [
    "RESTIC_REPOSITORY",
    "RESTIC_REPOSITORY_FILE",
    "RESTIC_PASSWORD_FILE",
    "RESTIC_PASSWORD_COMMAND",
    "RESTIC_CACHE_DIR",
    "BORG_REPO",
    "BORG_PASSCOMMAND",
    "BORG_PASSPHRASE_FD",
    "BORG_BASE_DIR",
    "BORG_CACHE_DIR",
    "BORG_CONFIG_DIR",
    "BORG_KEYS_DIR",
    "BORG_SECURITY_DIR",
    "RCLONE_CONFIG",
    "RCLONE_CONFIG_PASS",
    "KOPIA_CONFIG_PATH",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
];

/// A command line tool, split into words, placeholders unfilled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupTool {
    /// The preset it came from; None for a `cmd:` line.
    pub preset: Option<&'static str>,
    /// The line as written.
    pub line: String,
    pub words: Vec<String>,
    /// The setup's line and words (`--setup`, or the preset's init).
    pub setup: Option<(String, Vec<String>)>,
    pub env: &'static [(&'static str, &'static str)],
    pub incremental: bool,
    pub threads: Option<usize>,
    pub max_success: i32,
}

impl BackupTool {
    pub fn of_preset(p: &Preset) -> BackupTool {
        let split = |line: &str| shlex::split(line).expect("a preset's line splits");
        BackupTool {
            preset: Some(p.name),
            line: p.command.to_string(),
            words: split(p.command),
            setup: p.setup.map(|s| (s.to_string(), split(s))),
            env: p.env,
            incremental: p.incremental,
            threads: p.threads,
            max_success: p.max_success,
        }
    }

    /// A user's own line (`cmd:LINE`), with a setup line: it must split into words and name
    /// `{src}` and `{repo}`. A line running a preset's program (`borg create --compression
    /// lzma …`) takes that preset's environment, cores and exit statuses; a second backup is
    /// not run: what a run into the same place does is the user's line's to say.
    pub fn of_line(line: &str, setup: Option<&str>) -> Result<BackupTool, String> {
        let words = split(line, "--tool cmd:")?;
        for placeholder in [SRC, REPO] {
            if !words.iter().any(|w| w.contains(placeholder)) {
                return Err(format!(
                    "--tool cmd:{line}: the command names no {placeholder} (the source's miniature is {SRC}, the repository or folder it writes on the destination {REPO})"
                ));
            }
        }
        let program = std::path::Path::new(&words[0]).file_stem();
        let like = PRESETS
            .iter()
            .find(|p| program.is_some_and(|s| p.command.split(' ').next() == s.to_str()));
        let mut tool = BackupTool {
            preset: None,
            line: line.to_string(),
            words,
            setup: None,
            env: like.map_or(&[], |p| p.env),
            incremental: false,
            threads: like.and_then(|p| p.threads),
            max_success: like.map_or(0, |p| p.max_success),
        };
        if let Some(setup) = setup {
            tool.set_setup(setup)?;
        }
        Ok(tool)
    }

    /// Replaces the setup with `--setup`'s line.
    pub fn set_setup(&mut self, line: &str) -> Result<(), String> {
        self.setup = Some((line.to_string(), split(line, "--setup ")?));
        Ok(())
    }

    /// The program the line runs: its first word.
    pub fn program(&self) -> &str {
        &self.words[0]
    }

    /// `words` with the placeholders filled.
    pub fn fill(words: &[String], src: &str, repo: &str, number: usize) -> Vec<String> {
        words
            .iter()
            .map(|w| {
                w.replace(SRC, src)
                    .replace(REPO, repo)
                    .replace(NUMBER, &number.to_string())
            })
            .collect()
    }
}

/// `line` split into words, or why it cannot be; `flag` names it in the error.
fn split(line: &str, flag: &str) -> Result<Vec<String>, String> {
    match shlex::split(line) {
        Some(words) if !words.is_empty() => Ok(words),
        Some(_) => Err(format!("{flag}{line}: the command is empty")),
        None => Err(format!(
            "{flag}{line}: unbalanced quotes or a trailing backslash"
        )),
    }
}

impl fmt::Display for BackupTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.preset {
            Some(name) => f.write_str(name),
            None => write!(f, "cmd:{}", self.line),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every preset's lines split, and name the source and the repository (kopia's snapshot
    /// finds its repository through the configuration its setup wrote).
    #[test]
    fn every_preset_splits_and_names_its_source() {
        for p in &PRESETS {
            let tool = BackupTool::of_preset(p);
            assert!(tool.words.iter().any(|w| w.contains(SRC)), "{}", p.name);
            let lines = std::iter::once(&tool.words).chain(tool.setup.as_ref().map(|s| &s.1));
            assert!(lines.flatten().any(|w| w.contains(REPO)), "{}", p.name);
            assert_eq!(tool.program(), tool.words[0]);
        }
    }

    /// A user's line is split as a shell would, refused without its placeholders or with
    /// unbalanced quotes, and filled word by word (a path with a space stays one word).
    #[test]
    fn a_users_line_is_split_checked_and_filled() {
        let t = BackupTool::of_line("sh -c 'cp -r \"$0\" \"$1\"' {src} {repo}/x", None).unwrap();
        assert_eq!(t.words.len(), 5);
        let filled = BackupTool::fill(&t.words, "/a b", "/r", 1);
        assert_eq!(filled[3..], ["/a b".to_string(), "/r/x".to_string()]);
        assert!(
            BackupTool::of_line("cp {src}", None)
                .unwrap_err()
                .contains("{repo}")
        );
        assert!(
            BackupTool::of_line("cp '{src} {repo}", None)
                .unwrap_err()
                .contains("quotes")
        );
        assert!(BackupTool::of_line("", None).is_err());
        let own = BackupTool::of_line("/usr/bin/borg create -C lzma {repo}::a {src}", None);
        assert_eq!(own.unwrap().threads, Some(1));
        let borg = BackupTool::of_preset(&PRESETS[1]);
        assert_eq!(BackupTool::fill(&borg.words, "s", "r", 2)[2], "r::backup-2");
    }
}
