//! The mounted volumes worth offering as destinations on a Mac (`destbench ui`'s list): disks
//! and shares that can be written, the internal data volume at its real mount point; not the
//! sealed system volume, the other volumes of its group, automounts, disk images mounted
//! read-only nor Time Machine's snapshots.

use std::path::PathBuf;

use super::MountFacts;

/// One mounted filesystem, as `getfsstat` lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct Mounted {
    pub mount: MountFacts,
    /// `MNT_RDONLY`: the system volume's snapshot, a disk image, a snapshot.
    pub read_only: bool,
    /// `MNT_LOCAL`: on a disk of this Mac rather than a server.
    pub local: bool,
    /// A signed system volume (what `mount` prints as "sealed"); macOS keeps it read-only
    /// even where the mount flags do not say so.
    pub sealed: bool,
}

/// Filesystems of a share, whose source names a server.
const NETWORK: &[&str] = &["smbfs", "nfs", "afpfs", "webdav"];

/// Where macOS mounts the volumes of its own system group (VM, Preboot, Update, xarts,
/// iSCPreboot, Hardware) and, before Big Sur, its swap volume.
const SYSTEM_PLACES: &[&str] = &["/System/Volumes/", "/private/var/vm"];

/// The one volume of the system group that holds the user's files (`/Users`, `/Applications`
/// are firmlinks into it); on macOS before Catalina it is `/` itself.
const DATA_VOLUME: &str = "/System/Volumes/Data";

/// The mount points worth testing, in the table's order.
pub fn worth_offering(mounts: &[Mounted]) -> Vec<PathBuf> {
    mounts
        .iter()
        .filter(|m| writable_storage(m) && !system_place(&m.mount.on))
        .map(|m| PathBuf::from(&m.mount.on))
        .collect()
}

/// A share, or a local filesystem on a disk (not devfs, not autofs's `map auto_home`, not a
/// Time Machine snapshot, whose source is `com.apple.TimeMachine.…@/dev/disk…`).
fn writable_storage(m: &Mounted) -> bool {
    let stored = NETWORK.contains(&m.mount.fstype.as_str())
        || (m.local && m.mount.from.starts_with("/dev/disk"));
    stored && !m.read_only && !m.sealed
}

fn system_place(on: &str) -> bool {
    // backupd mounts its destinations under /Volumes/.timemachine while it backs up; Finder
    // shows no dotted name.
    let hidden = on.split('/').any(|part| part.starts_with('.'));
    let system = SYSTEM_PLACES.iter().any(|p| on.starts_with(p)) && on != DATA_VOLUME;
    hidden || system
}

/// Every mounted filesystem; empty when the table cannot be read.
#[cfg(target_os = "macos")]
pub fn mounted() -> Vec<Mounted> {
    // SAFETY: a null buffer asks only for the number of mounts.
    let count = unsafe { libc::getfsstat(std::ptr::null_mut(), 0, libc::MNT_NOWAIT) };
    let Ok(count) = usize::try_from(count) else {
        return Vec::new();
    };
    // Room for a few mounted between the two calls.
    // SAFETY: statfs is plain data; zero is a valid value of every field.
    let mut table = vec![unsafe { std::mem::zeroed::<libc::statfs>() }; count + 4];
    let Ok(size) = libc::c_int::try_from(std::mem::size_of_val(table.as_slice())) else {
        return Vec::new();
    };
    // MNT_NOWAIT: the kernel's last figures, never a wait on a share that does not answer.
    // SAFETY: a buffer of `size` bytes of statfs records.
    let filled = unsafe { libc::getfsstat(table.as_mut_ptr(), size, libc::MNT_NOWAIT) };
    table.truncate(usize::try_from(filled).unwrap_or(0));
    table.iter().map(record).collect()
}

#[cfg(target_os = "macos")]
fn record(st: &libc::statfs) -> Mounted {
    let text = crate::platform::c_chars;
    let flag = |bit: libc::c_int| st.f_flags & bit as u32 != 0;
    let on = text(&st.f_mntonname);
    // Only a local volume is asked for its capabilities: asking a share may wait on its server.
    let sealed = flag(libc::MNT_LOCAL) && is_sealed(&on);
    Mounted {
        read_only: flag(libc::MNT_RDONLY),
        local: flag(libc::MNT_LOCAL),
        sealed,
        mount: MountFacts {
            fstype: text(&st.f_fstypename),
            from: text(&st.f_mntfromname),
            on,
        },
    }
}

/// Whether the volume mounted at `on` is sealed, from its format capabilities (`getattrlist`,
/// as `mount` asks).
#[cfg(target_os = "macos")]
fn is_sealed(on: &str) -> bool {
    #[repr(C)]
    struct Reply {
        length: u32,
        capabilities: libc::vol_capabilities_attr_t,
    }
    let Ok(path) = std::ffi::CString::new(on) else {
        return false;
    };
    let mut request = libc::attrlist {
        bitmapcount: libc::ATTR_BIT_MAP_COUNT,
        reserved: 0,
        commonattr: 0,
        volattr: libc::ATTR_VOL_INFO | libc::ATTR_VOL_CAPABILITIES,
        dirattr: 0,
        fileattr: 0,
        forkattr: 0,
    };
    // SAFETY: plain data, filled by getattrlist.
    let mut reply: Reply = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated path, the request, and a reply buffer of the size passed.
    let rc = unsafe {
        libc::getattrlist(
            path.as_ptr(),
            (&raw mut request).cast(),
            (&raw mut reply).cast(),
            size_of::<Reply>(),
            0,
        )
    };
    let format = libc::VOL_CAPABILITIES_FORMAT;
    let sealed = libc::VOL_CAP_FMT_SEALED;
    rc == 0
        && reply.capabilities.valid[format] & sealed != 0
        && reply.capabilities.capabilities[format] & sealed != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line of `mount`'s output: `FROM on ON (FSTYPE, flag, flag...)`; ON may hold spaces
    /// and parentheses, so the flags are the last parenthesis.
    fn parse_mount_line(line: &str) -> Option<Mounted> {
        let (head, flags) = line.strip_suffix(')')?.rsplit_once(" (")?;
        let (from, on) = head.split_once(" on ")?;
        let mut flags = flags.split(", ");
        let fstype = flags.next()?;
        let flags: Vec<&str> = flags.collect();
        Some(Mounted {
            mount: MountFacts {
                fstype: fstype.into(),
                from: from.into(),
                on: on.into(),
            },
            read_only: flags.contains(&"read-only"),
            local: flags.contains(&"local"),
            sealed: flags.contains(&"sealed"),
        })
    }

    fn table(text: &str) -> Vec<Mounted> {
        text.lines().filter_map(parse_mount_line).collect()
    }

    #[test]
    fn a_sonoma_macbook_offers_its_data_volume_disks_and_shares() {
        let mounts = table(include_str!(
            "../../../tests/fixtures/macos/macbook-sonoma/mount"
        ));
        assert_eq!(mounts.len(), 19, "every line of the fixture parses");
        assert_eq!(
            worth_offering(&mounts),
            [
                "/System/Volumes/Data",
                "/Volumes/Backup",
                "/Volumes/TimeMachine",
                "/Volumes/KINGSTON",
                "/Volumes/My Passport (2)",
                "/Volumes/photos",
            ]
            .map(PathBuf::from)
        );
    }

    #[test]
    fn before_catalina_the_writable_root_is_the_data_volume() {
        let mounts = table(
            "\
/dev/disk1s1 on / (apfs, local, journaled)
devfs on /dev (devfs, local, nobrowse)
/dev/disk1s4 on /private/var/vm (apfs, local, noexec, journaled, noatime, nobrowse)
map -hosts on /net (autofs, nosuid, automounted, nobrowse)
map auto_home on /home (autofs, automounted, nobrowse)",
        );
        assert_eq!(worth_offering(&mounts), [PathBuf::from("/")]);
    }

    #[test]
    fn a_sealed_system_volume_is_skipped_even_when_mounted_writable() {
        let mounts = table(
            "/dev/disk1s5 on /Volumes/Macintosh HD 1 (apfs, sealed, local, journaled, nobrowse)",
        );
        assert_eq!(mounts.len(), 1);
        assert!(worth_offering(&mounts).is_empty());
    }
}
