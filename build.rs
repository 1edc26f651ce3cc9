//! Writes the version a bug report can quote (`destbench --version`, every run document):
//! the package version, the commit and its date when built from a git checkout, the target, and
//! the optional parts this build has. A source tarball has no commit and says so by its absence.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let target = std::env::var("TARGET").unwrap_or_default();
    let mut parts = Vec::new();
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        parts.push("io_uring");
    }
    if std::env::var_os("CARGO_FEATURE_MPI").is_some() {
        parts.push("mpi");
    }
    let commit = git(&["log", "-1", "--format=%h %cs", "--abbrev=7"])
        .map(|c| format!(" ({c})"))
        .unwrap_or_default();
    let built_with = if parts.is_empty() {
        String::new()
    } else {
        format!(", {}", parts.join(", "))
    };
    println!("cargo:rustc-env=DESTBENCH_VERSION={version}{commit} {target}{built_with}");
    watch_head();
}

/// One line of git's output, or None outside a checkout (or without git).
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let line = text.trim();
    (out.status.success() && !line.is_empty()).then(|| line.to_string())
}

/// Rebuild when HEAD moves: a new commit, a checkout, a fetch that packs the refs. In a worktree
/// HEAD is its own and the refs are the repository's (the common directory).
fn watch_head() {
    let Some(dir) = git(&["rev-parse", "--git-dir"]).map(PathBuf::from) else {
        return;
    };
    let common = git(&["rev-parse", "--git-common-dir"]).map_or_else(|| dir.clone(), PathBuf::from);
    let head = dir.join("HEAD");
    let mut watched = vec![head.clone(), common.join("packed-refs")];
    if let Ok(text) = std::fs::read_to_string(&head)
        && let Some(reference) = text.trim().strip_prefix("ref: ")
    {
        watched.push(dir.join(reference));
        watched.push(common.join(reference));
    }
    for path in watched.iter().filter(|p| Path::exists(p)) {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}
