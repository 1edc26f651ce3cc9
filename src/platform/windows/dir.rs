//! Windows: directories listed, stat'ed, opened and removed relative to an open directory's
//! handle (see `nt.rs`), a junction or symlink never entered.

use std::ffi::{OsStr, OsString};
use std::io;
use std::os::windows::ffi::OsStringExt;
use std::os::windows::io::AsRawHandle;

use windows_sys::Wdk::Storage::FileSystem::{FILE_DIRECTORY_FILE, FILE_OPEN};
use windows_sys::Win32::Storage::FileSystem::{
    BY_HANDLE_FILE_INFORMATION, DELETE, FILE_ATTRIBUTE_DIRECTORY, FILE_DISPOSITION_INFO,
    FILE_ID_BOTH_DIR_INFO, FILE_LIST_DIRECTORY, FILE_READ_ATTRIBUTES, FILE_TRAVERSE,
    FileDispositionInfo, FileIdBothDirectoryInfo, FileIdBothDirectoryRestartInfo,
    GetFileInformationByHandle, GetFileInformationByHandleEx,
};

use super::nt::{self, Open};
use crate::platform::{AsHandleRef, DirEntry, FileKind, Handle, HandleRef, Stat};

/// What a directory is opened with: listed, traversed (as a root for names in it), stat'ed.
const DIR_ACCESS: u32 = FILE_LIST_DIRECTORY | FILE_TRAVERSE | FILE_READ_ATTRIBUTES;

/// Opens the directory `name` in `parent`; a junction or symlink fails with
/// `ERROR_STOPPED_ON_SYMLINK`, a file with `ERROR_DIRECTORY`.
pub(in crate::platform) fn open_dir_at(parent: HandleRef<'_>, name: &OsStr) -> io::Result<Handle> {
    nt::open(
        parent,
        name,
        Open {
            access: DIR_ACCESS,
            disposition: FILE_OPEN,
            options: FILE_DIRECTORY_FILE,
            refuse_links: true,
        },
    )
}

/// Whether an error of [`open_dir_at`] means the name is there but is no directory to enter
/// (a link or a file), which a removal removes as it is.
pub(in crate::platform) fn is_link_or_file(e: &io::Error) -> bool {
    const ERROR_DIRECTORY: i32 = 267;
    matches!(
        e.raw_os_error(),
        Some(nt::STOPPED_ON_LINK | ERROR_DIRECTORY)
    )
}

/// Opens the directory `name` in the open directory `parent`, never following a junction.
pub fn open_dir_in(parent: HandleRef<'_>, name: &OsStr) -> io::Result<Handle> {
    open_dir_at(parent, name)
}

/// The entries of the open directory `dir`, `.` and `..` left out. The listing has a handle of
/// its own, so two listings of one directory never share a position.
pub fn read_dir(dir: HandleRef<'_>) -> io::Result<Entries> {
    Ok(Entries {
        dir: open_dir_at(dir, OsStr::new(""))?,
        buffer: vec![0u64; 8192],
        at: None,
        first: true,
    })
}

/// A directory listing in progress (from [`read_dir`]).
pub struct Entries {
    dir: Handle,
    /// `u64`s so that the records (8-byte aligned) are aligned.
    buffer: Vec<u64>,
    /// The next record's byte offset in `buffer`, while one is left.
    at: Option<usize>,
    first: bool,
}

impl Entries {
    /// Fills the buffer with the next batch; false at the end.
    fn fill(&mut self) -> io::Result<bool> {
        const ERROR_NO_MORE_FILES: i32 = 18;
        let class = if self.first {
            FileIdBothDirectoryRestartInfo
        } else {
            FileIdBothDirectoryInfo
        };
        self.first = false;
        // SAFETY: the buffer is writable for its whole length, which is what is passed.
        let ok = unsafe {
            GetFileInformationByHandleEx(
                self.dir.as_raw_handle(),
                class,
                self.buffer.as_mut_ptr().cast(),
                (self.buffer.len() * 8) as u32,
            )
        };
        if ok == 0 {
            let e = io::Error::last_os_error();
            return match e.raw_os_error() {
                Some(ERROR_NO_MORE_FILES) => Ok(false),
                _ => Err(e),
            };
        }
        self.at = Some(0);
        Ok(true)
    }

    /// The record at the current offset, and moves past it.
    fn take(&mut self) -> Option<(OsString, u32, u32)> {
        let at = self.at?;
        let bytes: &[u8] = bytemuck_bytes(&self.buffer);
        let record = parse_record(&bytes[at..])?;
        self.at = (record.next != 0).then_some(at + record.next as usize);
        Some((record.name, record.attributes, record.tag))
    }
}

/// The buffer's bytes.
fn bytemuck_bytes(words: &[u64]) -> &[u8] {
    // SAFETY: any u64 slice is a valid u8 slice of eight times its length.
    unsafe { std::slice::from_raw_parts(words.as_ptr().cast(), words.len() * 8) }
}

/// One `FILE_ID_BOTH_DIR_INFO` record: where the next starts, the name, attributes, and the
/// reparse tag (which the record's `EaSize` holds for a reparse point).
struct Record {
    next: u32,
    name: OsString,
    attributes: u32,
    tag: u32,
}

fn parse_record(bytes: &[u8]) -> Option<Record> {
    let u32_at = |offset: usize| -> Option<u32> {
        Some(u32::from_le_bytes(
            bytes.get(offset..offset + 4)?.try_into().ok()?,
        ))
    };
    let next = u32_at(std::mem::offset_of!(FILE_ID_BOTH_DIR_INFO, NextEntryOffset))?;
    let attributes = u32_at(std::mem::offset_of!(FILE_ID_BOTH_DIR_INFO, FileAttributes))?;
    let name_len = u32_at(std::mem::offset_of!(FILE_ID_BOTH_DIR_INFO, FileNameLength))? as usize;
    let tag = u32_at(std::mem::offset_of!(FILE_ID_BOTH_DIR_INFO, EaSize))?;
    let start = std::mem::offset_of!(FILE_ID_BOTH_DIR_INFO, FileName);
    let units: Vec<u16> = bytes
        .get(start..start + name_len)?
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    Some(Record {
        next,
        name: OsString::from_wide(&units),
        attributes,
        tag,
    })
}

impl Iterator for Entries {
    type Item = io::Result<DirEntry>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.at.is_none() {
                match self.fill() {
                    Ok(true) => {}
                    Ok(false) => return None,
                    Err(e) => return Some(Err(e)),
                }
            }
            let Some((name, attributes, tag)) = self.take() else {
                continue;
            };
            if name != "." && name != ".." {
                return Some(Ok(DirEntry {
                    name,
                    kind: kind_of(attributes, tag),
                }));
            }
        }
    }
}

/// What an entry is, from its attributes and reparse tag.
pub(in crate::platform) fn kind_of(attributes: u32, tag: u32) -> FileKind {
    if nt::is_name_surrogate(attributes, tag) {
        FileKind::Symlink
    } else if attributes & FILE_ATTRIBUTE_DIRECTORY != 0 {
        FileKind::Dir
    } else {
        FileKind::File
    }
}

/// `name` in the open directory `dir` as it is (a junction or symlink is not followed).
pub fn stat_in(dir: HandleRef<'_>, name: &OsStr) -> io::Result<Stat> {
    let handle = nt::open(
        dir,
        name,
        Open {
            access: FILE_READ_ATTRIBUTES,
            disposition: FILE_OPEN,
            options: 0,
            refuse_links: false,
        },
    )?;
    stat(crate::platform::AsHandleRef::handle_ref(&handle))
}

/// The open file or directory.
pub fn stat(handle: HandleRef<'_>) -> io::Result<Stat> {
    let info = by_handle(handle)?;
    let tag = if info.dwFileAttributes
        & windows_sys::Win32::Storage::FileSystem::FILE_ATTRIBUTE_REPARSE_POINT
        != 0
    {
        nt::attribute_tag(&handle.try_clone_to_owned()?)?.1
    } else {
        0
    };
    Ok(Stat {
        kind: kind_of(info.dwFileAttributes, tag),
        size: u64::from(info.nFileSizeHigh) << 32 | u64::from(info.nFileSizeLow),
        device: u64::from(info.dwVolumeSerialNumber),
        inode: u64::from(info.nFileIndexHigh) << 32 | u64::from(info.nFileIndexLow),
        links: u64::from(info.nNumberOfLinks),
    })
}

/// `GetFileInformationByHandle` of an open handle.
pub(in crate::platform) fn by_handle(
    handle: HandleRef<'_>,
) -> io::Result<BY_HANDLE_FILE_INFORMATION> {
    // SAFETY: plain data that the call fills.
    let mut info: BY_HANDLE_FILE_INFORMATION = unsafe { std::mem::zeroed() };
    // SAFETY: a live handle and a structure of the type the call writes.
    if unsafe { GetFileInformationByHandle(handle.as_raw_handle(), &mut info) } == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(info)
}

/// Removes the empty directory `name` in the open directory `parent`.
pub fn remove_dir_in(parent: HandleRef<'_>, name: &OsStr) -> io::Result<()> {
    let how = Open {
        access: DELETE,
        disposition: FILE_OPEN,
        options: FILE_DIRECTORY_FILE,
        refuse_links: false,
    };
    delete(&nt::open(parent, name, how)?)
}

/// Removes the non-directory `name` in the open directory `parent` (a junction or symlink is
/// removed as the link it is).
pub(in crate::platform) fn unlink_at(parent: HandleRef<'_>, name: &OsStr) -> io::Result<()> {
    let handle = nt::open(parent, name, Open::ENTRY_TO_DELETE)?;
    let (attributes, tag) = nt::attribute_tag(&handle)?;
    if kind_of(attributes, tag) == FileKind::Dir {
        return Err(io::ErrorKind::IsADirectory.into());
    }
    delete(&handle)
}

/// Marks the open entry for deletion; it goes when its last handle closes (now, as we hold it).
fn delete(handle: &Handle) -> io::Result<()> {
    let info = FILE_DISPOSITION_INFO { DeleteFile: true };
    nt::set_info(handle.handle_ref(), FileDispositionInfo, &info)
}
