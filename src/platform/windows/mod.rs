//! Windows: the seam's functions with `windows-sys` (see `src/platform/mod.rs` for what each is).
//! Files and directories in `file.rs` and `dir.rs`, relative opens in `nt.rs`; here what asks
//! the system about itself.

pub(super) mod dir;
mod file;
mod job;
mod memory;
mod nt;
#[cfg(test)]
mod tests;

use std::io;
use std::os::windows::ffi::{OsStrExt, OsStringExt};
use std::os::windows::io::AsRawHandle;
use std::path::Path;

use windows_sys::Win32::Foundation::{CloseHandle, FILETIME, HANDLE, STILL_ACTIVE};
use windows_sys::Win32::Security::{
    GetTokenInformation, TOKEN_ELEVATION, TOKEN_QUERY, TokenElevation,
};
use windows_sys::Win32::Storage::FileSystem::{
    GetDiskFreeSpaceExW, GetFileAttributesW, GetVolumeInformationW, GetVolumePathNameW,
    INVALID_FILE_ATTRIBUTES,
};
use windows_sys::Win32::System::IO::DeviceIoControl;
use windows_sys::Win32::System::ProcessStatus::{K32GetProcessMemoryInfo, PROCESS_MEMORY_COUNTERS};
use windows_sys::Win32::System::SystemInformation::{ComputerNameDnsHostname, GetComputerNameExW};
use windows_sys::Win32::System::Threading::{
    GetCurrentProcess, GetCurrentThread, GetExitCodeProcess, GetProcessTimes, OpenProcess,
    OpenProcessToken, PROCESS_QUERY_LIMITED_INFORMATION, SetThreadPriority,
    THREAD_MODE_BACKGROUND_BEGIN,
};

pub use file::*;
pub use job::Job;
#[cfg(test)]
pub use memory::is_huge;
pub use memory::{map_huge, unmap_huge};

/// Whether this process runs under wine: its ntdll exports `wine_get_version`. Wine keeps the
/// host's page cache under every file and passes `FILE_FLAG_NO_BUFFERING` to no host file
/// (measured: 2.1 GB/s "unbuffered" writes on a disk that `dd oflag=direct` writes at 387 MB/s).
pub fn under_wine() -> bool {
    use windows_sys::Win32::System::LibraryLoader::{GetModuleHandleW, GetProcAddress};
    let ntdll = wide(Path::new("ntdll.dll"));
    // SAFETY: a NUL-terminated module name and a NUL-terminated symbol name.
    unsafe {
        let module = GetModuleHandleW(ntdll.as_ptr());
        !module.is_null() && GetProcAddress(module, c"wine_get_version".as_ptr().cast()).is_some()
    }
}

/// A path as a NUL-terminated wide string for the `W` calls.
fn wide(path: &Path) -> Vec<u16> {
    path.as_os_str().encode_wide().chain(Some(0)).collect()
}

/// Windows has no call that drops the file cache (the standby list is emptied only by a
/// privileged, undocumented call); a run that would need it says so.
pub fn drop_caches() -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "Windows has no documented call that empties its file cache",
    ))
}

/// Nor one that drops cached directory entries.
pub fn drop_inode_caches() -> io::Result<()> {
    drop_caches()
}

/// Bytes available to this user on the volume holding `path` (quotas included).
pub fn available_space(path: &Path) -> io::Result<u64> {
    let mut free = 0u64;
    // SAFETY: a NUL-terminated path and a u64 to fill; the other outputs are optional.
    let ok = unsafe {
        GetDiskFreeSpaceExW(
            wide(path).as_ptr(),
            &mut free,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    };
    if ok == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(free)
}

/// The used bytes of the volume holding `path`; Windows has no cheap count of its files.
pub fn volume_usage(path: &Path) -> io::Result<super::VolumeUsage> {
    let (mut total, mut free) = (0u64, 0u64);
    // SAFETY: a NUL-terminated path and two u64s to fill; the caller's quota output is optional.
    let ok = unsafe {
        GetDiskFreeSpaceExW(
            wide(path).as_ptr(),
            std::ptr::null_mut(),
            &mut total,
            &mut free,
        )
    };
    if ok == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(super::VolumeUsage {
        used_bytes: total.saturating_sub(free),
        used_files: None,
    })
}

/// The size of the volume holding `path`, in bytes (what Time Machine sizes its bands by).
pub fn filesystem_size(path: &Path) -> io::Result<u64> {
    let mut total = 0u64;
    // SAFETY: a NUL-terminated path and a u64 to fill; the other outputs are optional.
    let ok = unsafe {
        GetDiskFreeSpaceExW(
            wide(path).as_ptr(),
            std::ptr::null_mut(),
            &mut total,
            std::ptr::null_mut(),
        )
    };
    if ok == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(total)
}

/// How direct I/O is asked for here.
pub const DIRECT_IO: &str = "FILE_FLAG_NO_BUFFERING";

/// What direct I/O means here, for the run's access note.
pub const DIRECT_NOTE: &str = "FILE_FLAG_NO_BUFFERING | FILE_FLAG_WRITE_THROUGH accepted: reads and writes bypass the system cache; writes are durable by FlushFileBuffers";

/// Background mode lowers the thread's own I/O priority: the I/O manager throttles it, whatever
/// the disk's scheduler.
pub const THREAD_IO_THROTTLE: Option<&str> = Some("THREAD_MODE_BACKGROUND_BEGIN");

/// What [`fsync`] is here, as results record it.
pub const FULL_FLUSH: &str = "FlushFileBuffers";

/// True when the process runs elevated (an administrator's full token).
pub fn is_root() -> bool {
    let mut token: HANDLE = std::ptr::null_mut();
    // SAFETY: the pseudo-handle of this process and a handle to fill, closed below.
    if unsafe { OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &mut token) } == 0 {
        return false;
    }
    let mut elevation = TOKEN_ELEVATION { TokenIsElevated: 0 };
    let mut len = 0u32;
    // SAFETY: the structure this class fills, with its exact size.
    let ok = unsafe {
        GetTokenInformation(
            token,
            TokenElevation,
            (&raw mut elevation).cast(),
            size_of::<TOKEN_ELEVATION>() as u32,
            &mut len,
        )
    };
    // SAFETY: the token handle opened above, closed once.
    unsafe { CloseHandle(token) };
    ok != 0 && elevation.TokenIsElevated != 0
}

/// CPU time (user + kernel) used so far by the whole process, all threads included.
pub fn process_cpu_time() -> std::time::Duration {
    // SAFETY: this process's pseudo-handle, valid for as long as the process lives.
    unsafe { cpu_time_of(GetCurrentProcess()) }.unwrap_or_default()
}

/// CPU time (user + kernel) a process has used (all its threads), from its handle; None where
/// Windows does not say.
///
/// # Safety
/// `process` must be a process handle open for the call, with query rights.
pub unsafe fn cpu_time_of(process: HANDLE) -> Option<std::time::Duration> {
    let zero = FILETIME {
        dwLowDateTime: 0,
        dwHighDateTime: 0,
    };
    let (mut created, mut exited, mut kernel, mut user) = (zero, zero, zero, zero);
    // SAFETY: a process handle open for the call (the caller's promise) and four FILETIMEs.
    let ok = unsafe { GetProcessTimes(process, &mut created, &mut exited, &mut kernel, &mut user) };
    // FILETIME counts 100 ns.
    let ticks = |t: FILETIME| (u64::from(t.dwHighDateTime) << 32) | u64::from(t.dwLowDateTime);
    (ok != 0).then(|| std::time::Duration::from_nanos((ticks(kernel) + ticks(user)) * 100))
}

/// The process's peak working set, in bytes.
pub fn peak_rss() -> Option<u64> {
    // SAFETY: plain data that the call fills.
    let mut counters: PROCESS_MEMORY_COUNTERS = unsafe { std::mem::zeroed() };
    let size = size_of::<PROCESS_MEMORY_COUNTERS>() as u32;
    counters.cb = size;
    // SAFETY: this process's pseudo-handle and a structure of the size passed.
    let ok = unsafe { K32GetProcessMemoryInfo(GetCurrentProcess(), &mut counters, size) };
    (ok != 0).then_some(counters.PeakWorkingSetSize as u64)
}

/// Windows has no file-creation mask.
pub fn umask() -> u32 {
    0
}

/// Puts the calling thread in background mode (`THREAD_MODE_BACKGROUND_BEGIN`): its I/O and
/// memory priority drop to very low, as backup programs run. The thread keeps it until it ends.
pub fn set_background_io_priority() -> io::Result<()> {
    // SAFETY: the calling thread's pseudo-handle.
    if unsafe { SetThreadPriority(GetCurrentThread(), THREAD_MODE_BACKGROUND_BEGIN) } == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// This machine's DNS host name (what a leftover's marker is compared with).
pub fn hostname() -> String {
    let mut buffer = [0u16; 256];
    let mut len = buffer.len() as u32;
    // SAFETY: a buffer of `len` wide characters, which the call fills and updates `len` for.
    let ok = unsafe { GetComputerNameExW(ComputerNameDnsHostname, buffer.as_mut_ptr(), &mut len) };
    if ok == 0 {
        return String::new();
    }
    std::ffi::OsString::from_wide(&buffer[..len as usize])
        .to_string_lossy()
        .into_owned()
}

/// The running Windows version ("10.0.22631"), as a stored run remembers it.
pub fn kernel_release() -> String {
    use windows_sys::Win32::System::SystemInformation::OSVERSIONINFOW;
    // SAFETY: plain data that RtlGetVersion fills once its size is set.
    let mut info: OSVERSIONINFOW = unsafe { std::mem::zeroed() };
    info.dwOSVersionInfoSize = size_of::<OSVERSIONINFOW>() as u32;
    // SAFETY: a structure of the size it says.
    unsafe { windows_sys::Wdk::System::SystemServices::RtlGetVersion(&mut info) };
    format!(
        "{}.{}.{}",
        info.dwMajorVersion, info.dwMinorVersion, info.dwBuildNumber
    )
}

/// Ok when `path` exists and may be written: not a read-only file, not on a read-only volume.
pub fn check_writable(path: &Path) -> io::Result<()> {
    use windows_sys::Win32::Storage::FileSystem::FILE_ATTRIBUTE_READONLY;
    const FILE_READ_ONLY_VOLUME: u32 = 0x0008_0000;
    let name = wide(path);
    // SAFETY: a NUL-terminated path.
    let attributes = unsafe { GetFileAttributesW(name.as_ptr()) };
    if attributes == INVALID_FILE_ATTRIBUTES {
        return Err(io::Error::last_os_error());
    }
    let is_dir =
        attributes & windows_sys::Win32::Storage::FileSystem::FILE_ATTRIBUTE_DIRECTORY != 0;
    if !is_dir && attributes & FILE_ATTRIBUTE_READONLY != 0 {
        return Err(io::ErrorKind::PermissionDenied.into());
    }
    let mut volume = [0u16; 512];
    let mut flags = 0u32;
    // SAFETY: NUL-terminated input, output buffers of the lengths passed.
    let ok = unsafe {
        GetVolumePathNameW(name.as_ptr(), volume.as_mut_ptr(), volume.len() as u32) != 0
            && GetVolumeInformationW(
                volume.as_ptr(),
                std::ptr::null_mut(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                &mut flags,
                std::ptr::null_mut(),
                0,
            ) != 0
    };
    if ok && flags & FILE_READ_ONLY_VOLUME != 0 {
        return Err(io::ErrorKind::ReadOnlyFilesystem.into());
    }
    Ok(())
}

/// Whether the process `pid` is still running (another user's process counts).
pub fn process_exists(pid: u32) -> bool {
    const ERROR_ACCESS_DENIED: i32 = 5;
    // SAFETY: asks for a handle to query; closed below.
    let process = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) };
    if process.is_null() {
        return io::Error::last_os_error().raw_os_error() == Some(ERROR_ACCESS_DENIED);
    }
    let mut code = 0u32;
    // SAFETY: the handle opened above, closed once.
    let ok = unsafe { GetExitCodeProcess(process, &mut code) };
    // SAFETY: as above.
    unsafe { CloseHandle(process) };
    ok != 0 && code == STILL_ACTIVE as u32
}

/// One `DeviceIoControl` on `device` with `input`, and the bytes it returned (at most `size`;
/// none asked for, no output buffer is passed).
pub fn device_io_control(
    device: &std::fs::File,
    code: u32,
    input: &[u8],
    size: usize,
) -> io::Result<Vec<u8>> {
    let mut out = vec![0u64; size.div_ceil(8)];
    let out_ptr = if out.is_empty() {
        std::ptr::null_mut()
    } else {
        out.as_mut_ptr().cast()
    };
    let mut returned = 0u32;
    // SAFETY: input and output buffers of the lengths passed; a synchronous handle.
    let ok = unsafe {
        DeviceIoControl(
            device.as_raw_handle(),
            code,
            input.as_ptr().cast(),
            input.len() as u32,
            out_ptr,
            (out.len() * 8) as u32,
            &mut returned,
            std::ptr::null_mut(),
        )
    };
    if ok == 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: any u64 buffer is readable as bytes.
    let bytes = unsafe { std::slice::from_raw_parts(out.as_ptr().cast::<u8>(), out.len() * 8) };
    Ok(bytes[..returned as usize].to_vec())
}
