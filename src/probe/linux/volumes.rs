//! The mounted volumes worth offering as destinations (`destbench ui`'s list): filesystems on a
//! device or a share that can be written, once each; not the kernel's pseudo-filesystems, the
//! boot partition, snaps, nor a second bind mount of the same filesystem.

use std::io;
use std::path::PathBuf;

use super::SysRoots;
use super::mountinfo::{MountEntry, read_mountinfo};

/// Filesystems of a share, whose source is a server rather than a device.
const NETWORK: &[&str] = &[
    "nfs",
    "nfs4",
    "cifs",
    "smb3",
    "smbfs",
    "9p",
    "virtiofs",
    "afpfs",
    "fuse.sshfs",
    "fuse.rclone",
];

/// Device filesystems that cannot be written (images, optical discs).
const READ_ONLY_KINDS: &[&str] = &["squashfs", "iso9660", "udf", "erofs"];

/// Parts of the system that are no backup destination.
const SYSTEM_PLACES: &[&str] = &[
    "/proc", "/sys", "/dev", "/boot", "/snap", "/run", "/var/lib",
];

/// Places under [`SYSTEM_PLACES`] where removable disks are mounted.
const MEDIA_PLACES: &[&str] = &["/run/media"];

/// The mount points worth testing, in mountinfo's order (the first of each filesystem).
pub fn volumes(roots: &SysRoots) -> io::Result<Vec<PathBuf>> {
    Ok(worth_testing(&read_mountinfo(roots)?))
}

fn worth_testing(mounts: &[MountEntry]) -> Vec<PathBuf> {
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for m in mounts
        .iter()
        .filter(|m| writable_storage(m) && !system_place(m))
    {
        let device = (m.major, m.minor);
        if !seen.contains(&device) {
            seen.push(device);
            out.push(m.mount_point.clone());
        }
    }
    out
}

/// The source some FUSE helpers name (document portals and the like): no device behind it.
const FUSE_DEVICE: &str = "/dev/fuse";

fn writable_storage(m: &MountEntry) -> bool {
    // The superblock's "ro" (a filesystem remounted read-only after errors) counts too.
    let read_only = m.options.iter().chain(&m.super_options).any(|o| o == "ro");
    let device = m.from.starts_with("/dev/") && m.from != FUSE_DEVICE;
    let stored = NETWORK.contains(&m.fstype.as_str())
        || (device && !READ_ONLY_KINDS.contains(&m.fstype.as_str()));
    stored && !read_only
}

fn system_place(m: &MountEntry) -> bool {
    let under = |places: &[&str]| places.iter().any(|p| m.mount_point.starts_with(p));
    under(SYSTEM_PLACES) && !under(MEDIA_PLACES)
}

#[cfg(test)]
mod tests {
    use super::super::mountinfo::parse_line;
    use super::*;

    #[test]
    fn keeps_disks_and_shares_once_and_nothing_of_the_system() {
        let text = "\
22 27 0:21 / /proc rw,relatime - proc proc rw
24 27 0:6 / /dev rw,relatime - devtmpfs devtmpfs rw,size=12334492k,mode=755
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard
42 27 254:0 /run/netns /run/netns rw,relatime shared:1 - ext4 /dev/vda rw,discard
43 27 254:0 /home/me/data /srv/data rw,relatime - ext4 /dev/vda rw,discard
50 27 8:1 / /boot/efi rw,relatime - vfat /dev/sda1 rw,fmask=0077
51 27 7:3 / /snap/core22/1380 ro,nodev,relatime - squashfs /dev/loop3 ro
60 27 8:33 / /run/media/me/BACKUP\\040DISK rw,nosuid,nodev - exfat /dev/sdc1 rw,uid=1000
61 27 0:55 / /mnt/nas rw,relatime - cifs //nas/backup rw,vers=3.1.1,addr=192.168.1.10
62 27 8:17 / /mnt/old ro,relatime - ext4 /dev/sdb1 ro
63 27 0:40 / /tmp rw,nosuid,nodev - tmpfs tmpfs rw,size=8g
64 27 0:57 / /home/me/.cache/doc rw,nosuid,nodev - fuse /dev/fuse rw,user_id=1000
65 27 8:49 / /mnt/failing rw,relatime - ext4 /dev/sdd1 ro,errors=remount-ro";
        let mounts: Vec<MountEntry> = text.lines().filter_map(parse_line).collect();
        assert_eq!(
            worth_testing(&mounts),
            ["/", "/run/media/me/BACKUP DISK", "/mnt/nas"].map(PathBuf::from)
        );
    }
}
