//! The mount holding a path, found by its `statx` mount id in `/proc/self/mountinfo` (not by
//! `st_dev`, which btrfs subvolumes make differ from the mount's), and the options that matter
//! for backups.

use std::io;
use std::path::{Path, PathBuf};

use super::{SysRoots, block, net, read, udev};
use crate::probe::{Bandwidth, Node, NodeKind};

/// One line of `/proc/self/mountinfo`.
#[derive(Debug, Clone)]
pub struct MountEntry {
    pub id: u64,
    pub major: u32,
    pub minor: u32,
    pub mount_point: PathBuf,
    pub options: Vec<String>,
    pub fstype: String,
    pub source: String,
    pub super_options: Vec<String>,
}

impl MountEntry {
    /// The value of `key=value` in the mount or superblock options, or `Some("")` for a bare
    /// flag.
    pub fn option(&self, key: &str) -> Option<&str> {
        self.options
            .iter()
            .chain(&self.super_options)
            .find_map(|o| match o.split_once('=') {
                Some((k, v)) if k == key => Some(v),
                None if o == key => Some(""),
                _ => None,
            })
    }
}

/// mountinfo escapes space, tab, newline and backslash as `\ooo`.
fn unescape(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .filter(|d| d[0] <= b'3' && d.iter().all(|b| (b'0'..=b'7').contains(b)));
        if bytes[i] == b'\\'
            && let Some(d) = octal
        {
            out.push((d[0] - b'0') * 64 + (d[1] - b'0') * 8 + (d[2] - b'0'));
            i += 4;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn parse_line(line: &str) -> Option<MountEntry> {
    // id parent major:minor root mount-point options [optional...] - fstype source super-options
    let (left, right) = line.split_once(" - ")?;
    let l: Vec<&str> = left.split(' ').collect();
    let r: Vec<&str> = right.split(' ').collect();
    if l.len() < 6 || r.len() < 3 {
        return None;
    }
    let (major, minor) = l[2].split_once(':')?;
    let list = |s: &str| s.split(',').map(unescape).collect::<Vec<_>>();
    Some(MountEntry {
        id: l[0].parse().ok()?,
        major: major.parse().ok()?,
        minor: minor.parse().ok()?,
        mount_point: PathBuf::from(unescape(l[4])),
        options: list(l[5]),
        fstype: r[0].to_string(),
        source: unescape(r[1]),
        super_options: list(r[2]),
    })
}

/// Every well-formed line; malformed lines are skipped (a reader must not fail on a kernel
/// that adds a field).
pub fn read_mountinfo(roots: &SysRoots) -> io::Result<Vec<MountEntry>> {
    let text = std::fs::read_to_string(roots.proc.join("self/mountinfo"))?;
    Ok(text.lines().filter_map(parse_line).collect())
}

/// The mount id of `path` from `statx`, on kernels that report it (5.8+).
fn mount_id(path: &Path) -> Option<u64> {
    use rustix::fs::{AtFlags, CWD, StatxFlags, statx};
    let st = statx(CWD, path, AtFlags::empty(), StatxFlags::MNT_ID).ok()?;
    StatxFlags::from_bits_retain(st.stx_mask)
        .contains(StatxFlags::MNT_ID)
        .then_some(st.stx_mnt_id)
}

/// The mount holding `path`: by mount id on this machine, else (fixtures, old kernels) the
/// last-mounted entry whose mount point is the longest prefix of the path.
fn find<'a>(path: &Path, roots: &SysRoots, mounts: &'a [MountEntry]) -> Option<&'a MountEntry> {
    if roots.live
        && let Some(id) = mount_id(path)
        && let Some(m) = mounts.iter().find(|m| m.id == id)
    {
        return Some(m);
    }
    let path = if roots.live {
        std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
    } else {
        path.to_path_buf()
    };
    mounts
        .iter()
        .filter(|m| path.starts_with(&m.mount_point))
        .max_by_key(|m| m.mount_point.components().count())
        .and_then(|best| {
            let depth = best.mount_point.components().count();
            mounts.iter().rfind(|m| {
                path.starts_with(&m.mount_point) && m.mount_point.components().count() == depth
            })
        })
}

/// The network and shared-folder filesystems (`net` handles them).
pub const NETWORK_FS: [&str; 9] = [
    "nfs",
    "nfs4",
    "cifs",
    "smb3",
    "fuse.sshfs",
    "fuse.rclone",
    "9p",
    "virtiofs",
    "ceph",
];

/// The chain below the mount holding `path`.
pub fn node_for_path(
    path: &Path,
    roots: &SysRoots,
    mounts: &[MountEntry],
    depth: usize,
    notes: &mut Vec<String>,
) -> Option<Node> {
    let m = find(path, roots, mounts)?;
    Some(mount_node(m, roots, mounts, depth, notes))
}

fn mount_node(
    m: &MountEntry,
    roots: &SysRoots,
    mounts: &[MountEntry],
    depth: usize,
    notes: &mut Vec<String>,
) -> Node {
    const SRC: &str = "/proc/self/mountinfo";
    let mut node = Node::new(
        NodeKind::Mount,
        format!(
            "{} at {} from {}",
            m.fstype,
            m.mount_point.display(),
            m.source
        ),
    );
    node.fact("filesystem", &m.fstype, SRC);
    node.fact("source", &m.source, SRC);
    node.fact("mount id", m.id.to_string(), SRC);
    if m.major != 0
        && let Some((uuid, src)) =
            udev::property(roots, &format!("{}:{}", m.major, m.minor), "ID_FS_UUID")
    {
        node.fact("uuid", uuid, src);
    }
    let dev_name = block::name_of(m.major, m.minor, roots);
    options(&mut node, m, dev_name.as_deref(), roots, notes);

    let fs = m.fstype.as_str();
    if NETWORK_FS.contains(&fs) {
        node.children.push(net::node(m, roots, notes));
    } else if matches!(fs, "tmpfs" | "ramfs") {
        let mut mem = Node::new(NodeKind::Memory, "memory (no device)");
        mem.bandwidth = Bandwidth::Unknown {
            why: "files live in RAM: figures are memory speed, not a device's".into(),
        };
        node.children.push(mem);
    } else if fs == "fuse" || fs.starts_with("fuse.") {
        // Plain "fuse" mounts often name no subtype and give /dev/fuse as source.
        let name = match fs.strip_prefix("fuse.") {
            Some(sub) => sub,
            None if m.source != "/dev/fuse" && m.source != "fuse" => &m.source,
            None => "unnamed",
        };
        let mut user = Node::new(NodeKind::Userspace, format!("FUSE server ({name})"));
        user.bandwidth = Bandwidth::Unknown {
            why: "a userspace filesystem: its speed is whatever its server process reaches, which the kernel does not report".into(),
        };
        node.children.push(user);
    } else if fs == "btrfs" {
        node.children.extend(block::btrfs_members(
            m,
            dev_name.as_deref(),
            roots,
            mounts,
            depth,
            notes,
        ));
    } else if let Some(name) = dev_name {
        node.children
            .push(block::node(&name, roots, mounts, depth, notes));
    } else {
        let mut other = Node::new(NodeKind::Userspace, format!("{fs} (no block device)"));
        other.bandwidth = Bandwidth::Unknown {
            why: format!("{fs} has no block device the prober can follow"),
        };
        node.children.push(other);
    }
    node
}

/// Records the options that change what a backup costs, and a note for each that needs words.
fn options(
    node: &mut Node,
    m: &MountEntry,
    dev_name: Option<&str>,
    roots: &SysRoots,
    notes: &mut Vec<String>,
) {
    const SRC: &str = "/proc/self/mountinfo";
    let at = m.mount_point.display();
    for key in ["ro", "sync", "dirsync"] {
        if m.option(key).is_some() {
            node.fact(key, "yes", SRC);
        }
    }
    if m.option("sync").is_some() {
        notes.push(format!(
            "{at} is mounted sync: every write waits for the device; durable, but slow for many small files"
        ));
    }
    match m.fstype.as_str() {
        "ext4" | "ext3" => ext4(node, m, dev_name, roots, notes),
        "btrfs" => {
            for key in ["compress", "compress-force"] {
                if let Some(v) = m.option(key) {
                    node.fact(key, v, SRC);
                    notes.push(format!(
                        "{at}: btrfs {key}={v}; destbench writes incompressible data, so compressible backups may run faster"
                    ));
                }
            }
        }
        "nfs" | "nfs4" => {
            for key in [
                "vers", "proto", "rsize", "wsize", "nconnect", "soft", "hard",
            ] {
                if let Some(v) = m.option(key) {
                    node.fact(key, if v.is_empty() { "yes" } else { v }, SRC);
                }
            }
            if m.option("soft").is_some() {
                notes.push(format!(
                    "{at}: NFS soft mount: a slow or absent server makes writes fail with EIO; backups want hard"
                ));
            }
        }
        "cifs" | "smb3" => {
            for key in ["vers", "cache", "rsize", "wsize", "nosharesock"] {
                if let Some(v) = m.option(key) {
                    node.fact(key, if v.is_empty() { "yes" } else { v }, SRC);
                }
            }
        }
        _ => {}
    }
}

fn ext4(
    node: &mut Node,
    m: &MountEntry,
    dev_name: Option<&str>,
    roots: &SysRoots,
    notes: &mut Vec<String>,
) {
    let at = m.mount_point.display();
    // mountinfo shows data= only when it is not the default; /proc/fs/ext4 always shows it.
    let proc_opts = dev_name.and_then(|d| {
        let p = roots.proc.join("fs/ext4").join(d).join("options");
        read(&p).map(|t| (t, roots.shown(&p)))
    });
    let data = m
        .option("data")
        .map(|v| (v.to_string(), "/proc/self/mountinfo".to_string()));
    let data = data.or_else(|| {
        let (text, src) = proc_opts.as_ref()?;
        let v = text.lines().find_map(|l| l.trim().strip_prefix("data="))?;
        Some((v.to_string(), src.clone()))
    });
    if let Some((mode, src)) = data {
        node.fact("data", &mode, src);
        if mode == "journal" {
            notes.push(format!(
                "{at}: ext4 data=journal: every block is written twice (journal, then in place)"
            ));
        }
    }
    // A journalled ext4 has a jbd2 entry named after its device; none means no journal.
    let jbd2 = roots.proc.join("fs/jbd2");
    if let (Some(dev), Ok(entries)) = (dev_name, std::fs::read_dir(&jbd2)) {
        let prefix = format!("{dev}-");
        let has = entries
            .filter_map(|e| e.ok())
            .any(|e| e.file_name().to_string_lossy().starts_with(&prefix));
        node.fact(
            "journal",
            if has { "yes" } else { "no" },
            roots.shown(&jbd2),
        );
        if !has {
            notes.push(format!(
                "{at}: ext4 without a journal: fast, but a crash mid-backup can need fsck"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_mountinfo_lines() {
        let m = parse_line(
            "36 27 8:17 / /mnt/my\\040disk rw,relatime shared:1 - ext4 /dev/sdb1 rw,data=journal",
        )
        .unwrap();
        assert_eq!((m.id, m.major, m.minor), (36, 8, 17));
        assert_eq!(m.mount_point, PathBuf::from("/mnt/my disk"));
        assert_eq!(m.option("data"), Some("journal"));
        assert_eq!(m.option("relatime"), Some(""));
        assert!(parse_line("36 27 8:17 / /mnt rw").is_none());
        assert!(parse_line("x 27 8:17 / /mnt rw - ext4 /dev/sdb1 rw").is_none());
        assert!(parse_line("").is_none());
    }
}
