//! `destbench info`: the chain as a tree (every link with what was read and where from), the
//! links on it with their rated and practical figures, and the notes; or the same as JSON
//! (schema `destbench.chain/2`, documented in docs/json.md).

use std::fmt::Write as _;

use crate::probe::{Bandwidth, Chain, Node};

/// The JSON schema id of an `info --json` document.
pub const CHAIN_SCHEMA: &str = "destbench.chain/2";

fn bandwidth_text(b: &Bandwidth) -> Option<String> {
    match b {
        Bandwidth::None => None,
        Bandwidth::Unknown { why } => Some(format!("speed unknown: {why}")),
        Bandwidth::Known(c) => Some(format!(
            "{}: rated {}, practical ~{} MB/s{}",
            c.link,
            c.rated,
            c.practical_mb_s,
            if c.declared { " (declared)" } else { "" }
        )),
    }
}

fn node(out: &mut String, n: &Node, prefix: &str, last: bool, top: bool) {
    let (branch, cont) = match (top, last) {
        (true, _) => ("", ""),
        (false, true) => ("└─ ", "   "),
        (false, false) => ("├─ ", "│  "),
    };
    let _ = writeln!(out, "{prefix}{branch}{}", n.label);
    let inner = format!("{prefix}{cont}");
    let bar = if n.children.is_empty() {
        "   "
    } else {
        "│  "
    };
    if let Some(b) = bandwidth_text(&n.bandwidth) {
        let _ = writeln!(out, "{inner}{bar}» {b}");
    }
    for f in &n.facts {
        let v = &f.value;
        let _ = writeln!(out, "{inner}{bar}{}: {v}  [{}]", v.name(), f.origin);
    }
    for (i, c) in n.children.iter().enumerate() {
        node(out, c, &inner, i + 1 == n.children.len(), false);
    }
}

/// The tree, the link table of the chain, and the notes.
pub fn render(chain: &Chain) -> String {
    let mut out = String::new();
    if let Some(alarm) = crate::probe::health::alarm(chain) {
        let _ = writeln!(out, "{alarm}\n");
    }
    let _ = writeln!(out, "{}", chain.path.display());
    node(&mut out, &chain.root, "", true, false);

    let links: Vec<&Node> = chain
        .nodes()
        .into_iter()
        .filter(|n| !matches!(n.bandwidth, Bandwidth::None))
        .collect();
    if !links.is_empty() {
        let _ = writeln!(out, "\nlinks (path to wire):");
        for n in links {
            match &n.bandwidth {
                Bandwidth::Known(c) => {
                    let _ = writeln!(
                        out,
                        "  {:<28} rated {:<22} practical ~{} MB/s  [{}]",
                        c.link, c.rated, c.practical_mb_s, c.origin
                    );
                }
                Bandwidth::Unknown { why } => {
                    let _ = writeln!(out, "  {:<28} unknown: {why}", n.label);
                }
                Bandwidth::None => {}
            }
        }
    }
    if !chain.notes.is_empty() {
        let _ = writeln!(out, "\nnotes:");
        for note in &chain.notes {
            let _ = writeln!(out, "  - {note}");
        }
    }
    out
}

/// The chain in one line, from the mount towards the wire (`destbench ui`'s list of
/// destinations): `ext4 on /dev/sdb1 at /mnt → disk sdb → USB 2.0 (BOT)`.
pub fn one_line(chain: &Chain) -> String {
    let labels: Vec<&str> = chain.nodes().iter().map(|n| n.label.as_str()).collect();
    labels.join(" → ")
}

#[derive(serde::Serialize)]
struct ChainDoc<'a> {
    schema: &'static str,
    destbench_version: &'static str,
    chain: &'a Chain,
}

/// The `info --json` document, pretty-printed, with a trailing newline.
pub fn render_json(chain: &Chain) -> String {
    let doc = ChainDoc {
        schema: CHAIN_SCHEMA,
        destbench_version: crate::version::VERSION,
        chain,
    };
    crate::report::export::pretty(&doc)
}
