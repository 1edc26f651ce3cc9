//! `destbench info PATH`: the chain from PATH to the wire, as a tree or JSON.

use crate::cli::InfoArgs;
use crate::error::Result;
use crate::probe;
use crate::report;

pub fn info(args: &InfoArgs) -> Result<String> {
    let mut chain = probe::probe(&args.path, args.link_speed.as_ref())?;
    probe::health::read(&mut chain, &probe::health::Live);
    Ok(if args.json {
        report::chain::render_json(&chain)
    } else {
        report::chain::render(&chain)
    })
}
