//! What a stored run remembers about where it ran: the host, the kernel, and the destination's
//! identity (filesystem type and UUID, the device with its model and serial), so that months
//! later "run 12" still says which drive it was.
//!
//! Everything is read defensively: a missing file or an odd line gives `None`, never an error,
//! because storing a run must not fail over a nice-to-have. The roots are parameters so tests
//! can point at fixture trees.

use std::path::{Path, PathBuf};

use super::record::Environment;

/// Where the kernel's and udev's files are (the real ones, or a fixture tree in tests).
#[derive(Debug, Clone)]
pub struct Roots {
    pub proc: PathBuf,
    pub sys: PathBuf,
    pub udev_data: PathBuf,
}

impl Default for Roots {
    fn default() -> Self {
        Roots {
            proc: "/proc".into(),
            sys: "/sys".into(),
            udev_data: "/run/udev/data".into(),
        }
    }
}

fn read_trimmed(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// The environment of a run on `destination`.
pub fn collect(roots: &Roots, destination: &Path) -> Environment {
    let mut env = Environment {
        host: read_trimmed(&roots.proc.join("sys/kernel/hostname")),
        kernel: read_trimmed(&roots.proc.join("sys/kernel/osrelease")),
        destbench_version: env!("CARGO_PKG_VERSION").to_string(),
        ..Environment::default()
    };
    let Ok(path) = destination.canonicalize() else {
        return env;
    };
    let Some(mountinfo) = read_trimmed(&roots.proc.join("self/mountinfo")) else {
        return env;
    };
    let Some(mount) = mount_of(&mountinfo, &path) else {
        return env;
    };
    env.fs_type = Some(mount.fs_type.clone());
    if mount.source.starts_with('/') {
        env.device = Some(mount.source.clone());
    }
    // udev's database has the filesystem UUID, model and serial for block devices; network and
    // virtual filesystems have none (major 0), and that is fine.
    if !mount.dev.starts_with("0:") {
        let udev = std::fs::read_to_string(roots.udev_data.join(format!("b{}", mount.dev)))
            .unwrap_or_default();
        let property = |key: &str| {
            udev.lines()
                .find_map(|line| {
                    line.strip_prefix("E:")?
                        .strip_prefix(key)?
                        .strip_prefix('=')
                })
                .map(str::to_string)
        };
        env.fs_uuid = property("ID_FS_UUID");
        env.device_model = property("ID_MODEL").or_else(|| sysfs_model(roots, &mount.dev));
        env.device_serial = property("ID_SERIAL_SHORT").or_else(|| property("ID_SERIAL"));
    }
    env
}

/// The model from sysfs: the device's own, or its parent disk's for a partition.
fn sysfs_model(roots: &Roots, dev: &str) -> Option<String> {
    let base = roots.sys.join("dev/block").join(dev);
    read_trimmed(&base.join("device/model")).or_else(|| read_trimmed(&base.join("../device/model")))
}

/// One line of `/proc/self/mountinfo`, the fields we use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    /// `major:minor` of the filesystem's device.
    pub dev: String,
    pub mount_point: PathBuf,
    pub fs_type: String,
    pub source: String,
}

/// Parses a mountinfo line; None when it is not one.
pub fn parse_mountinfo_line(line: &str) -> Option<Mount> {
    let (before, after) = line.split_once(" - ")?;
    let fields: Vec<&str> = before.split(' ').collect();
    let tail: Vec<&str> = after.split(' ').collect();
    if fields.len() < 6 || tail.len() < 2 {
        return None;
    }
    Some(Mount {
        dev: fields[2].to_string(),
        mount_point: PathBuf::from(unescape(fields[4])),
        fs_type: tail[0].to_string(),
        source: unescape(tail[1]),
    })
}

/// The kernel writes space, tab, newline and backslash in paths as `\ooo` octal escapes.
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .filter(|d| bytes[i] == b'\\' && d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match octal {
            Some(d) => {
                out.push((d[0] - b'0') * 64 + (d[1] - b'0') * 8 + (d[2] - b'0'));
                i += 4;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The mount holding `path` (canonical): the last-mounted of the longest matching mount points,
/// as later mounts hide earlier ones.
pub fn mount_of(mountinfo: &str, path: &Path) -> Option<Mount> {
    mountinfo
        .lines()
        .filter_map(parse_mountinfo_line)
        .filter(|m| path.starts_with(&m.mount_point))
        .fold(None, |best: Option<Mount>, m| match best {
            Some(b) if b.mount_point.as_os_str().len() > m.mount_point.as_os_str().len() => Some(b),
            _ => Some(m),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOUNTINFO: &str = "\
22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw
40 22 0:35 / /tmp rw shared:20 - tmpfs tmpfs rw
51 22 8:17 / /media/back\\040up rw,nosuid master:3 - exfat /dev/sdb1 rw,uid=0
52 51 0:40 / /media/back\\040up/nas rw - cifs //nas/share rw";

    #[test]
    fn the_longest_mount_point_wins_and_escapes_are_decoded() {
        let m = mount_of(MOUNTINFO, Path::new("/media/back up/photos")).unwrap();
        assert_eq!(m.dev, "8:17");
        assert_eq!(m.mount_point, PathBuf::from("/media/back up"));
        assert_eq!(
            (m.fs_type.as_str(), m.source.as_str()),
            ("exfat", "/dev/sdb1")
        );
        let nas = mount_of(MOUNTINFO, Path::new("/media/back up/nas/x")).unwrap();
        assert_eq!(nas.fs_type, "cifs");
        assert_eq!(
            mount_of(MOUNTINFO, Path::new("/home")).unwrap().dev,
            "259:2"
        );
        assert!(parse_mountinfo_line("garbage").is_none());
    }

    #[test]
    fn identity_from_a_fixture_tree() {
        let root = tempfile::tempdir().unwrap();
        let roots = Roots {
            proc: root.path().join("proc"),
            sys: root.path().join("sys"),
            udev_data: root.path().join("udev"),
        };
        let write = |rel: &str, text: &str| {
            let p = root.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        write("proc/sys/kernel/hostname", "box\n");
        write("proc/sys/kernel/osrelease", "6.1.0-test\n");
        let dest = root.path().join("dest");
        std::fs::create_dir(&dest).unwrap();
        let dest_canonical = dest.canonicalize().unwrap();
        write(
            "proc/self/mountinfo",
            &format!(
                "22 1 259:2 / / rw - ext4 /dev/nvme0n1p2 rw\n60 22 8:17 / {} rw - exfat /dev/sdb1 rw\n",
                dest_canonical.display()
            ),
        );
        write(
            "udev/b8:17",
            "S:disk/by-uuid/1234-ABCD\nE:ID_FS_UUID=1234-ABCD\nE:ID_SERIAL_SHORT=WX12\n",
        );
        // A partition: sysfs has the model on the parent disk, one level up.
        write("sys/dev/block/8:17/dev", "8:17\n");
        write("sys/dev/block/device/model", "My Passport\n");
        let env = collect(&roots, &dest);
        assert_eq!(env.host.as_deref(), Some("box"));
        assert_eq!(env.kernel.as_deref(), Some("6.1.0-test"));
        assert_eq!(env.fs_type.as_deref(), Some("exfat"));
        assert_eq!(env.device.as_deref(), Some("/dev/sdb1"));
        assert_eq!(env.fs_uuid.as_deref(), Some("1234-ABCD"));
        assert_eq!(env.device_serial.as_deref(), Some("WX12"));
        assert_eq!(env.device_model.as_deref(), Some("My Passport"));
    }
}
