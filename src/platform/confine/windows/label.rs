//! The scratch directories' mandatory label: set Low through a handle that may set it, on
//! the directory only, and read back.

use std::ffi::OsStr;
use std::io;
use std::os::windows::ffi::OsStrExt;
use std::os::windows::fs::OpenOptionsExt;
use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle, RawHandle};

use windows_sys::Win32::Foundation::{HLOCAL, LocalFree};
use windows_sys::Win32::Security::Authorization::{
    ConvertSecurityDescriptorToStringSecurityDescriptorW,
    ConvertStringSecurityDescriptorToSecurityDescriptorW, GetSecurityInfo, SDDL_REVISION_1,
    SE_FILE_OBJECT,
};
use windows_sys::Win32::Security::{
    LABEL_SECURITY_INFORMATION, PSECURITY_DESCRIPTOR, SetKernelObjectSecurity,
};
use windows_sys::Win32::Storage::FileSystem::{
    FILE_FLAG_BACKUP_SEMANTICS, FILE_FLAG_OPEN_REPARSE_POINT, FILE_READ_ATTRIBUTES,
    FILE_SHARE_DELETE, FILE_SHARE_READ, FILE_SHARE_WRITE, READ_CONTROL, ReOpenFile, WRITE_OWNER,
};

use super::super::Writable;
use super::LOW_LABEL_ACE;
use crate::platform::HandleRef;

/// Whether the open `dir` is on a network filesystem (its volume's device is remote).
pub(super) fn on_network(dir: HandleRef<'_>) -> Result<bool, String> {
    use windows_sys::Wdk::Storage::FileSystem::{
        FileFsDeviceInformation, NtQueryVolumeInformationFile,
    };
    use windows_sys::Wdk::System::SystemServices::{
        FILE_FS_DEVICE_INFORMATION, FILE_REMOTE_DEVICE,
    };
    use windows_sys::Win32::System::IO::IO_STATUS_BLOCK;
    const FILE_DEVICE_NETWORK_FILE_SYSTEM: u32 = 0x14;
    let mut info = FILE_FS_DEVICE_INFORMATION::default();
    // SAFETY: plain data that the call fills.
    let mut status_block: IO_STATUS_BLOCK = unsafe { std::mem::zeroed() };
    // SAFETY: an open handle lent for the call, and structures of the class named, with the
    // size of the one it fills.
    let status = unsafe {
        NtQueryVolumeInformationFile(
            dir.as_raw_handle(),
            &mut status_block,
            (&raw mut info).cast(),
            size_of_val(&info) as u32,
            FileFsDeviceInformation,
        )
    };
    if status < 0 {
        return Err(format!("asking its volume's device: NTSTATUS {status:#x}"));
    }
    Ok(info.Characteristics & FILE_REMOTE_DEVICE != 0
        || info.DeviceType == FILE_DEVICE_NETWORK_FILE_SYSTEM)
}

/// Labels the directory of `w` with `label`, through a handle of its own that may set a label
/// (`WRITE_OWNER`), and checks the label is there. The label is set on the directory only,
/// never spread to what is in it, so no link inside leads it elsewhere.
pub(super) fn label_low(w: &Writable<'_>, label: &LocalBox) -> Result<(), String> {
    let dir = relabeller(w)?;
    // SAFETY: a handle open with WRITE_OWNER and a security descriptor holding a label SACL.
    if unsafe { SetKernelObjectSecurity(dir.as_raw_handle(), LABEL_SECURITY_INFORMATION, label.0) }
        == 0
    {
        return Err(io::Error::last_os_error().to_string());
    }
    let now = label_of(&dir).map_err(|e| format!("reading the label back: {e}"))?;
    if !is_low_label(&now) {
        return Err(format!("the label did not take (it reads {now:?})"));
    }
    Ok(())
}

/// A handle of `w`'s directory that may set its label: the open handle reopened with that
/// access, or else the path opened again (never through a link at its end) and checked to be
/// the same directory as the handle.
fn relabeller(w: &Writable<'_>) -> Result<OwnedHandle, String> {
    const ACCESS: u32 = WRITE_OWNER | READ_CONTROL | FILE_READ_ATTRIBUTES;
    const FLAGS: u32 = FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT;
    // SAFETY: an open handle lent for the call; the call returns a new handle or
    // INVALID_HANDLE_VALUE.
    let reopened = unsafe {
        ReOpenFile(
            w.dir.as_raw_handle(),
            ACCESS,
            FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
            FLAGS,
        )
    };
    if reopened != windows_sys::Win32::Foundation::INVALID_HANDLE_VALUE && !reopened.is_null() {
        // SAFETY: a handle just opened, owned by nothing else.
        return Ok(unsafe { OwnedHandle::from_raw_handle(reopened) });
    }
    let opened = std::fs::OpenOptions::new()
        .access_mode(ACCESS)
        .custom_flags(FLAGS)
        .open(w.path)
        .map_err(|e| format!("opening it to set its label: {e}"))?;
    let opened = OwnedHandle::from(opened);
    if !same_object(w.dir, opened.as_raw_handle())? {
        return Err("it was replaced since it was opened".to_string());
    }
    Ok(opened)
}

/// Whether `a` and `b` are handles of one file or directory: its volume and file index.
fn same_object(a: HandleRef<'_>, b: RawHandle) -> Result<bool, String> {
    // SAFETY: `b` is a handle open for the caller's whole call, which outlives this borrow.
    let b = unsafe { std::os::windows::io::BorrowedHandle::borrow_raw(b) };
    let id = |h| {
        crate::platform::stat(h)
            .map(|s| (s.device, s.inode))
            .map_err(|e| format!("identifying it: {e}"))
    };
    Ok(id(a)? == id(b)?)
}

/// The mandatory label of the open `dir`, as SDDL ("S:(ML;OICI;NW;;;LW)"; "" when it has none).
fn label_of(dir: &OwnedHandle) -> io::Result<String> {
    let mut descriptor: PSECURITY_DESCRIPTOR = std::ptr::null_mut();
    // SAFETY: a handle open with READ_CONTROL; only the descriptor is asked for, which the
    // call allocates with LocalAlloc (freed by LocalBox).
    let error = unsafe {
        GetSecurityInfo(
            dir.as_raw_handle(),
            SE_FILE_OBJECT,
            LABEL_SECURITY_INFORMATION,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            &mut descriptor,
        )
    };
    if error != 0 {
        return Err(io::Error::from_raw_os_error(error as i32));
    }
    let descriptor = LocalBox(descriptor);
    let mut text: *mut u16 = std::ptr::null_mut();
    // SAFETY: a descriptor the system made; the string is allocated with LocalAlloc.
    if unsafe {
        ConvertSecurityDescriptorToStringSecurityDescriptorW(
            descriptor.0,
            SDDL_REVISION_1,
            LABEL_SECURITY_INFORMATION,
            &mut text,
            std::ptr::null_mut(),
        )
    } == 0
    {
        return Err(io::Error::last_os_error());
    }
    let text = LocalBox(text.cast());
    // SAFETY: the call wrote a NUL-terminated wide string there.
    Ok(unsafe { wide_to_string(text.0.cast()) })
}

/// Whether `sddl` (a label, as Windows writes it) holds the Low, no-write-up, inherited label.
pub(super) fn is_low_label(sddl: &str) -> bool {
    sddl.strip_prefix("S:")
        .is_some_and(|aces| aces.contains(LOW_LABEL_ACE))
}

/// The NUL-terminated wide string at `p`, lossily.
///
/// # Safety
/// `p` points to a NUL-terminated wide string.
unsafe fn wide_to_string(p: *const u16) -> String {
    let mut len = 0;
    // SAFETY: the string is NUL-terminated (the caller's promise): no read passes the NUL.
    while unsafe { *p.add(len) } != 0 {
        len += 1;
    }
    // SAFETY: `len` elements before the NUL, all read above.
    String::from_utf16_lossy(unsafe { std::slice::from_raw_parts(p, len) })
}

/// Memory the system allocated with LocalAlloc (a security descriptor, a string), freed on drop.
pub(super) struct LocalBox(*mut core::ffi::c_void);

impl LocalBox {
    /// The self-relative security descriptor `sddl` describes.
    pub(super) fn security_descriptor(sddl: &str) -> io::Result<LocalBox> {
        let text: Vec<u16> = OsStr::new(sddl).encode_wide().chain(Some(0)).collect();
        let mut descriptor: PSECURITY_DESCRIPTOR = std::ptr::null_mut();
        // SAFETY: a NUL-terminated wide string and a pointer to fill; the size is not asked.
        if unsafe {
            ConvertStringSecurityDescriptorToSecurityDescriptorW(
                text.as_ptr(),
                SDDL_REVISION_1,
                &mut descriptor,
                std::ptr::null_mut(),
            )
        } == 0
        {
            return Err(io::Error::last_os_error());
        }
        Ok(LocalBox(descriptor))
    }
}

impl Drop for LocalBox {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: memory the system allocated with LocalAlloc, freed once, here.
            unsafe { LocalFree(self.0 as HLOCAL) };
        }
    }
}
