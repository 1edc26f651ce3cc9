//! What std itself says differently on each system (permission bits, device numbers, symlinks,
//! a path's bytes), behind one name each so callers stay free of `std::os::unix`.

use std::borrow::Cow;
use std::fs::{File, Metadata};
use std::io;
use std::path::Path;

/// Sets a file's permission bits. Windows has none: a mode without write bits makes the file
/// read-only there, any other leaves it writable.
pub fn set_mode(file: &File, mode: u32) -> io::Result<()> {
    #[cfg(unix)]
    let permissions = {
        use std::os::unix::fs::PermissionsExt;
        std::fs::Permissions::from_mode(mode)
    };
    #[cfg(windows)]
    let permissions = {
        let mut p = file.metadata()?.permissions();
        p.set_readonly(mode & 0o222 == 0);
        p
    };
    file.set_permissions(permissions)
}

/// The filesystem a file is on, from metadata std already read; None where std cannot say
/// (Windows, whose volume mount points are reparse points that a walk never enters).
pub fn device_of(meta: &Metadata) -> Option<u64> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(meta.dev())
    }
    #[cfg(windows)]
    {
        let _ = meta;
        None
    }
}

/// Makes a symlink at `link` pointing at `target` (on Windows a directory link when `target`
/// names a directory as seen from `link`'s folder; that needs Developer Mode or the privilege).
pub fn symlink(target: &Path, link: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(target, link)
    }
    #[cfg(windows)]
    {
        let seen_from = link.parent().unwrap_or(Path::new(".")).join(target);
        if seen_from.is_dir() {
            std::os::windows::fs::symlink_dir(target, link)?;
        } else {
            std::os::windows::fs::symlink_file(target, link)?;
        }
        // Wine's CreateSymbolicLinkW reports success and makes nothing: say so.
        if !std::fs::symlink_metadata(link).is_ok_and(|m| m.is_symlink()) {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!(
                    "{}: the system said the symlink was made, but none is there",
                    link.display()
                ),
            ));
        }
        Ok(())
    }
}

/// A path's bytes for a URI: as stored on Unix, UTF-8 with `/` separators on Windows.
pub fn path_bytes(path: &Path) -> Cow<'_, [u8]> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Cow::Borrowed(path.as_os_str().as_bytes())
    }
    #[cfg(windows)]
    {
        Cow::Owned(path.to_string_lossy().replace('\\', "/").into_bytes())
    }
}

/// A file's permission bits (`& 0o7777`); on Windows, which has only the read-only attribute,
/// 0o444 for a read-only file and 0o644 for any other.
#[cfg(any(windows, test))]
pub fn mode_of(meta: &Metadata) -> u32 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o7777
    }
    #[cfg(windows)]
    {
        if meta.permissions().readonly() {
            0o444
        } else {
            0o644
        }
    }
}
