//! Leftovers: scratch directories of runs that died (SIGKILL, a power cut, a share that dropped)
//! and were never removed. A run looks for its own stale ones where it works and says how much
//! they hold; `destbench clean` removes them. Only directories named like ours and carrying our
//! marker count, and only when the run that made them is gone from this host.

use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Path, PathBuf};

use crate::platform::AsHandleRef;
use crate::platform::{self, Handle, Removed};
use crate::units::format_bytes;

use super::PREFIX;
use super::marker::{self, Marker};

/// One stale scratch directory.
#[derive(Debug, Clone)]
pub struct Leftover {
    pub path: PathBuf,
    name: OsString,
    pub marker: Marker,
    /// Entries and bytes inside.
    pub entries: u64,
    pub bytes: u64,
}

/// Opens `name` in `parent` if it is one of our stale scratch directories, with its marker.
fn open_stale(parent: &Handle, name: &OsStr) -> Option<(Handle, Marker)> {
    if !name.as_encoded_bytes().starts_with(PREFIX.as_bytes()) {
        return None;
    }
    let dir = platform::open_dir_in(parent.handle_ref(), name).ok()?;
    let found = marker::read(dir.handle_ref())?;
    found.is_stale().then_some((dir, found))
}

/// Our stale scratch directories directly inside `dir` (an empty list if it cannot be read).
pub fn find(dir: &Path) -> Vec<Leftover> {
    let Ok(parent) = platform::open_dir(dir) else {
        return Vec::new();
    };
    let Ok(listing) = platform::read_dir(parent.handle_ref()) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for entry in listing.flatten() {
        let name = entry.name;
        let Some((fd, marker)) = open_stale(&parent, &name) else {
            continue;
        };
        let (entries, bytes) = platform::measure_contents(fd.handle_ref()).unwrap_or_default();
        found.push(Leftover {
            path: dir.join(&name),
            name,
            marker,
            entries,
            bytes,
        });
    }
    found.sort_by(|a, b| a.path.cmp(&b.path));
    found
}

/// Removes `leftover` if it is still a stale one of ours (checked again just before).
pub fn remove(leftover: &Leftover) -> io::Result<Removed> {
    let parent_path = leftover.path.parent().unwrap_or(Path::new("/"));
    let parent = platform::open_dir(parent_path)?;
    if open_stale(&parent, &leftover.name).is_none() {
        return Err(io::Error::other("no longer a stale scratch directory"));
    }
    platform::remove_tree(parent.handle_ref(), &leftover.name)
}

/// One line on what `found` holds, or None when there is nothing.
pub fn summary(found: &[Leftover], clean: &str) -> Option<String> {
    if found.is_empty() {
        return None;
    }
    let bytes: u64 = found.iter().map(|l| l.bytes).sum();
    let mut places: Vec<String> = found
        .iter()
        .filter_map(|l| l.path.parent().map(|p| p.display().to_string()))
        .collect();
    places.dedup();
    Some(format!(
        "{} leftover scratch {} of killed destbench runs {} {} in {}: `{clean}` removes them",
        found.len(),
        if found.len() == 1 {
            "directory"
        } else {
            "directories"
        },
        if found.len() == 1 { "holds" } else { "hold" },
        format_bytes(bytes),
        places.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch directory of a process that is gone is found and removed; one of a live
    /// process, one of another host and one without a marker are neither.
    #[test]
    fn only_stale_scratch_directories_of_this_host_are_found_and_removed() {
        let place = tempfile::tempdir().unwrap();
        let ours = Marker::ours();
        let write = |name: &str, marker: Option<Marker>| {
            let dir = place.path().join(name);
            std::fs::create_dir_all(dir.join("sub")).unwrap();
            std::fs::write(dir.join("sub/data"), vec![7u8; 1000]).unwrap();
            if let Some(m) = marker {
                std::fs::write(
                    dir.join(marker::NAME),
                    format!(
                        "destbench scratch\npid={}\nhost={}\nstarted={}\nversion={}\n",
                        m.pid, m.host, m.started, m.version
                    ),
                )
                .unwrap();
            }
        };
        let gone = Marker {
            pid: u32::MAX - 7,
            ..ours.clone()
        };
        write(".destbench-stale", Some(gone.clone()));
        write(".destbench-live", Some(ours.clone()));
        write(
            ".destbench-elsewhere",
            Some(Marker {
                host: format!("{}-other", ours.host),
                ..gone.clone()
            }),
        );
        write(".destbench-unmarked", None);
        write("not-ours", Some(gone));
        let found = find(place.path());
        let names: Vec<_> = found.iter().map(|l| l.path.file_name().unwrap()).collect();
        assert_eq!(names, [".destbench-stale"]);
        let marker_len =
            std::fs::metadata(place.path().join(".destbench-stale").join(marker::NAME))
                .unwrap()
                .len();
        assert_eq!((found[0].entries, found[0].bytes), (3, 1000 + marker_len));
        assert_eq!(remove(&found[0]).unwrap().kept, 0);
        let mut left = std::fs::read_dir(place.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect::<Vec<_>>();
        left.sort();
        assert_eq!(
            left,
            [
                ".destbench-elsewhere",
                ".destbench-live",
                ".destbench-unmarked",
                "not-ours"
            ]
        );
    }
}
