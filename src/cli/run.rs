//! `destbench run`: its flags. Those of the run's settings are `settings::RunOptions`'s,
//! flattened here; the rest say where the run is, and where its report and its record go.

use std::path::PathBuf;

use super::DbArg;
use crate::probe::DeclaredLink;
use crate::settings::flags::{profiles_help, profiles_short_help};
use crate::settings::{RunOptions, defs};

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The destination directory (a scratch directory is made inside it and removed after).
    pub path: Option<PathBuf>,

    /// Measure Time Machine's destination instead of a path (macOS: the first destination
    /// `tmutil destinationinfo` lists that is mounted now).
    #[arg(long = defs::TIME_MACHINE.long, conflicts_with = "path")]
    pub time_machine: bool,

    #[arg(short, long = defs::PROFILE.long, help = profiles_short_help(), long_help = profiles_help())]
    pub profile: Option<String>,

    #[command(flatten)]
    pub options: RunOptions,

    /// Print one JSON document (schema destbench.run/2) on stdout instead of the table.
    #[arg(short, long)]
    pub json: bool,

    /// Also print every result's repetitions, in the order they ran, each with its time, every
    /// warning whole, and the wide table.
    #[arg(short, long)]
    pub verbose: bool,

    #[arg(short, long = defs::OUTPUT.long, help = defs::OUTPUT.help(), value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// The full results table (min, max, IOPS, files/s, p50, p99.9, method, engine) even when it
    /// is wider than the terminal (by default it fits, 80 columns off a terminal).
    #[arg(long = defs::WIDE.long)]
    pub wide: bool,

    #[arg(long = defs::DATA.long, help = defs::DATA.help())]
    pub data: Option<PathBuf>,

    /// Declare the speed of a link the system cannot report (e.g. 100mbit) for the verdict;
    /// shown as declared, never as read.
    #[arg(long = defs::LINK_SPEED.long)]
    pub link_speed: Option<DeclaredLink>,

    #[arg(long = defs::STONEWALL.long, help = defs::STONEWALL.help())]
    pub stonewall: bool,

    #[arg(long = defs::CLIENTS.long, help = defs::CLIENTS.help(), value_delimiter = ',')]
    pub clients: Vec<usize>,

    /// Do not store this run in the history database.
    #[arg(long)]
    pub no_history: bool,

    #[command(flatten)]
    pub history_db: DbArg,
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use clap::CommandFactory;

    use super::*;
    use crate::settings::defs::Setting;
    use crate::units::{format_bytes, format_size};
    use crate::workload::{Profile, ProfileName};

    /// `run --help` as printed, each option's text on one line (the wrapping undone).
    fn option_help(help: &str, setting: &Setting) -> String {
        let header = format!("{setting} ");
        let mut lines = help.lines().skip_while(|l| {
            let l = l.trim_start();
            !(l.starts_with('-') && (l.contains(&header) || l.ends_with(&setting.to_string())))
        });
        let first = lines
            .next()
            .unwrap_or_else(|| panic!("{setting} not in the help"));
        let rest = lines.take_while(|l| !l.trim_start().starts_with('-'));
        std::iter::once(first)
            .chain(rest)
            .flat_map(str::split_whitespace)
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Every profile-dependent default `--help` shows is the profile table's, for every profile.
    #[test]
    fn run_help_shows_each_profiles_defaults_from_the_profile_table() {
        let mut cli = crate::cli::Cli::command();
        let help = cli
            .find_subcommand_mut("run")
            .expect("a run subcommand")
            .render_long_help()
            .to_string();
        let secs = |d: Duration| format!("{} s", d.as_secs_f64());
        for name in ProfileName::ALL {
            let p = Profile::get(name);
            let sets: Vec<String> = p
                .sets
                .iter()
                .map(|&(k, b)| format!("{k} {}", format_size(b)))
                .collect();
            let threads: Vec<String> = p.threads.iter().map(|t| t.to_string()).collect();
            let expected = [
                (&defs::MIN_TIME, secs(p.min_time)),
                (&defs::DURATION, secs(p.block_duration)),
                (&defs::TIME, secs(p.sustained_time)),
                (&defs::RUNS, format!("{}-{} runs", p.min_runs, p.max_runs)),
                (&defs::SIZE, format_bytes(p.file_size)),
                (&defs::THREADS, threads.join(",")),
                (&defs::SET_SIZE, format!("({})", sets.join(", "))),
                (&defs::VERIFY, if p.verify { "on" } else { "off" }.into()),
            ];
            for (setting, value) in expected {
                let shown = option_help(&help, setting);
                assert!(
                    shown.contains(&format!("{name} {value}")),
                    "{setting}: no `{name} {value}` in: {shown}"
                );
            }
        }
        // The figure the hand-typed help once had wrong.
        assert!(option_help(&help, &defs::MIN_TIME).contains("backup 0.75 s"));
    }
}
