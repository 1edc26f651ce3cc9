//! What a walk of a source left out, by kind: a backup of a home folder meets sockets, FIFOs,
//! device nodes, mount points and unreadable files, and the user should see how many of each
//! were not copied.

use crate::engine::tree::EntryKind;

/// Entries left out of a task or a survey, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Skipped {
    /// Symlinks not followed (a copy copies them as links; a read or survey skips them).
    pub symlinks: u64,
    pub fifos: u64,
    pub sockets: u64,
    pub devices: u64,
    /// Directories on another filesystem, not entered (`--cross-filesystems` enters them).
    pub other_filesystems: u64,
    /// Entries that could not be opened or read.
    pub unreadable: u64,
}

impl Skipped {
    pub fn merge(&mut self, other: &Skipped) {
        self.symlinks += other.symlinks;
        self.fifos += other.fifos;
        self.sockets += other.sockets;
        self.devices += other.devices;
        self.other_filesystems += other.other_filesystems;
        self.unreadable += other.unreadable;
    }

    /// Counts one entry that is neither a directory nor a file, by its kind.
    pub fn add(&mut self, kind: EntryKind) {
        match kind {
            EntryKind::Symlink => self.symlinks += 1,
            EntryKind::Fifo => self.fifos += 1,
            EntryKind::Socket => self.sockets += 1,
            EntryKind::Device | EntryKind::Dir | EntryKind::File => self.devices += 1,
        }
    }

    #[cfg(test)]
    pub fn total(&self) -> u64 {
        self.symlinks
            + self.fifos
            + self.sockets
            + self.devices
            + self.other_filesystems
            + self.unreadable
    }

    /// "2 symlinks, 1 FIFO, 1 other filesystem": the non-zero counts, None when nothing was
    /// skipped.
    pub fn describe(&self) -> Option<String> {
        let parts: Vec<String> = [
            (self.symlinks, "symlink", "symlinks"),
            (self.fifos, "FIFO", "FIFOs"),
            (self.sockets, "socket", "sockets"),
            (self.devices, "device", "devices"),
            (
                self.other_filesystems,
                "other filesystem",
                "other filesystems",
            ),
            (self.unreadable, "unreadable", "unreadable"),
        ]
        .into_iter()
        .filter(|(n, ..)| *n > 0)
        .map(|(n, one, many)| format!("{n} {}", if n == 1 { one } else { many }))
        .collect();
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_was_skipped_is_named() {
        assert_eq!(Skipped::default().describe(), None);
        let s = Skipped {
            symlinks: 2,
            fifos: 1,
            other_filesystems: 3,
            ..Default::default()
        };
        assert_eq!(
            s.describe().unwrap(),
            "2 symlinks, 1 FIFO, 3 other filesystems"
        );
        assert_eq!(s.total(), 6);
    }
}
