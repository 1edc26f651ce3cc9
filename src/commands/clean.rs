//! `destbench clean [PATH]...`: the stale leftovers of killed runs, listed and removed.

use std::fmt::Write;

use crate::cli::CleanArgs;
use crate::error::{Error, Result};
use crate::scratch::{self, leftovers};
use crate::units::format_bytes;

pub fn clean(args: &CleanArgs) -> Result<String> {
    let places = if args.paths.is_empty() {
        vec![std::env::temp_dir()]
    } else {
        args.paths.clone()
    };
    let mut out = String::new();
    let (mut count, mut bytes) = (0, 0);
    for place in &places {
        scratch::check_destination(place)?;
        for leftover in leftovers::find(place) {
            let m = &leftover.marker;
            let what = format!(
                "{}: {} in {} entries (pid {} on {}, started {} ago, destbench {})",
                leftover.path.display(),
                format_bytes(leftover.bytes),
                leftover.entries,
                m.pid,
                m.host,
                m.age(),
                m.version
            );
            if !args.dry_run {
                leftovers::remove(&leftover)
                    .map_err(|e| Error::io(format!("removing {}", leftover.path.display()), e))?;
            }
            let _ = writeln!(
                out,
                "{}{what}",
                if args.dry_run {
                    "would remove "
                } else {
                    "removed "
                }
            );
            count += 1;
            bytes += leftover.bytes;
        }
    }
    let _ = writeln!(
        out,
        "{} {count} leftover{} ({})",
        if args.dry_run {
            "would remove"
        } else {
            "removed"
        },
        if count == 1 { "" } else { "s" },
        format_bytes(bytes)
    );
    Ok(out)
}
