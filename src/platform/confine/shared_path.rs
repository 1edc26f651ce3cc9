//! Whether anyone else can change where a path leads: a program started unconfined resolves
//! the scratch's path itself, so every directory along it must be closed to others, as
//! OpenSSH's `StrictModes` asks of a user's key files. A directory others can write in lets
//! them rename an entry and put a symlink in its place, unless it is sticky (`/tmp`): then only
//! an entry's owner can rename it. A network share is never closed to others: its server maps
//! other clients' users in, often all to one account.

use std::path::Path;

use super::HandleRef;

/// The first directory along `path` (the scratch, open as `dir`, then each one above it, as
/// given and as resolved) that someone else can change, in words; None where there is none.
pub fn others_can_write(dir: HandleRef<'_>, path: &Path) -> Option<String> {
    if let Some(kind) = network_filesystem(dir) {
        return Some(format!("{} is on a network share ({kind})", path.display()));
    }
    let me = rustix::process::geteuid().as_raw();
    let resolved = std::fs::canonicalize(path).ok();
    let given = path.ancestors().filter(|a| !a.as_os_str().is_empty());
    for ancestor in given.chain(resolved.iter().flat_map(|r| r.ancestors())) {
        // A link along the path is its parent's to change, which comes next.
        let Ok(meta) = std::fs::symlink_metadata(ancestor) else {
            continue;
        };
        if meta.file_type().is_symlink() {
            continue;
        }
        if let Some(why) = open_to_others(mode_and_owner(&meta), me) {
            return Some(format!("{} {why}", ancestor.display()));
        }
    }
    None
}

fn mode_and_owner(meta: &std::fs::Metadata) -> (u32, u32) {
    use std::os::unix::fs::MetadataExt;
    (meta.mode(), meta.uid())
}

/// Why a directory of `mode`, owned by `owner`, is open to others than `me`; None if it is not.
fn open_to_others((mode, owner): (u32, u32), me: u32) -> Option<String> {
    if owner != me && owner != 0 {
        return Some(format!("belongs to another user (uid {owner})"));
    }
    let sticky = mode & 0o1000 != 0;
    match mode & 0o022 {
        0 => None,
        _ if sticky => None,
        0o002 | 0o022 => Some("can be written by anyone".to_string()),
        _ => Some("can be written by its group".to_string()),
    }
}

/// The kind of network filesystem `dir` is on, if it is on one (FUSE counted: sshfs is).
#[cfg(target_os = "linux")]
fn network_filesystem(dir: HandleRef<'_>) -> Option<&'static str> {
    let magic = rustix::fs::fstatfs(dir).ok()?.f_type as u64;
    Some(match magic {
        0x6969 => "NFS",
        0x517B | 0xFF53_4D42 | 0xFE53_4D42 => "SMB",
        0x6573_5546 => "FUSE, as sshfs is",
        0x00C3_6400 => "Ceph",
        0x5346_414F => "AFS",
        0x0102_1997 => "9P",
        _ => return None,
    })
}

/// The kind of network filesystem `dir` is on, if it is on one (macFUSE counted: sshfs is).
#[cfg(target_os = "macos")]
fn network_filesystem(dir: HandleRef<'_>) -> Option<&'static str> {
    let stat = rustix::fs::fstatfs(dir).ok()?;
    let name: Vec<u8> = stat
        .f_fstypename
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    Some(match name.as_slice() {
        b"smbfs" => "SMB",
        b"nfs" => "NFS",
        b"afpfs" => "AFP",
        b"webdav" => "WebDAV",
        b"macfuse" | b"osxfuse" => "macFUSE, as sshfs is",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::{self, AsHandleRef};
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn directories_others_can_change_are_named() {
        assert_eq!(open_to_others((0o40755, 1000), 1000), None);
        assert_eq!(open_to_others((0o40755, 0), 1000), None);
        assert_eq!(open_to_others((0o41777, 0), 1000), None, "sticky, as /tmp");
        assert!(
            open_to_others((0o40777, 0), 1000)
                .unwrap()
                .contains("anyone")
        );
        assert!(
            open_to_others((0o40775, 1000), 1000)
                .unwrap()
                .contains("group")
        );
        assert!(
            open_to_others((0o40700, 1001), 1000)
                .unwrap()
                .contains("uid 1001")
        );
    }

    #[test]
    fn a_world_writable_directory_along_the_path_is_found() {
        let tmp = tempfile::tempdir().unwrap();
        let open = tmp.path().join("open");
        let scratch = open.join("scratch");
        std::fs::create_dir_all(&scratch).unwrap();
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        std::fs::set_permissions(&scratch, std::fs::Permissions::from_mode(0o700)).unwrap();
        let dir = platform::open_dir(&scratch).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o755)).unwrap();
        // The temp dir's own parents (/tmp: sticky) are closed to others.
        assert_eq!(others_can_write(dir.handle_ref(), &scratch), None);
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
        let said = others_can_write(dir.handle_ref(), &scratch).unwrap();
        assert!(said.contains("open can be written by anyone"), "{said}");
    }
}
