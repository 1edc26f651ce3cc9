//! `destbench ui`: its flags.

use super::DbArg;
use crate::engine::EngineChoice;
use crate::settings::{defs, flags};

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
    #[arg(long = defs::ENGINE.long, value_parser = flags::engine(), default_value = "auto")]
    pub engine: EngineChoice,

    #[command(flatten)]
    pub db: DbArg,
}
