//! `destbench ui`: its flags.

use super::{DbArg, EngineArg};
use crate::settings::defs;

#[derive(Debug, clap::Args)]
pub struct UiArgs {
    /// The port to serve on, on 127.0.0.1 only [default: a free one].
    #[arg(long)]
    pub port: Option<u16>,

    /// Print the address without opening a browser.
    #[arg(long)]
    pub no_browser: bool,

    /// How the runs started from the page issue I/O (as `run --engine`; `null` measures nothing
    /// and is for trying the page out).
    #[arg(long = defs::ENGINE.long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,

    #[command(flatten)]
    pub db: DbArg,
}
