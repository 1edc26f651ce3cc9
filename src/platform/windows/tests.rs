//! A junction swapped in for a scratch subdirectory while the run holds its parent: nothing
//! reached by name from the scratch directory follows it, and removing the scratch directory
//! removes the junction and leaves what it points at. The counterpart of the Linux
//! symlink-swap fault test. Wine 8 cannot make a junction (`FSCTL_SET_REPARSE_POINT` is not
//! implemented), so `.ci/run` names this test in its `--skip` and says why; on Windows it runs
//! (`.github/workflows/windows.yml`) and fails, never skips, when no junction can be made.

use std::ffi::OsStr;
use std::os::windows::ffi::OsStrExt;
use std::os::windows::fs::OpenOptionsExt;
use std::path::Path;

use windows_sys::Win32::Storage::FileSystem::{
    FILE_FLAG_BACKUP_SEMANTICS, FILE_FLAG_OPEN_REPARSE_POINT,
};

use crate::platform::{self, AsHandleRef, FileKind, OpenHow};

/// Makes the empty directory `link` a junction to `target` (as `mklink /J`).
fn make_junction(link: &Path, target: &Path) -> std::io::Result<()> {
    const FSCTL_SET_REPARSE_POINT: u32 = 0x0009_00a4;
    const IO_REPARSE_TAG_MOUNT_POINT: u32 = 0xa000_0003;
    let target = std::path::absolute(target)?;
    let substitute: Vec<u16> = OsStr::new(&format!(r"\??\{}", target.display()))
        .encode_wide()
        .collect();
    let print: Vec<u16> = target.as_os_str().encode_wide().collect();
    let mut path = substitute.clone();
    path.push(0);
    path.extend(&print);
    path.push(0);
    let mut data = Vec::new();
    let data_len = 8 + path.len() * 2;
    data.extend(IO_REPARSE_TAG_MOUNT_POINT.to_le_bytes());
    data.extend((data_len as u16).to_le_bytes());
    data.extend(0u16.to_le_bytes());
    for v in [
        0,
        substitute.len() * 2,
        (substitute.len() + 1) * 2,
        print.len() * 2,
    ] {
        data.extend((v as u16).to_le_bytes());
    }
    data.extend(path.iter().flat_map(|c| c.to_le_bytes()));
    std::fs::create_dir(link)?;
    let dir = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT)
        .open(link)?;
    platform::device_io_control(&dir, FSCTL_SET_REPARSE_POINT, &data, 0)?;
    Ok(())
}

#[test]
fn a_junction_swapped_in_for_a_scratch_directory_is_never_followed() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("keep"), b"x").unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let root = platform::open_dir(scratch.path()).unwrap();
    let sub = platform::create_dir_exclusive(root.handle_ref(), "sub").unwrap();
    let how = OpenHow {
        write: true,
        create: true,
        direct: false,
    };
    drop(platform::open_in(sub.handle_ref(), "f", how).unwrap());
    // Mid-run: the directory the run holds is moved away and a junction takes its name.
    std::fs::rename(scratch.path().join("sub"), scratch.path().join("moved")).unwrap();
    make_junction(&scratch.path().join("sub"), outside.path())
        .expect("a junction must be made for this test (wine cannot: see the module docs)");

    let refused = platform::open_dir_in(root.handle_ref(), OsStr::new("sub")).unwrap_err();
    assert_eq!(refused.raw_os_error(), Some(681), "{refused}");
    assert!(platform::open_beneath(root.handle_ref(), Path::new("sub")).is_err());
    let through = platform::open_in(root.handle_ref(), "sub", how);
    assert!(through.is_err(), "a file open on the junction's name");
    let st = platform::stat_in(root.handle_ref(), OsStr::new("sub")).unwrap();
    assert_eq!(st.kind, FileKind::Symlink);
    let kinds: Vec<_> = platform::read_dir(root.handle_ref())
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| (e.name.to_string_lossy().into_owned(), e.kind))
        .collect();
    assert!(
        kinds.contains(&("sub".into(), FileKind::Symlink)),
        "{kinds:?}"
    );

    // The handle opened before the swap still writes where it did, inside the scratch.
    drop(platform::open_in(sub.handle_ref(), "g", how).unwrap());
    assert!(scratch.path().join("moved/g").exists());
    assert!(!outside.path().join("g").exists());

    drop(sub);
    let done = platform::remove_contents(root.handle_ref()).unwrap();
    assert_eq!(done.kept, 0, "{done:?}");
    assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 0);
    assert_eq!(std::fs::read(outside.path().join("keep")).unwrap(), b"x");
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 1);
}
