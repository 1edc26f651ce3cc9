//! `/proc/self/mountinfo`: its lines parsed, and the mount holding a path found by its `statx`
//! mount id (not by `st_dev`, which btrfs subvolumes make differ from the mount's). A leaf: the
//! chain walk in `mount`, `block` and `net` reads it.

use std::io;
use std::path::{Path, PathBuf};

use super::SysRoots;

/// One line of `/proc/self/mountinfo`.
#[derive(Debug, Clone)]
pub struct MountEntry {
    pub id: u64,
    pub major: u32,
    pub minor: u32,
    pub mount_point: PathBuf,
    pub options: Vec<String>,
    pub fstype: String,
    /// What is mounted: a device, a share (mountinfo's "mount source").
    pub from: String,
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

pub(super) fn parse_line(line: &str) -> Option<MountEntry> {
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
        from: unescape(r[1]),
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
pub fn find<'a>(path: &Path, roots: &SysRoots, mounts: &'a [MountEntry]) -> Option<&'a MountEntry> {
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
