//! udev's database (`/run/udev/data/bMAJOR:MINOR`): what sysfs does not say about a block
//! device, read once with the rest of the chain so that nothing needs to look again after the
//! run (the history keeps a run's filesystem UUID and device serial from here).

use std::path::Path;

use super::SysRoots;

/// The value of property `key` (`E:KEY=value`) in udev's record of block device
/// `major:minor`, with the file it came from; None when there is no record or no such line.
pub fn property(roots: &SysRoots, dev: &str, key: &str) -> Option<(String, String)> {
    let file = roots.udev_data.join(format!("b{dev}"));
    let text = std::fs::read_to_string(&file).ok()?;
    let value = text.lines().find_map(|line| {
        line.strip_prefix("E:")?
            .strip_prefix(key)?
            .strip_prefix('=')
            .filter(|v| !v.is_empty())
    })?;
    Some((value.to_string(), shown(roots, &file)))
}

/// The first of `keys` that udev's record has.
pub fn first_property(roots: &SysRoots, dev: &str, keys: &[&str]) -> Option<(String, String)> {
    keys.iter().find_map(|key| property(roots, dev, key))
}

fn shown(roots: &SysRoots, file: &Path) -> String {
    match file.strip_prefix(&roots.udev_data) {
        Ok(rel) => format!("/run/udev/data/{}", rel.display()),
        Err(_) => file.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_of_a_record() {
        let dir = tempfile::tempdir().unwrap();
        let roots = SysRoots::fixture(dir.path());
        std::fs::create_dir_all(&roots.udev_data).unwrap();
        std::fs::write(
            roots.udev_data.join("b8:17"),
            "S:disk/by-uuid/1234-ABCD\nE:ID_FS_UUID=1234-ABCD\nE:ID_SERIAL=WD_X_WX12\nE:ID_SERIAL_SHORT=\n",
        )
        .unwrap();
        assert_eq!(
            property(&roots, "8:17", "ID_FS_UUID"),
            Some(("1234-ABCD".into(), "/run/udev/data/b8:17".into()))
        );
        assert_eq!(
            first_property(&roots, "8:17", &["ID_SERIAL_SHORT", "ID_SERIAL"]).map(|p| p.0),
            Some("WD_X_WX12".into())
        );
        assert!(property(&roots, "8:18", "ID_FS_UUID").is_none());
    }
}
