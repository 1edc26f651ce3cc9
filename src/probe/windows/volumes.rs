//! The drives worth offering as destinations on Windows (`destbench ui`'s list): fixed,
//! removable and network drives whose volume answers and can be written. Pure: `live.rs`
//! reads the drives.

use std::path::PathBuf;

/// What `GetDriveTypeW` says a drive is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriveKind {
    Unknown,
    /// The root is not a mounted volume.
    NoRootDir,
    Removable,
    Fixed,
    Remote,
    CdRom,
    RamDisk,
}

/// One drive letter, as Windows describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Drive {
    /// `C:\`, as `GetLogicalDriveStringsW` lists it.
    pub root: String,
    pub kind: DriveKind,
    /// `FILE_READ_ONLY_VOLUME` among `GetVolumeInformationW`'s flags; None when the volume did
    /// not answer (a card reader without a card, a mapped drive whose server is gone).
    pub read_only: Option<bool>,
}

/// The roots of the drives worth testing, in the drive letters' order.
pub fn worth_offering(drives: &[Drive]) -> Vec<PathBuf> {
    drives
        .iter()
        .filter(|d| {
            matches!(
                d.kind,
                DriveKind::Fixed | DriveKind::Removable | DriveKind::Remote
            )
        })
        .filter(|d| d.read_only == Some(false))
        .map(|d| PathBuf::from(&d.root))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drive(root: &str, kind: DriveKind, read_only: Option<bool>) -> Drive {
        Drive {
            root: root.into(),
            kind,
            read_only,
        }
    }

    #[test]
    fn keeps_the_writable_fixed_removable_and_network_drives() {
        use DriveKind::*;
        // A desktop: the NTFS system drive, a DVD drive with a disc in it (CDFS and UDF report
        // FILE_READ_ONLY_VOLUME), an exFAT USB disk, an SD card reader without a card, a
        // second disk whose volume is set read-only, a RAM disk, a mapped share and a mapped
        // share whose server is off.
        let drives = [
            drive(r"C:\", Fixed, Some(false)),
            drive(r"D:\", CdRom, Some(true)),
            drive(r"E:\", Removable, Some(false)),
            drive(r"F:\", Removable, None),
            drive(r"G:\", Fixed, Some(true)),
            drive(r"R:\", RamDisk, Some(false)),
            drive(r"Y:\", Remote, None),
            drive(r"Z:\", Remote, Some(false)),
        ];
        assert_eq!(
            worth_offering(&drives),
            [r"C:\", r"E:\", r"Z:\"].map(PathBuf::from)
        );
    }

    /// The live list holds this machine's system drive, fixed and writable: the drive letters,
    /// their kinds and their flags are read as Windows gives them.
    #[cfg(windows)]
    #[test]
    fn the_live_list_holds_the_system_drive() {
        let system = std::env::var("SystemDrive").unwrap_or_else(|_| "C:".into()) + "\\";
        let drives = super::super::live::drives();
        assert!(
            drives.contains(&drive(&system, DriveKind::Fixed, Some(false))),
            "{system} in {drives:?}"
        );
        assert!(worth_offering(&drives).contains(&PathBuf::from(&system)));
    }
}
