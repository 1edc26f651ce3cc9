//! The structures Windows' storage queries return, decoded from their bytes (layouts of
//! `winioctl.h` on 64-bit Windows). Pure: compiled and tested on every system against
//! fixtures of the real structures (`tests/fixtures/windows/`).

/// What reading a structure found wrong with it.
fn short(what: &str, len: usize, need: usize) -> String {
    format!("{what}: {len} bytes, fewer than the {need} its layout needs")
}

fn u8_at(b: &[u8], at: usize) -> Option<u8> {
    b.get(at).copied()
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// The NUL-terminated ASCII string at `offset` (0 means none), trimmed: drives pad their
/// names with spaces.
fn string_at(b: &[u8], offset: u32) -> Option<String> {
    if offset == 0 {
        return None;
    }
    let rest = b.get(offset as usize..)?;
    let end = rest.iter().position(|&c| c == 0).unwrap_or(rest.len());
    let s = String::from_utf8_lossy(&rest[..end]).trim().to_string();
    (!s.is_empty()).then_some(s)
}

/// `STORAGE_BUS_TYPE`: the bus a disk is on, as its port driver says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bus {
    Scsi,
    Atapi,
    Ata,
    Ieee1394,
    Fibre,
    Usb,
    Raid,
    Iscsi,
    Sas,
    Sata,
    Sd,
    Mmc,
    Virtual,
    FileBackedVirtual,
    Spaces,
    Nvme,
    Other(u32),
}

impl Bus {
    pub fn from_raw(raw: u32) -> Bus {
        match raw {
            1 => Bus::Scsi,
            2 => Bus::Atapi,
            3 => Bus::Ata,
            4 => Bus::Ieee1394,
            6 => Bus::Fibre,
            7 => Bus::Usb,
            8 => Bus::Raid,
            9 => Bus::Iscsi,
            10 => Bus::Sas,
            11 => Bus::Sata,
            12 => Bus::Sd,
            13 => Bus::Mmc,
            14 => Bus::Virtual,
            15 => Bus::FileBackedVirtual,
            16 => Bus::Spaces,
            17 => Bus::Nvme,
            other => Bus::Other(other),
        }
    }

    pub fn name(self) -> String {
        match self {
            Bus::Scsi => "SCSI".into(),
            Bus::Atapi => "ATAPI".into(),
            Bus::Ata => "ATA".into(),
            Bus::Ieee1394 => "IEEE 1394".into(),
            Bus::Fibre => "Fibre Channel".into(),
            Bus::Usb => "USB".into(),
            Bus::Raid => "RAID".into(),
            Bus::Iscsi => "iSCSI".into(),
            Bus::Sas => "SAS".into(),
            Bus::Sata => "SATA".into(),
            Bus::Sd => "SD".into(),
            Bus::Mmc => "MMC".into(),
            Bus::Virtual => "virtual".into(),
            Bus::FileBackedVirtual => "file-backed virtual (VHD)".into(),
            Bus::Spaces => "Storage Spaces".into(),
            Bus::Nvme => "NVMe".into(),
            Bus::Other(raw) => format!("bus type {raw}"),
        }
    }
}

/// `STORAGE_DEVICE_DESCRIPTOR` (`StorageDeviceProperty`): who the disk is and its bus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Device {
    pub vendor: Option<String>,
    pub product: Option<String>,
    pub revision: Option<String>,
    pub serial: Option<String>,
    pub removable: bool,
    pub command_queueing: bool,
    pub bus: Bus,
}

pub fn device(b: &[u8]) -> Result<Device, String> {
    const NEED: usize = 36;
    let field = |at| u32_at(b, at).ok_or_else(|| short("STORAGE_DEVICE_DESCRIPTOR", b.len(), NEED));
    let (vendor, product, revision, serial) = (field(12)?, field(16)?, field(20)?, field(24)?);
    Ok(Device {
        vendor: string_at(b, vendor),
        product: string_at(b, product),
        revision: string_at(b, revision),
        serial: string_at(b, serial),
        removable: u8_at(b, 10).is_some_and(|v| v != 0),
        command_queueing: u8_at(b, 11).is_some_and(|v| v != 0),
        bus: Bus::from_raw(field(28)?),
    })
}

/// `STORAGE_ADAPTER_DESCRIPTOR` (`StorageAdapterProperty`): the controller the disk hangs off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Adapter {
    /// The largest transfer the adapter takes in one request, in bytes.
    pub max_transfer: u32,
    pub bus: Bus,
    pub bus_major: u16,
    pub bus_minor: u16,
}

pub fn adapter(b: &[u8]) -> Result<Adapter, String> {
    let err = || short("STORAGE_ADAPTER_DESCRIPTOR", b.len(), 32);
    Ok(Adapter {
        max_transfer: u32_at(b, 8).ok_or_else(err)?,
        bus: Bus::from_raw(u8_at(b, 24).ok_or_else(err)?.into()),
        bus_major: u16_at(b, 26).ok_or_else(err)?,
        bus_minor: u16_at(b, 28).ok_or_else(err)?,
    })
}

/// `DEVICE_SEEK_PENALTY_DESCRIPTOR`: true for a spinning disk.
pub fn seek_penalty(b: &[u8]) -> Result<bool, String> {
    u8_at(b, 8)
        .map(|v| v != 0)
        .ok_or_else(|| short("DEVICE_SEEK_PENALTY_DESCRIPTOR", b.len(), 9))
}

/// `DEVICE_TRIM_DESCRIPTOR`: whether the disk takes TRIM (unmap).
pub fn trim(b: &[u8]) -> Result<bool, String> {
    u8_at(b, 8)
        .map(|v| v != 0)
        .ok_or_else(|| short("DEVICE_TRIM_DESCRIPTOR", b.len(), 9))
}

/// Whether the device's volatile write cache is on: what Device Manager's "Enable write
/// caching on the device" sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteCache {
    Enabled,
    Disabled,
    /// The device has none (or says write-through only).
    None,
    Unknown,
}

/// `STORAGE_WRITE_CACHE_PROPERTY` (`StorageDeviceWriteCacheProperty`): the cache's state, and
/// whether a flush reaches the medium.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteCacheProperty {
    pub cache: WriteCache,
    /// The user may switch it (Device Manager's checkbox is not greyed out).
    pub changeable: Option<bool>,
    pub flush_supported: bool,
    /// "Turn off Windows write-cache buffer flushing on the device" is ticked: flushes are
    /// dropped, so "durable" writes are not.
    pub flushes_ignored: bool,
}

pub fn write_cache(b: &[u8]) -> Result<WriteCacheProperty, String> {
    let err = || short("STORAGE_WRITE_CACHE_PROPERTY", b.len(), 27);
    let kind = u32_at(b, 8).ok_or_else(err)?;
    let enabled = u32_at(b, 12).ok_or_else(err)?;
    let cache = match (kind, enabled) {
        (1 | 3, _) => WriteCache::None,
        (_, 1) => WriteCache::Disabled,
        (_, 2) => WriteCache::Enabled,
        _ => WriteCache::Unknown,
    };
    let changeable = match u32_at(b, 16).ok_or_else(err)? {
        1 => Some(false),
        2 => Some(true),
        _ => None,
    };
    Ok(WriteCacheProperty {
        cache,
        changeable,
        flush_supported: u8_at(b, 24).ok_or_else(err)? != 0,
        flushes_ignored: u8_at(b, 25).ok_or_else(err)? != 0,
    })
}

/// `DISK_CACHE_INFORMATION` (`IOCTL_DISK_GET_CACHE_INFORMATION`): the older query, for disks
/// whose driver does not answer the property above.
pub fn disk_cache_information(b: &[u8]) -> Result<WriteCache, String> {
    let enabled = u8_at(b, 2).ok_or_else(|| short("DISK_CACHE_INFORMATION", b.len(), 24))?;
    Ok(if enabled != 0 {
        WriteCache::Enabled
    } else {
        WriteCache::Disabled
    })
}

/// One `DISK_EXTENT` of `VOLUME_DISK_EXTENTS`: a run of the volume on a physical disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extent {
    pub disk: u32,
    pub offset: u64,
    pub length: u64,
}

/// `VOLUME_DISK_EXTENTS` (`IOCTL_VOLUME_GET_VOLUME_DISK_EXTENTS`): the disks under a volume
/// (several for a spanned, striped or mirrored volume).
pub fn disk_extents(b: &[u8]) -> Result<Vec<Extent>, String> {
    let count = u32_at(b, 0).ok_or_else(|| short("VOLUME_DISK_EXTENTS", b.len(), 8))? as usize;
    let need = 8 + count * 24;
    if b.len() < need {
        return Err(short("VOLUME_DISK_EXTENTS", b.len(), need));
    }
    Ok((0..count)
        .filter_map(|i| {
            let at = 8 + i * 24;
            Some(Extent {
                disk: u32_at(b, at)?,
                offset: u64_at(b, at + 8)?,
                length: u64_at(b, at + 16)?,
            })
        })
        .collect())
}

/// One SMB connection as `Get-SmbConnection | ConvertTo-Json` lists it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct SmbConnection {
    pub server_name: String,
    pub share_name: String,
    pub dialect: String,
    #[serde(default)]
    pub encrypted: bool,
    #[serde(default)]
    pub signed: bool,
}

/// The connections of `Get-SmbConnection | ConvertTo-Json`: an array, or one object alone when
/// there is one connection (PowerShell unwraps single results).
pub fn smb_connections(json: &str) -> Result<Vec<SmbConnection>, String> {
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        Many(Vec<SmbConnection>),
        One(SmbConnection),
    }
    match serde_json::from_str::<OneOrMany>(json.trim()) {
        Ok(OneOrMany::Many(v)) => Ok(v),
        Ok(OneOrMany::One(c)) => Ok(vec![c]),
        Err(e) if json.trim().is_empty() => Err(format!("no SMB connections listed ({e})")),
        Err(e) => Err(format!("Get-SmbConnection's JSON: {e}")),
    }
}

/// `\\server\share` (or `\\?\UNC\server\share\...`) split into server and share.
pub fn unc_server_share(unc: &str) -> Option<(String, String)> {
    let rest = unc
        .strip_prefix(r"\\?\UNC\")
        .or_else(|| unc.strip_prefix(r"\\"))?;
    let mut parts = rest.split('\\').filter(|p| !p.is_empty());
    let server = parts.next()?.to_string();
    let share = parts.next()?.to_string();
    Some((server, share))
}

/// A volume root without the verbatim prefix a canonical path carries: `\\?\E:\` is `E:\`,
/// `\\?\UNC\server\share\` is `\\server\share\`; a `\\?\Volume{..}\` root stays as it is.
pub fn plain_root(root: &str) -> String {
    match root.strip_prefix(r"\\?\") {
        Some(rest) if rest.starts_with(r"UNC\") => format!(r"\\{}", &rest[4..]),
        Some(rest) if rest.as_bytes().get(1) == Some(&b':') => rest.to_string(),
        _ => root.to_string(),
    }
}
