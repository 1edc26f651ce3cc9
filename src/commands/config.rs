//! The config file, `$XDG_CONFIG_HOME/destbench/config.toml` (else
//! `~/.config/destbench/config.toml`; `DESTBENCH_CONFIG` names another): defaults for
//! `destbench run` and profiles of the user's own, each built on a profile of destbench's.
//! Found and read here; read into typed values, and checked whole, by `settings::ConfigFile`.
//!
//! ```toml
//! [defaults]
//! profile = "nightly"
//! runs = 5
//!
//! [profiles.nightly]
//! base = "full"          # quick, backup (the default) or full
//! tests = ["seq-write", "files-copy"]
//! size = "4GiB"
//! set_size = "200MB"
//! ```

use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::settings::ConfigFile;

/// Names a config file other than the default (an empty value: none at all).
pub const CONFIG_ENV: &str = "DESTBENCH_CONFIG";

/// The config file's path: `DESTBENCH_CONFIG`, else in the config directory (decided as the
/// history's data directory is: `platform::user_dir`).
pub fn path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(CONFIG_ENV) {
        return (!p.is_empty()).then(|| PathBuf::from(p));
    }
    let base = crate::platform::user_dir(crate::platform::UserDir::Config)?;
    Some(base.join("destbench/config.toml"))
}

/// The config file, or none when there is no file (not an error: it is optional).
pub fn load() -> Result<Option<ConfigFile>> {
    let Some(path) = path() else { return Ok(None) };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(format!("reading {}", path.display()), e)),
    };
    ConfigFile::parse(path, text).map(Some)
}
