//! The mount node of the chain: the filesystem holding a path, the options that matter for
//! backups, and what lies below it (block devices, a network share, memory, a FUSE server).

use std::path::Path;

use super::mountinfo::{MountEntry, find};
use super::{SysRoots, block, net, read, udev};
use crate::probe::{Bandwidth, Node, NodeKind, Value};

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

/// How `block` reaches the mount under a loop device's backing file without knowing mounts.
fn below_file<'a>(
    roots: &'a SysRoots,
    mounts: &'a [MountEntry],
) -> impl FnMut(&Path, usize, &mut Vec<String>) -> Option<Node> + 'a {
    move |path, depth, notes| node_for_path(path, roots, mounts, depth, notes)
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
            m.from
        ),
    );
    node.fact(Value::Filesystem(m.fstype.clone()), SRC);
    node.fact(Value::MountedFrom(m.from.clone()), SRC);
    node.other("mount id", m.id.to_string(), SRC);
    if m.major != 0
        && let Some((uuid, src)) =
            udev::property(roots, &format!("{}:{}", m.major, m.minor), "ID_FS_UUID")
    {
        node.fact(Value::Uuid(uuid), src);
    }
    let dev_name = block::name_of(m.major, m.minor, roots);
    options(&mut node, m, notes);
    if matches!(m.fstype.as_str(), "ext4" | "ext3") {
        ext4(&mut node, m, dev_name.as_deref(), roots, notes);
    }

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
            None if m.from != "/dev/fuse" && m.from != "fuse" => &m.from,
            None => "unnamed",
        };
        let mut user = Node::new(NodeKind::Userspace, format!("FUSE server ({name})"));
        user.bandwidth = Bandwidth::Unknown {
            why: "a userspace filesystem: its speed is whatever its server process reaches, which the kernel does not report".into(),
        };
        node.children.push(user);
    } else if fs == "btrfs" || dev_name.is_some() {
        let mut below = below_file(roots, mounts);
        let mut walk = block::BlockWalk {
            roots,
            notes,
            below_file: &mut below,
        };
        match &dev_name {
            Some(name) if fs != "btrfs" => node.children.push(walk.node(name, depth)),
            _ => node
                .children
                .extend(walk.btrfs_members(m, dev_name.as_deref(), depth)),
        }
    } else {
        let mut other = Node::new(NodeKind::Userspace, format!("{fs} (no block device)"));
        other.bandwidth = Bandwidth::Unknown {
            why: format!("{fs} has no block device the prober can follow"),
        };
        node.children.push(other);
    }
    node
}

/// Records the mount options (as mountinfo shows them) that change what a backup costs, and a
/// note for each that needs words.
fn options(node: &mut Node, m: &MountEntry, notes: &mut Vec<String>) {
    const SRC: &str = "/proc/self/mountinfo";
    let at = m.mount_point.display();
    for key in ["ro", "sync", "dirsync"] {
        if m.option(key).is_some() {
            node.other(key, "yes", SRC);
        }
    }
    if m.option("sync").is_some() {
        notes.push(format!(
            "{at} is mounted sync: every write waits for the device; durable, but slow for many small files"
        ));
    }
    match m.fstype.as_str() {
        "btrfs" => {
            for key in ["compress", "compress-force"] {
                if let Some(v) = m.option(key) {
                    node.other(key, v, SRC);
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
                    node.other(key, if v.is_empty() { "yes" } else { v }, SRC);
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
                    node.other(key, if v.is_empty() { "yes" } else { v }, SRC);
                }
            }
            // The dialect asked for at mount (the kernel shows the one negotiated when none was).
            if let Some(v) = m.option("vers").filter(|v| !v.is_empty()) {
                node.fact(Value::SmbDialect(v.into()), SRC);
            }
            // The kernel shows signing asked for at mount as sec=...i (ntlmsspi, krb5i) and
            // encryption as `seal`. Without them the server may still require either: no fact.
            if m.option("sec").is_some_and(|s| s.ends_with('i')) {
                node.fact(Value::Signing(true), SRC);
            }
            if m.option("seal").is_some() {
                node.fact(Value::Encryption(true), SRC);
            }
        }
        _ => {}
    }
}

/// ext4's journalling, which mountinfo shows only in part: the data= mode (also read from
/// /proc/fs/ext4) and whether there is a journal at all (/proc/fs/jbd2).
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
        node.other("data", &mode, src);
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
        node.other(
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
    use crate::probe::Key;

    /// The mount node's facts of a mountinfo `line`.
    fn facts_of(line: &str) -> Node {
        let m = super::super::mountinfo::parse_line(line).expect("a mountinfo line");
        let mut node = Node::new(NodeKind::Mount, "a share");
        options(&mut node, &m, &mut Vec::new());
        node
    }

    /// cifs shows signing as the `i` of `sec=` and encryption as `seal`, among the superblock's
    /// options (the lines as the kernel writes them); a mount that shows neither says nothing
    /// of them, since the server may require both.
    #[test]
    fn a_cifs_mount_says_signing_and_encryption_where_its_options_show_them() {
        let sealed = facts_of(
            "97 29 0:56 / /mnt/nas rw,relatime shared:53 - cifs //192.168.1.20/backup \
             rw,vers=3.1.1,sec=ntlmsspi,cache=strict,username=me,uid=0,noforceuid,gid=0,\
             noforcegid,addr=192.168.1.20,file_mode=0755,dir_mode=0755,seal,soft,nounix,\
             serverino,mapposix,rsize=4194304,wsize=4194304,bsize=1048576,echo_interval=60,\
             actimeo=1,closetimeo=1",
        );
        assert_eq!(sealed.get(Key::Signing), Some(&Value::Signing(true)));
        assert_eq!(sealed.get(Key::Encryption), Some(&Value::Encryption(true)));
        let kerberos = facts_of(
            "98 29 0:57 / /mnt/k rw,relatime - cifs //fs.example.org/k \
             rw,vers=3.0,sec=krb5i,cruid=1000,cache=strict,username=u,addr=10.0.0.5,soft",
        );
        assert_eq!(kerberos.get(Key::Signing), Some(&Value::Signing(true)));
        assert_eq!(kerberos.get(Key::Encryption), None);
        let plain = facts_of(
            "80 27 0:52 / /mnt/nas rw,relatime - cifs //192.168.1.20/backup \
             rw,vers=3.1.1,sec=ntlmssp,cache=strict,username=me,addr=192.168.1.20,soft,\
             nounix,serverino,mapposix,rsize=4194304,wsize=4194304,actimeo=1",
        );
        assert_eq!(plain.get(Key::Signing), None);
        assert_eq!(plain.get(Key::Encryption), None);
        // NFS has no such options: `sec=krb5i` there is Kerberos integrity, not SMB signing.
        let nfs = facts_of(
            "60 27 0:50 / /mnt/nfs rw,relatime - nfs4 192.168.1.30:/export \
             rw,vers=4.2,rsize=1048576,wsize=1048576,hard,proto=tcp,sec=krb5i,addr=192.168.1.30",
        );
        assert_eq!(nfs.get(Key::Signing), None);
    }
}
