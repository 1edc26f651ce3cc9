//! Windows: the queries behind the chain, each answer kept with its error (a query Windows, or
//! wine, does not answer is a reason in the chain, never a guess). Decoding is `decode.rs`,
//! building the chain `chain.rs`; the drive letters for the list of volumes are read here too.

use std::ffi::OsString;
use std::io;
use std::os::windows::ffi::{OsStrExt, OsStringExt};
use std::os::windows::fs::OpenOptionsExt;
use std::os::windows::io::AsRawHandle;
use std::path::Path;
use std::time::Duration;

use windows_sys::Win32::NetworkManagement::IpHelper::{
    GetBestInterfaceEx, GetIfEntry2, MIB_IF_ROW2,
};
use windows_sys::Win32::NetworkManagement::WNet::WNetGetConnectionW;
use windows_sys::Win32::Storage::FileSystem::{
    FILE_FLAG_BACKUP_SEMANTICS, GetDriveTypeW, GetLogicalDriveStringsW,
    GetVolumeInformationByHandleW, GetVolumeNameForVolumeMountPointW, GetVolumePathNameW,
    IOCTL_VOLUME_GET_VOLUME_DISK_EXTENTS,
};
use windows_sys::Win32::System::Diagnostics::Debug::{SEM_FAILCRITICALERRORS, SetThreadErrorMode};
use windows_sys::Win32::System::Ioctl::{
    IOCTL_DISK_GET_CACHE_INFORMATION, IOCTL_STORAGE_QUERY_PROPERTY, PropertyStandardQuery,
    STORAGE_PROPERTY_QUERY, StorageAdapterProperty, StorageDeviceProperty,
    StorageDeviceSeekPenaltyProperty, StorageDeviceTrimProperty, StorageDeviceWriteCacheProperty,
};
use windows_sys::Win32::System::WindowsProgramming::{
    DRIVE_CDROM, DRIVE_FIXED, DRIVE_NO_ROOT_DIR, DRIVE_RAMDISK, DRIVE_REMOTE, DRIVE_REMOVABLE,
};

use crate::platform::device_io_control;

use super::chain::{Below, Disk, Interface, Remote, Volume};
use super::decode;
use super::volumes::{Drive, DriveKind};

fn wide(s: &std::ffi::OsStr) -> Vec<u16> {
    s.encode_wide().chain(Some(0)).collect()
}

fn from_wide(buffer: &[u16]) -> String {
    let end = buffer.iter().position(|&c| c == 0).unwrap_or(buffer.len());
    OsString::from_wide(&buffer[..end])
        .to_string_lossy()
        .into_owned()
}

/// What every query of `path`'s volume answered.
pub fn volume(path: &Path) -> io::Result<Volume> {
    let dir = std::fs::OpenOptions::new()
        .access_mode(0)
        .custom_flags(FILE_FLAG_BACKUP_SEMANTICS)
        .open(path)?;
    let mut root = [0u16; 1024];
    // SAFETY: a NUL-terminated path and an output buffer of the length passed.
    if unsafe { GetVolumePathNameW(wide(path.as_os_str()).as_ptr(), root.as_mut_ptr(), 1024) } == 0
    {
        return Err(io::Error::last_os_error());
    }
    let root = decode::plain_root(&from_wide(&root));
    let (filesystem, label) = match volume_information(&dir) {
        Ok((fs, label)) => (Ok(fs), (!label.is_empty()).then_some(label)),
        Err(e) => (Err(e.to_string()), None),
    };
    let below = match remote_of(&root) {
        Some(unc) => Below::Remote(remote(&unc)),
        None => Below::Disks(disks(&root).map_err(|e| e.to_string())),
    };
    Ok(Volume {
        path: path.to_path_buf(),
        root,
        filesystem,
        label,
        below,
    })
}

/// The filesystem's name and the volume's label.
fn volume_information(dir: &std::fs::File) -> io::Result<(String, String)> {
    let (mut label, mut fs) = ([0u16; 261], [0u16; 261]);
    // SAFETY: a live handle and output buffers of the lengths passed.
    let ok = unsafe {
        GetVolumeInformationByHandleW(
            dir.as_raw_handle(),
            label.as_mut_ptr(),
            261,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            fs.as_mut_ptr(),
            261,
        )
    };
    if ok == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((from_wide(&fs), from_wide(&label)))
}

/// `\\server\share` when the volume is remote: a UNC root, or a drive letter mapped to one.
fn remote_of(root: &str) -> Option<String> {
    if root.starts_with(r"\\") && !root.starts_with(r"\\?\Volume") {
        return Some(root.trim_end_matches('\\').to_string());
    }
    let name = wide(std::ffi::OsStr::new(root));
    // SAFETY: a NUL-terminated root path.
    if unsafe { GetDriveTypeW(name.as_ptr()) } != DRIVE_REMOTE {
        return None;
    }
    let drive = wide(std::ffi::OsStr::new(root.trim_end_matches('\\')));
    let mut unc = [0u16; 1024];
    let mut len = 1024u32;
    // SAFETY: a NUL-terminated drive name and an output buffer of `len` characters.
    let rc = unsafe { WNetGetConnectionW(drive.as_ptr(), unc.as_mut_ptr(), &mut len) };
    (rc == 0).then(|| from_wide(&unc))
}

fn remote(unc: &str) -> Remote {
    let (server, share) = decode::unc_server_share(unc).unwrap_or_default();
    Remote {
        unc: unc.to_string(),
        smb: smb_connection(&server, &share),
        interface: interface_to(&server),
        server,
        share,
    }
}

/// This share's SMB connection, from `Get-SmbConnection` (the SMB client's own list; no
/// Win32 call gives the dialect).
fn smb_connection(server: &str, share: &str) -> Result<decode::SmbConnection, String> {
    let script = format!(
        "Get-SmbConnection -ServerName '{}' | Select-Object ServerName,ShareName,Dialect,Encrypted,Signed | ConvertTo-Json",
        server.replace('\'', "''")
    );
    let out = std::process::Command::new("powershell")
        .args(["-NoProfile", "-NonInteractive", "-Command", &script])
        .output()
        .map_err(|e| format!("powershell: {e}"))?;
    let connections = decode::smb_connections(&String::from_utf8_lossy(&out.stdout))?;
    connections
        .into_iter()
        .find(|c| c.share_name.eq_ignore_ascii_case(share))
        .ok_or_else(|| format!("Get-SmbConnection lists no connection to {share}"))
}

/// The interface Windows routes to `server` through, and its link speed.
fn interface_to(server: &str) -> Result<Interface, String> {
    use std::net::ToSocketAddrs;
    use windows_sys::Win32::Networking::WinSock::SOCKADDR;
    let addr = (server, 445)
        .to_socket_addrs()
        .map_err(|e| format!("resolving {server}: {e}"))?
        .next()
        .ok_or_else(|| format!("{server} resolves to no address"))?;
    let raw = socket_address(addr);
    let mut index = 0u32;
    // SAFETY: a sockaddr of its family's size, and an index to fill.
    let rc = unsafe { GetBestInterfaceEx(raw.as_ptr().cast::<SOCKADDR>(), &mut index) };
    if rc != 0 {
        return Err(format!(
            "GetBestInterfaceEx: {}",
            io::Error::from_raw_os_error(rc as i32)
        ));
    }
    // SAFETY: plain data; the index selects the row GetIfEntry2 fills.
    let mut row: MIB_IF_ROW2 = unsafe { std::mem::zeroed() };
    row.InterfaceIndex = index;
    // SAFETY: a row with its index set.
    let rc = unsafe { GetIfEntry2(&mut row) };
    if rc != 0 {
        return Err(format!(
            "GetIfEntry2: {}",
            io::Error::from_raw_os_error(rc as i32)
        ));
    }
    Ok(Interface {
        alias: from_wide(&row.Alias),
        description: from_wide(&row.Description),
        if_type: row.Type,
        transmit_bps: row.TransmitLinkSpeed,
    })
}

/// A socket address laid out as `SOCKADDR_IN` / `SOCKADDR_IN6` (network byte order), in u64s
/// so it is aligned.
fn socket_address(addr: std::net::SocketAddr) -> [u64; 4] {
    let mut bytes = [0u8; 32];
    match addr {
        std::net::SocketAddr::V4(v4) => {
            bytes[..2].copy_from_slice(&2u16.to_le_bytes());
            bytes[2..4].copy_from_slice(&v4.port().to_be_bytes());
            bytes[4..8].copy_from_slice(&v4.ip().octets());
        }
        std::net::SocketAddr::V6(v6) => {
            bytes[..2].copy_from_slice(&23u16.to_le_bytes());
            bytes[2..4].copy_from_slice(&v6.port().to_be_bytes());
            bytes[8..24].copy_from_slice(&v6.ip().octets());
            bytes[24..28].copy_from_slice(&v6.scope_id().to_le_bytes());
        }
    }
    let mut out = [0u64; 4];
    for (i, chunk) in bytes.chunks_exact(8).enumerate() {
        out[i] = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
    }
    out
}

/// Opens a device (`\\.\PhysicalDrive2`, `\\?\Volume{..}`) for queries only: no access rights
/// are needed to ask its properties.
fn open_device(name: &str) -> io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .access_mode(0)
        .share_mode(7)
        .open(name)
}

/// The disks under the volume at `root`.
fn disks(root: &str) -> io::Result<Vec<Disk>> {
    let mut name = [0u16; 64];
    let input = wide(std::ffi::OsStr::new(root));
    // SAFETY: NUL-terminated input, an output buffer of the length passed.
    if unsafe { GetVolumeNameForVolumeMountPointW(input.as_ptr(), name.as_mut_ptr(), 64) } == 0 {
        return Err(io::Error::last_os_error());
    }
    let volume = open_device(from_wide(&name).trim_end_matches('\\'))?;
    let bytes = device_io_control(
        &volume,
        IOCTL_VOLUME_GET_VOLUME_DISK_EXTENTS,
        &[],
        8 + 24 * 32,
    )?;
    let extents = decode::disk_extents(&bytes).map_err(io::Error::other)?;
    let mut numbers: Vec<u32> = extents.iter().map(|e| e.disk).collect();
    numbers.dedup();
    Ok(numbers.into_iter().map(disk).collect())
}

fn disk(number: u32) -> Disk {
    let device = open_device(&format!(r"\\.\PhysicalDrive{number}")).map_err(|e| e.to_string());
    let query = |id: i32| -> Result<Vec<u8>, String> {
        let device = device.as_ref().map_err(Clone::clone)?;
        let q = STORAGE_PROPERTY_QUERY {
            PropertyId: id,
            QueryType: PropertyStandardQuery,
            AdditionalParameters: [0],
        };
        // SAFETY: the query is plain data; its bytes are what the ioctl reads.
        let input = unsafe {
            std::slice::from_raw_parts(
                (&raw const q).cast::<u8>(),
                size_of::<STORAGE_PROPERTY_QUERY>(),
            )
        };
        device_io_control(device, IOCTL_STORAGE_QUERY_PROPERTY, input, 1024)
            .map_err(|e| e.to_string())
    };
    let cache = query(StorageDeviceWriteCacheProperty)
        .and_then(|b| decode::write_cache(&b))
        .or_else(|first| older_cache_query(number).map_err(|_| first));
    Disk {
        number,
        device: query(StorageDeviceProperty).and_then(|b| decode::device(&b)),
        adapter: query(StorageAdapterProperty).and_then(|b| decode::adapter(&b)),
        seek_penalty: query(StorageDeviceSeekPenaltyProperty)
            .and_then(|b| decode::seek_penalty(&b)),
        trim: query(StorageDeviceTrimProperty).and_then(|b| decode::trim(&b)),
        cache,
    }
}

/// `IOCTL_DISK_GET_CACHE_INFORMATION`, for drivers that do not answer the write-cache property
/// (it needs read access to the disk: an administrator).
fn older_cache_query(number: u32) -> Result<decode::WriteCacheProperty, String> {
    let device = std::fs::OpenOptions::new()
        .read(true)
        .share_mode(7)
        .open(format!(r"\\.\PhysicalDrive{number}"))
        .map_err(|e| e.to_string())?;
    let bytes = device_io_control(&device, IOCTL_DISK_GET_CACHE_INFORMATION, &[], 24)
        .map_err(|e| e.to_string())?;
    Ok(decode::WriteCacheProperty {
        cache: decode::disk_cache_information(&bytes)?,
        changeable: None,
        flush_supported: true,
        flushes_ignored: false,
    })
}

/// How long the drives may take to say whether they can be written: a mapped drive whose
/// server is gone holds `GetVolumeInformationW` for half a minute.
const DRIVE_PATIENCE: Duration = Duration::from_secs(2);

/// Every drive letter, with its kind and whether its volume is read-only (None for a drive
/// that does not answer within [`DRIVE_PATIENCE`]).
pub fn drives() -> Vec<Drive> {
    crate::probe::replies_within(drive_roots(), DRIVE_PATIENCE, |root: &String| {
        read_only(Path::new(root))
    })
    .into_iter()
    .map(|(root, answer)| Drive {
        kind: drive_kind(&root),
        read_only: answer.flatten(),
        root,
    })
    .collect()
}

/// `C:\`, `D:\`...: the roots `GetLogicalDriveStringsW` lists, NUL-separated.
fn drive_roots() -> Vec<String> {
    let mut list = [0u16; 512];
    // SAFETY: an output buffer of the length passed.
    let len = unsafe { GetLogicalDriveStringsW(list.len() as u32, list.as_mut_ptr()) };
    // 0 is a failure, more than the buffer the length it would need: 26 letters fit in 105.
    let Some(list) = list.get(..len as usize) else {
        return Vec::new();
    };
    list.split(|&c| c == 0)
        .filter(|root| !root.is_empty())
        .map(from_wide)
        .collect()
}

fn drive_kind(root: &str) -> DriveKind {
    let name = wide(std::ffi::OsStr::new(root));
    // SAFETY: a NUL-terminated root path.
    match unsafe { GetDriveTypeW(name.as_ptr()) } {
        DRIVE_NO_ROOT_DIR => DriveKind::NoRootDir,
        DRIVE_REMOVABLE => DriveKind::Removable,
        DRIVE_FIXED => DriveKind::Fixed,
        DRIVE_REMOTE => DriveKind::Remote,
        DRIVE_CDROM => DriveKind::CdRom,
        DRIVE_RAMDISK => DriveKind::RamDisk,
        _ => DriveKind::Unknown,
    }
}

/// Whether the volume at `root` is read-only (`FILE_READ_ONLY_VOLUME`, as the platform's
/// write check reads it); None when it does not answer.
fn read_only(root: &Path) -> Option<bool> {
    // A card reader without a card would otherwise have Windows ask the user for one.
    // SAFETY: sets this thread's error mode; the old mode is not wanted.
    unsafe { SetThreadErrorMode(SEM_FAILCRITICALERRORS, std::ptr::null_mut()) };
    match crate::platform::check_writable(root) {
        Ok(()) => Some(false),
        Err(e) if e.kind() == io::ErrorKind::ReadOnlyFilesystem => Some(true),
        Err(_) => None,
    }
}
