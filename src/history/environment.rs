//! What a stored run remembers about where it ran: the host, the kernel, and the destination's
//! identity (filesystem type and UUID, the device with its model and serial), so that months
//! later "run 12" still says which drive it was.
//!
//! The identity comes from the chain the probe recorded before the run (the run document's
//! `chain`); nothing is probed again after the run. Host and kernel come from the platform: an
//! empty answer gives `None`, never an error, because storing a run must not fail over a
//! nice-to-have. They are a parameter so tests can name a machine of their own.

use super::record::{Environment, Filesystem};
use crate::platform;
use crate::probe::{Chain, Key, NodeKind};

/// The machine a run is stored on: its host name and kernel release.
#[derive(Debug, Clone)]
pub struct Machine {
    pub host: Option<String>,
    pub kernel: Option<String>,
}

impl Machine {
    /// This machine.
    pub fn this() -> Machine {
        let known = |text: String| {
            let text = text.trim();
            (!text.is_empty()).then(|| text.to_string())
        };
        Machine {
            host: known(platform::hostname()),
            kernel: known(platform::kernel_release()),
        }
    }
}

/// The environment of a run whose destination has `chain` (None when it could not be probed).
pub fn collect(machine: &Machine, chain: Option<&Chain>) -> Environment {
    let mut env = Environment {
        host: machine.host.clone(),
        kernel: machine.kernel.clone(),
        destbench_version: crate::version::VERSION.to_string(),
        ..Environment::default()
    };
    if let Some(chain) = chain {
        identify(&mut env, chain);
    }
    env
}

/// The destination's identity from its chain: the mount (the root) names the filesystem, its
/// UUID and its source; the first whole disk below it names the device's model and serial.
fn identify(env: &mut Environment, chain: &Chain) {
    let fact = |kind: NodeKind, key: Key| {
        chain
            .nodes()
            .into_iter()
            .filter(|n| n.kind == kind)
            .find_map(|n| n.get(key)?.as_text())
            .map(str::to_string)
    };
    env.filesystem = Filesystem {
        fs_type: fact(NodeKind::Mount, Key::Filesystem),
        fs_uuid: fact(NodeKind::Mount, Key::Uuid),
    };
    // Network and virtual filesystems name a server (`//nas/share`) or nothing as their source.
    env.device = fact(NodeKind::Mount, Key::MountedFrom).filter(|s| s.starts_with("/dev/"));
    env.device_model = fact(NodeKind::Disk, Key::Model);
    env.device_serial = fact(NodeKind::Disk, Key::Serial);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::{Node, Value};

    #[test]
    fn identity_from_the_chain_and_host_from_the_machine() {
        let machine = Machine {
            host: Some("box".into()),
            kernel: Some("6.1.0-test".into()),
        };
        let mut mount = Node::new(NodeKind::Mount, "exfat at /media/backup from /dev/sdb1");
        mount.fact(Value::Filesystem("exfat".into()), "/proc/self/mountinfo");
        mount.fact(
            Value::MountedFrom("/dev/sdb1".into()),
            "/proc/self/mountinfo",
        );
        mount.fact(Value::Uuid("1234-ABCD".into()), "/run/udev/data/b8:17");
        let mut disk = Node::new(NodeKind::Disk, "disk sdb: My Passport");
        disk.fact(
            Value::Model("My Passport".into()),
            "/sys/block/sdb/device/model",
        );
        disk.fact(Value::Serial("WX12".into()), "/run/udev/data/b8:16");
        let mut partition = Node::new(NodeKind::Partition, "partition sdb1");
        partition.children.push(disk);
        mount.children.push(partition);
        let chain = Chain {
            path: "/media/backup".into(),
            root: mount,
            notes: Vec::new(),
        };
        let env = collect(&machine, Some(&chain));
        assert_eq!(env.host.as_deref(), Some("box"));
        assert_eq!(env.kernel.as_deref(), Some("6.1.0-test"));
        assert_eq!(env.filesystem.fs_type.as_deref(), Some("exfat"));
        assert_eq!(env.device.as_deref(), Some("/dev/sdb1"));
        assert_eq!(env.filesystem.fs_uuid.as_deref(), Some("1234-ABCD"));
        assert_eq!(env.device_serial.as_deref(), Some("WX12"));
        assert_eq!(env.device_model.as_deref(), Some("My Passport"));

        let nas = Node::new(NodeKind::Mount, "cifs at /mnt from //nas/share");
        let mut nas_chain = chain.clone();
        nas_chain.root = nas;
        nas_chain.root.fact(
            Value::MountedFrom("//nas/share".into()),
            "/proc/self/mountinfo",
        );
        let env = collect(&machine, Some(&nas_chain));
        assert!(env.device.is_none() && env.device_model.is_none());
        assert!(collect(&machine, None).filesystem.fs_type.is_none());
    }

    #[test]
    fn this_machine_has_a_host_and_a_kernel() {
        let this = Machine::this();
        assert_eq!(this.host.unwrap_or_default(), platform::hostname().trim());
        assert!(this.kernel.is_some());
    }
}
