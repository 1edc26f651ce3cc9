//! Windows: every name inside a tree is opened relative to an open directory's handle with
//! `NtCreateFile` (`RootDirectory`), the entry itself rather than what it points at
//! (`FILE_OPEN_REPARSE_POINT`), and a junction or symlink found there is refused: a directory
//! swapped for a junction mid-run is never followed, the promise `O_NOFOLLOW` keeps on Unix.

use std::ffi::OsStr;
use std::io;
use std::os::windows::ffi::OsStrExt;
use std::os::windows::io::{AsRawHandle, FromRawHandle};

use windows_sys::Wdk::Foundation::OBJECT_ATTRIBUTES;
use windows_sys::Wdk::Storage::FileSystem::{
    FILE_OPEN, FILE_OPEN_REPARSE_POINT, FILE_SYNCHRONOUS_IO_NONALERT, NtCreateFile,
};
use windows_sys::Win32::Foundation::{OBJ_CASE_INSENSITIVE, RtlNtStatusToDosError, UNICODE_STRING};
use windows_sys::Win32::Storage::FileSystem::{
    DELETE, FILE_ATTRIBUTE_REPARSE_POINT, FILE_ATTRIBUTE_TAG_INFO, FILE_READ_ATTRIBUTES,
    FILE_SHARE_DELETE, FILE_SHARE_READ, FILE_SHARE_WRITE, FileAttributeTagInfo,
    GetFileInformationByHandleEx, SYNCHRONIZE, SetFileInformationByHandle,
};
use windows_sys::Win32::System::IO::IO_STATUS_BLOCK;

use crate::platform::{AsHandleRef, Handle, HandleRef};

/// `ERROR_STOPPED_ON_SYMLINK`: what a refused junction or symlink fails with.
pub(super) const STOPPED_ON_LINK: i32 = 681;

/// How one name is opened: `NtCreateFile`'s access, disposition and options.
#[derive(Clone, Copy)]
pub(super) struct Open {
    pub access: u32,
    pub disposition: u32,
    pub options: u32,
    /// Refuse a junction or symlink by that name (false only to stat or remove the link itself).
    pub refuse_links: bool,
}

impl Open {
    /// The entry itself, to delete or rename it (a link as the link), its attributes readable.
    pub const ENTRY_TO_DELETE: Open = Open {
        access: DELETE | FILE_READ_ATTRIBUTES,
        disposition: FILE_OPEN,
        options: 0,
        refuse_links: false,
    };
}

/// Opens `name` (one component, or empty for `dir` itself) relative to `dir`.
pub(super) fn open(dir: HandleRef<'_>, name: &OsStr, how: Open) -> io::Result<Handle> {
    let wide: Vec<u16> = name.encode_wide().collect();
    if wide
        .iter()
        .any(|&c| c == u16::from(b'\\') || c == u16::from(b'/'))
        || name == ".."
        || name == "."
    {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not one name inside a directory", name.display()),
        ));
    }
    let bytes = u16::try_from(wide.len() * 2)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "name too long"))?;
    let object = UNICODE_STRING {
        Length: bytes,
        MaximumLength: bytes,
        Buffer: wide.as_ptr().cast_mut(),
    };
    let attributes = OBJECT_ATTRIBUTES {
        Length: size_of::<OBJECT_ATTRIBUTES>() as u32,
        RootDirectory: dir.as_raw_handle(),
        ObjectName: &object,
        Attributes: OBJ_CASE_INSENSITIVE,
        SecurityDescriptor: std::ptr::null(),
        SecurityQualityOfService: std::ptr::null(),
    };
    let mut raw = std::ptr::null_mut();
    // SAFETY: IO_STATUS_BLOCK is plain data that NtCreateFile fills.
    let mut status_block: IO_STATUS_BLOCK = unsafe { std::mem::zeroed() };
    // SAFETY: every pointer is to a live local (`object` and `wide` outlive the call); the
    // returned handle is owned by the `Handle` made below and by nothing else.
    let status = unsafe {
        NtCreateFile(
            &mut raw,
            how.access | SYNCHRONIZE,
            &attributes,
            &mut status_block,
            std::ptr::null(),
            0,
            FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
            how.disposition,
            how.options | FILE_SYNCHRONOUS_IO_NONALERT | FILE_OPEN_REPARSE_POINT,
            std::ptr::null(),
            0,
        )
    };
    if status < 0 {
        return Err(from_status(status));
    }
    // SAFETY: NtCreateFile succeeded, so `raw` is an open handle nobody else owns.
    let handle = unsafe { Handle::from_raw_handle(raw) };
    if how.refuse_links && is_link(&handle)? {
        return Err(io::Error::from_raw_os_error(STOPPED_ON_LINK));
    }
    Ok(handle)
}

/// An `NTSTATUS` failure as the Win32 error `io::Error` knows.
pub(super) fn from_status(status: i32) -> io::Error {
    // SAFETY: a pure conversion of a status code.
    io::Error::from_raw_os_error(unsafe { RtlNtStatusToDosError(status) } as i32)
}

/// The open entry's attributes and reparse tag (`FileAttributeTagInfo`).
pub(super) fn attribute_tag(handle: &Handle) -> io::Result<(u32, u32)> {
    // SAFETY: the plain-data structure this class fills.
    let info: FILE_ATTRIBUTE_TAG_INFO =
        unsafe { get_info(handle.handle_ref(), FileAttributeTagInfo)? };
    Ok((info.FileAttributes, info.ReparseTag))
}

/// Reads a piece of file information of type `T` (one `GetFileInformationByHandleEx` class).
///
/// # Safety
/// `T` is the plain-data structure that `class` fills (all zeros is a valid `T`).
pub(super) unsafe fn get_info<T>(handle: HandleRef<'_>, class: i32) -> io::Result<T> {
    // SAFETY: all zeros is a valid `T` (the caller's promise); the call fills it whole.
    let mut info: T = unsafe { std::mem::zeroed() };
    // SAFETY: `info` is the structure `class` fills, with its exact size.
    let ok = unsafe {
        GetFileInformationByHandleEx(
            handle.as_raw_handle(),
            class,
            (&raw mut info).cast(),
            size_of::<T>() as u32,
        )
    };
    if ok == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(info)
}

/// Sets a piece of file information of type `T` (one `SetFileInformationByHandle` class).
pub(super) fn set_info<T>(handle: HandleRef<'_>, class: i32, info: &T) -> io::Result<()> {
    // SAFETY: `info` is the structure `class` reads, with its exact size.
    let ok = unsafe {
        SetFileInformationByHandle(
            handle.as_raw_handle(),
            class,
            (info as *const T).cast(),
            size_of::<T>() as u32,
        )
    };
    if ok == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Whether the open entry is a junction or symlink: a reparse point whose tag is a name
/// surrogate (it names another place). Other reparse points (deduplicated or cloud files) are
/// files in their own right.
pub(super) fn is_link(handle: &Handle) -> io::Result<bool> {
    let (attributes, tag) = attribute_tag(handle)?;
    Ok(is_name_surrogate(attributes, tag))
}

/// `IsReparseTagNameSurrogate` on an entry's attributes and tag.
pub fn is_name_surrogate(attributes: u32, tag: u32) -> bool {
    attributes & FILE_ATTRIBUTE_REPARSE_POINT != 0 && tag & 0x2000_0000 != 0
}
