//! Windows: files opened inside the scratch directory and their I/O. Direct I/O is
//! `FILE_NO_INTERMEDIATE_BUFFERING | FILE_WRITE_THROUGH` (the cache manager out of the way,
//! each write through the drive's cache request), durability `FlushFileBuffers`.

use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::os::windows::fs::OpenOptionsExt;
use std::os::windows::io::AsRawHandle;
use std::path::Path;

use windows_sys::Wdk::Storage::FileSystem::{
    FILE_CREATE, FILE_DIRECTORY_FILE, FILE_NO_INTERMEDIATE_BUFFERING, FILE_NON_DIRECTORY_FILE,
    FILE_OPEN, FILE_WRITE_THROUGH,
};
use windows_sys::Wdk::Storage::FileSystem::{FileRenameInformation, NtSetInformationFile};
use windows_sys::Win32::Foundation::{ERROR_HANDLE_EOF, FILETIME};
use windows_sys::Win32::Storage::FileSystem::{
    FILE_BASIC_INFO, FILE_END_OF_FILE_INFO, FILE_FLAG_BACKUP_SEMANTICS, FILE_GENERIC_READ,
    FILE_GENERIC_WRITE, FILE_LIST_DIRECTORY, FILE_READ_ATTRIBUTES, FILE_RENAME_INFO,
    FILE_STORAGE_INFO, FILE_TRAVERSE, FILE_WRITE_ATTRIBUTES, FileBasicInfo, FileEndOfFileInfo,
    FileStorageInfo, FlushFileBuffers, ReadFile, WriteFile,
};
use windows_sys::Win32::System::IO::{IO_STATUS_BLOCK, OVERLAPPED};

use super::nt::{self, Open};
use crate::platform::{AsHandleRef, DIRECT_ALIGN, Handle, HandleRef, OpenHow};

/// Opens (or creates, exclusively) `name` inside the directory `dir`, never following a link.
pub fn open_in(dir: HandleRef<'_>, name: &str, how: OpenHow) -> io::Result<Handle> {
    let mut options = FILE_NON_DIRECTORY_FILE;
    if how.direct && super::under_wine() {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "wine passes FILE_FLAG_NO_BUFFERING to no host file: the host's page cache stays",
        ));
    }
    if how.direct {
        options |= FILE_NO_INTERMEDIATE_BUFFERING | FILE_WRITE_THROUGH;
    }
    let access = if how.write {
        FILE_GENERIC_READ | FILE_GENERIC_WRITE
    } else {
        FILE_GENERIC_READ
    };
    let disposition = if how.create { FILE_CREATE } else { FILE_OPEN };
    let handle = nt::open(
        dir,
        OsStr::new(name),
        Open {
            access,
            disposition,
            options,
            refuse_links: true,
        },
    )?;
    if how.direct {
        check_sector(handle.handle_ref())?;
    }
    Ok(handle)
}

/// Unbuffered I/O must be aligned to the volume's logical sector: refuse a volume whose sector
/// [`DIRECT_ALIGN`] is not a multiple of. Where the system cannot say (wine), the 4 KiB
/// alignment covers both sector sizes in use (512 and 4096).
fn check_sector(handle: HandleRef<'_>) -> io::Result<()> {
    // SAFETY: the plain-data structure this class fills.
    let sector = match unsafe { nt::get_info::<FILE_STORAGE_INFO>(handle, FileStorageInfo) } {
        Ok(info) => info.LogicalBytesPerSector as usize,
        Err(_) => 0,
    };
    if sector != 0 && !DIRECT_ALIGN.is_multiple_of(sector) {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!(
                "the volume's {sector}-byte sectors do not divide destbench's {DIRECT_ALIGN}-byte alignment"
            ),
        ));
    }
    Ok(())
}

/// Opens the directory at `path` (a path the user gave: links in it are theirs).
pub fn open_dir(path: &Path) -> io::Result<Handle> {
    let file = std::fs::OpenOptions::new()
        .access_mode(FILE_LIST_DIRECTORY | FILE_TRAVERSE | FILE_READ_ATTRIBUTES)
        .custom_flags(FILE_FLAG_BACKUP_SEMANTICS)
        .open(path)?;
    if !file.metadata()?.is_dir() {
        return Err(io::Error::from_raw_os_error(267));
    }
    Ok(file.into())
}

/// Creates the directory `name` inside `parent` (failing if anything by that name exists) and
/// opens it.
pub fn create_dir_exclusive(parent: HandleRef<'_>, name: &str) -> io::Result<Handle> {
    mkdir_in(parent, OsStr::new(name), 0o700)?;
    super::dir::open_dir_at(parent, OsStr::new(name))
}

/// Creates the directory `name` in the open directory `dir` (Windows has no mode to give it).
pub fn mkdir_in(dir: HandleRef<'_>, name: &OsStr, _mode: u32) -> io::Result<()> {
    nt::open(
        dir,
        name,
        Open {
            access: FILE_LIST_DIRECTORY,
            disposition: FILE_CREATE,
            options: FILE_DIRECTORY_FILE,
            refuse_links: false,
        },
    )
    .map(drop)
}

/// Creates the file `name` in the open directory `dir` for writing; it must not exist.
pub fn create_in(dir: HandleRef<'_>, name: &OsStr, _mode: u32) -> io::Result<File> {
    let handle = nt::open(
        dir,
        name,
        Open {
            access: FILE_GENERIC_READ | FILE_GENERIC_WRITE,
            disposition: FILE_CREATE,
            options: FILE_NON_DIRECTORY_FILE,
            refuse_links: false,
        },
    )?;
    Ok(File::from(handle))
}

/// Opens the file `name` in `dir` for reading and for setting its times, refusing a link.
pub fn open_read_in(dir: HandleRef<'_>, name: &OsStr) -> io::Result<Handle> {
    nt::open(
        dir,
        name,
        Open {
            access: FILE_GENERIC_READ | FILE_WRITE_ATTRIBUTES,
            disposition: FILE_OPEN,
            options: FILE_NON_DIRECTORY_FILE,
            refuse_links: true,
        },
    )
    .or_else(|_| {
        nt::open(
            dir,
            name,
            Open {
                access: FILE_GENERIC_READ,
                disposition: FILE_OPEN,
                options: FILE_NON_DIRECTORY_FILE,
                refuse_links: true,
            },
        )
    })
}

/// Removes the regular file `name` inside `dir`.
pub fn unlink_in(dir: HandleRef<'_>, name: &str) -> io::Result<()> {
    super::dir::unlink_at(dir, OsStr::new(name))
}

/// Renames `from` to `to` inside the open directory `dir`, replacing `to` (as `renameat`).
pub fn rename_in(dir: HandleRef<'_>, from: &OsStr, to: &OsStr) -> io::Result<()> {
    use std::os::windows::ffi::OsStrExt;
    let handle = nt::open(dir, from, Open::ENTRY_TO_DELETE)?;
    let name: Vec<u16> = to.encode_wide().collect();
    let header = std::mem::offset_of!(FILE_RENAME_INFO, FileName);
    // The name and a NUL after it, never less than the structure itself (Windows checks both).
    let size = (header + (name.len() + 1) * 2).max(size_of::<FILE_RENAME_INFO>());
    let mut buffer = vec![0u64; size.div_ceil(8) + 1];
    let info = buffer.as_mut_ptr().cast::<FILE_RENAME_INFO>();
    // SAFETY: `buffer` is 8-byte aligned and holds the header and the name after it.
    let status = unsafe {
        (*info).Anonymous.ReplaceIfExists = true;
        (*info).RootDirectory = dir.as_raw_handle();
        (*info).FileNameLength = (name.len() * 2) as u32;
        let dst = info.cast::<u8>().add(header).cast::<u16>();
        std::ptr::copy_nonoverlapping(name.as_ptr(), dst, name.len());
        // NtSetInformationFile directly: FILE_RENAME_INFO is FILE_RENAME_INFORMATION's layout,
        // and wine's SetFileInformationByHandle refuses a rename relative to a directory.
        let mut status_block: IO_STATUS_BLOCK = std::mem::zeroed();
        NtSetInformationFile(
            handle.as_raw_handle(),
            &mut status_block,
            info.cast(),
            size as u32,
            FileRenameInformation,
        )
    };
    if status < 0 {
        return Err(nt::from_status(status));
    }
    Ok(())
}

/// Opens the directory `rel` below the open directory `root`, one component at a time, never
/// through a junction or symlink and never out of `root`.
pub fn open_beneath(root: HandleRef<'_>, rel: &Path) -> io::Result<Handle> {
    let mut dir = super::dir::open_dir_at(root, OsStr::new(""))?;
    for part in rel.components() {
        match part {
            std::path::Component::Normal(name) => {
                dir = super::dir::open_dir_at(dir.handle_ref(), name)?;
            }
            std::path::Component::CurDir => {}
            _ => return Err(io::ErrorKind::InvalidInput.into()),
        }
    }
    Ok(dir)
}

fn overlapped_at(offset: u64) -> OVERLAPPED {
    // SAFETY: plain data; only the offset is set.
    let mut o: OVERLAPPED = unsafe { std::mem::zeroed() };
    o.Anonymous.Anonymous.Offset = offset as u32;
    o.Anonymous.Anonymous.OffsetHigh = (offset >> 32) as u32;
    o
}

/// One `ReadFile` or `WriteFile` of up to `len` bytes at `offset` (or at the file's position
/// when None): `call` is given the length, where to count the bytes moved and the OVERLAPPED,
/// and says whether it succeeded. The handle is synchronous: the call is done when it returns.
fn transfer(
    len: usize,
    offset: Option<u64>,
    call: impl FnOnce(u32, &mut u32, *mut OVERLAPPED) -> bool,
) -> io::Result<usize> {
    let mut overlapped = offset.map(overlapped_at);
    let ptr = overlapped
        .as_mut()
        .map_or(std::ptr::null_mut(), |o| o as *mut _);
    let len = u32::try_from(len).unwrap_or(u32::MAX);
    let mut done = 0u32;
    if !call(len, &mut done, ptr) {
        return Err(io::Error::last_os_error());
    }
    Ok(done as usize)
}

/// Reads at `offset` (or at the file's position when None); 0 at the end of the file.
fn read_file(handle: HandleRef<'_>, buf: &mut [u8], offset: Option<u64>) -> io::Result<usize> {
    let read = transfer(buf.len(), offset, |len, done, overlapped| {
        // SAFETY: `buf` is writable for `len` bytes (at most its length).
        unsafe {
            ReadFile(
                handle.as_raw_handle(),
                buf.as_mut_ptr(),
                len,
                done,
                overlapped,
            ) != 0
        }
    });
    match read {
        Err(e) if e.raw_os_error() == Some(ERROR_HANDLE_EOF as i32) => Ok(0),
        other => other,
    }
}

/// Writes at `offset` (or at the file's position when None).
fn write_file(handle: HandleRef<'_>, buf: &[u8], offset: Option<u64>) -> io::Result<usize> {
    transfer(buf.len(), offset, |len, done, overlapped| {
        // SAFETY: `buf` is readable for `len` bytes (at most its length).
        unsafe { WriteFile(handle.as_raw_handle(), buf.as_ptr(), len, done, overlapped) != 0 }
    })
}

/// Reads at `offset`; returns the number of bytes read (short at end of file).
pub fn pread(handle: HandleRef<'_>, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    read_file(handle, buf, Some(offset))
}

/// Writes at `offset`; returns the number of bytes written.
pub fn pwrite(handle: HandleRef<'_>, buf: &[u8], offset: u64) -> io::Result<usize> {
    write_file(handle, buf, Some(offset))
}

/// Reads the next bytes at the file's position; 0 at the end.
pub fn read(handle: HandleRef<'_>, buf: &mut [u8]) -> io::Result<usize> {
    read_file(handle, buf, None)
}

/// Writes all of `buf` at the file's position.
pub fn write_all(handle: HandleRef<'_>, mut buf: &[u8]) -> io::Result<()> {
    while !buf.is_empty() {
        match write_file(handle, buf, None)? {
            0 => return Err(io::ErrorKind::WriteZero.into()),
            n => buf = &buf[n..],
        }
    }
    Ok(())
}

/// Makes the file's data and metadata durable (`FlushFileBuffers`: also asks the drive to
/// flush its cache).
pub fn datasync(handle: HandleRef<'_>) -> io::Result<()> {
    // SAFETY: a live handle.
    if unsafe { FlushFileBuffers(handle.as_raw_handle()) } == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Makes the file durable: the same `FlushFileBuffers` (Windows has no lighter flush).
pub fn fsync(handle: HandleRef<'_>) -> io::Result<()> {
    datasync(handle)
}

/// Sets the file's length.
pub fn set_len(handle: HandleRef<'_>, len: u64) -> io::Result<()> {
    let info = FILE_END_OF_FILE_INFO {
        EndOfFile: len as i64,
    };
    nt::set_info(handle, FileEndOfFileInfo, &info)
}

/// Length of an open file.
pub fn file_len(handle: HandleRef<'_>) -> io::Result<u64> {
    Ok(super::dir::stat(handle)?.size)
}

/// How [`evict`] makes a file's next read reach the disk, for a report; Err: why it cannot here.
pub const EVICTION: Result<&str, &str> = Err("Windows cannot drop one file's cached pages");

/// Windows has no call that drops one file's cached pages: the cache-off tests use unbuffered
/// I/O instead, and a figure that needed eviction is refused, not measured.
pub fn evict(_handle: HandleRef<'_>) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "Windows cannot drop one file's cached pages",
    ))
}

/// Windows does not say which of a file's pages are cached.
pub fn resident_fraction(_handle: HandleRef<'_>, _len: u64) -> io::Result<f64> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "Windows does not say which pages of a file are cached",
    ))
}

/// Flushes what the filesystem holds for the directory `dir` (Windows flushes a whole volume
/// only through the volume's own handle, which needs an administrator).
pub fn syncfs(dir: HandleRef<'_>) -> io::Result<()> {
    datasync(dir_for_writing(dir)?.handle_ref())
}

/// The open directory `dir` again, with the rights to flush it and set its times (a directory
/// is opened for listing only, so that a read-only source can be read).
pub fn dir_for_writing(dir: HandleRef<'_>) -> io::Result<Handle> {
    use windows_sys::Win32::Storage::FileSystem::{FILE_ADD_FILE, FILE_ADD_SUBDIRECTORY};
    nt::open(
        dir,
        OsStr::new(""),
        Open {
            access: FILE_ADD_FILE | FILE_ADD_SUBDIRECTORY | FILE_WRITE_ATTRIBUTES,
            disposition: FILE_OPEN,
            options: FILE_DIRECTORY_FILE,
            refuse_links: false,
        },
    )
}

/// Converts an owned handle into a `File`.
pub fn into_file(handle: Handle) -> File {
    File::from(handle)
}

/// Windows has no in-memory filesystem of its own (RAM disks are drivers that look like disks).
pub fn is_memory_backed(_handle: HandleRef<'_>) -> io::Result<bool> {
    Ok(false)
}

/// Windows has no kernel pseudo-filesystems in its namespace of files.
pub fn pseudo_filesystem(_dir: HandleRef<'_>) -> io::Result<Option<&'static str>> {
    Ok(None)
}

/// 100 ns ticks between 1601-01-01 (`FILETIME`'s epoch) and 1970-01-01.
const EPOCH_TICKS: i64 = 116_444_736_000_000_000;

/// A `FILETIME` tick count as seconds and nanoseconds since 1970.
pub fn from_ticks(ticks: i64) -> (i64, u32) {
    let since = ticks - EPOCH_TICKS;
    (
        since.div_euclid(10_000_000),
        (since.rem_euclid(10_000_000) * 100) as u32,
    )
}

/// Seconds and nanoseconds since 1970 as a `FILETIME` tick count.
pub fn to_ticks((secs, nanos): (i64, u32)) -> i64 {
    secs * 10_000_000 + i64::from(nanos / 100) + EPOCH_TICKS
}

/// The open file's access and modification times, seconds and nanoseconds since 1970.
pub fn times(handle: HandleRef<'_>) -> io::Result<((i64, u32), (i64, u32))> {
    let info = super::dir::by_handle(handle)?;
    let ticks = |t: FILETIME| (i64::from(t.dwHighDateTime) << 32) | i64::from(t.dwLowDateTime);
    Ok((
        from_ticks(ticks(info.ftLastAccessTime)),
        from_ticks(ticks(info.ftLastWriteTime)),
    ))
}

/// Sets the open file's access and modification times (and leaves its other times).
pub fn set_times(
    handle: HandleRef<'_>,
    accessed: (i64, u32),
    modified: (i64, u32),
) -> io::Result<()> {
    // SAFETY: plain data; zero times mean "leave as it is".
    let mut info: FILE_BASIC_INFO = unsafe { std::mem::zeroed() };
    info.LastAccessTime = to_ticks(accessed);
    info.LastWriteTime = to_ticks(modified);
    nt::set_info(handle, FileBasicInfo, &info)
}
