//! Where destbench keeps a user's files: the config directory (the config file) and the data
//! directory (the history), decided by one rule for both. A relative `XDG_*` value is ignored,
//! as the XDG Base Directory spec asks, and so is a relative `HOME` or Windows folder: a path
//! that depends on the current directory would put the history somewhere new on every run.

use std::ffi::OsString;
use std::path::PathBuf;

/// A user's directory destbench keeps files in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserDir {
    /// `$XDG_CONFIG_HOME`, else `~/.config` (Windows: `%APPDATA%`).
    Config,
    /// `$XDG_DATA_HOME`, else `~/.local/share` (Windows: `%LOCALAPPDATA%`).
    Data,
    /// The home folder: `$HOME` (Windows: `%USERPROFILE%`).
    Home,
}

/// The directory `which`, from this process's environment; None when no variable gives an
/// absolute one.
pub fn user_dir(which: UserDir) -> Option<PathBuf> {
    user_dir_in(which, |var| std::env::var_os(var))
}

/// [`user_dir`] with the environment read through `var` (the tests give their own).
fn user_dir_in(which: UserDir, var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let absolute = |name: &str| var(name).map(PathBuf::from).filter(|p| p.is_absolute());
    if cfg!(windows) {
        return absolute(match which {
            UserDir::Config => "APPDATA",
            UserDir::Data => "LOCALAPPDATA",
            UserDir::Home => "USERPROFILE",
        });
    }
    let (xdg, under_home) = match which {
        UserDir::Config => ("XDG_CONFIG_HOME", ".config"),
        UserDir::Data => ("XDG_DATA_HOME", ".local/share"),
        UserDir::Home => return absolute("HOME"),
    };
    absolute(xdg).or_else(|| absolute("HOME").map(|home| home.join(under_home)))
}

#[cfg(all(test, not(windows)))]
mod tests {
    use super::*;

    fn dir(which: UserDir, env: &[(&str, &str)]) -> Option<PathBuf> {
        user_dir_in(which, |name| {
            env.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        })
    }

    #[test]
    fn an_absolute_xdg_directory_wins_over_home() {
        let env = [
            ("HOME", "/home/u"),
            ("XDG_CONFIG_HOME", "/etc/u"),
            ("XDG_DATA_HOME", "/srv/u"),
        ];
        assert_eq!(dir(UserDir::Config, &env), Some("/etc/u".into()));
        assert_eq!(dir(UserDir::Data, &env), Some("/srv/u".into()));
    }

    /// The spec: a relative value is invalid and ignored, for config and data alike.
    #[test]
    fn a_relative_or_empty_xdg_directory_is_ignored_for_both() {
        for xdg in ["relative/dir", ""] {
            let env = [
                ("HOME", "/home/u"),
                ("XDG_CONFIG_HOME", xdg),
                ("XDG_DATA_HOME", xdg),
            ];
            assert_eq!(dir(UserDir::Config, &env), Some("/home/u/.config".into()));
            assert_eq!(
                dir(UserDir::Data, &env),
                Some("/home/u/.local/share".into())
            );
        }
    }

    #[test]
    fn no_absolute_home_is_no_directory() {
        assert_eq!(dir(UserDir::Config, &[("HOME", "u")]), None);
        assert_eq!(dir(UserDir::Data, &[]), None);
    }
}
