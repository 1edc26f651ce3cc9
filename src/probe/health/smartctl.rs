//! Running smartctl: found where each system installs it, never through a shell, never with a
//! password prompt, and given a few seconds; through a USB bridge, with the pass-through types
//! the bridge's maker uses when smartctl's own detection does not know it.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::SmartGap;
use super::smart::{Reading, parse};

/// How long one smartctl call may take: a disk that answers takes well under a second; a
/// bridge that hangs is given up on.
const PATIENCE: Duration = Duration::from_secs(8);

/// The smartctl a run calls (a test gives canned answers).
pub trait Smartctl {
    /// smartctl's JSON of `device`, read with `-d device_type` when given.
    fn json(&self, device: &str, device_type: Option<&str>) -> Result<String, SmartGap>;
}

/// This machine's smartctl: `DESTBENCH_SMARTCTL` when set, else the first found on `PATH` or in
/// the places each system installs it.
pub struct Live;

impl Smartctl for Live {
    fn json(&self, device: &str, device_type: Option<&str>) -> Result<String, SmartGap> {
        let program = program()
            .filter(|p| p.is_file())
            .ok_or_else(|| SmartGap::NotInstalled {
                install: INSTALL.to_string(),
            })?;
        let mut command = Command::new(program);
        // `-n standby`: a sleeping disk is not woken (its spin-up alone would cost seconds).
        command.args(["--json=c", "-n", "standby", "-a"]);
        if let Some(t) = device_type {
            command.args(["-d", t]);
        }
        command.arg(device);
        output_within(command, PATIENCE)
    }
}

/// How to install smartctl here.
#[cfg(target_os = "linux")]
const INSTALL: &str =
    "install the smartmontools package: apt install smartmontools, dnf install smartmontools";
#[cfg(target_os = "macos")]
const INSTALL: &str = "brew install smartmontools";
#[cfg(windows)]
const INSTALL: &str =
    "winget install smartmontools.smartmontools, or smartmontools' Windows installer";
#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
const INSTALL: &str = "install smartmontools";

/// Where smartctl is, if anywhere.
fn program() -> Option<PathBuf> {
    if let Some(given) = std::env::var_os("DESTBENCH_SMARTCTL") {
        return Some(PathBuf::from(given));
    }
    let name = if cfg!(windows) {
        "smartctl.exe"
    } else {
        "smartctl"
    };
    let usual = [
        "/usr/sbin",
        "/usr/local/sbin",
        "/opt/homebrew/sbin",
        r"C:\Program Files\smartmontools\bin",
    ];
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .chain(usual.iter().map(PathBuf::from))
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// The program's standard output, once it has ended; it is killed after `patience`. Its output
/// is read on a thread of its own, so a large one never blocks it.
fn output_within(mut command: Command, patience: Duration) -> Result<String, SmartGap> {
    let failed = |e: std::io::Error| SmartGap::Failed {
        message: e.to_string(),
    };
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(failed)?;
    let mut stdout = child.stdout.take().ok_or_else(|| SmartGap::Failed {
        message: "no output".into(),
    })?;
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        stdout.read_to_string(&mut text).map(|_| text)
    });
    let deadline = Instant::now() + patience;
    while child.try_wait().map_err(failed)?.is_none() {
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(SmartGap::TimedOut);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    reader
        .join()
        .map_err(|_| SmartGap::Failed {
            message: "its output could not be read".into(),
        })?
        .map_err(failed)
}

/// The pass-through types to try after smartctl's own detection, for a bridge by its USB vendor
/// id: SAT for SATA bridges, and the NVMe bridges' vendor types (JMicron, ASMedia, Realtek).
fn bridge_types(vendor: Option<&str>) -> &'static [&'static str] {
    match vendor.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        Some("152d") => &["sat", "sntjmicron"],
        Some("174c") => &["sat", "sntasmedia"],
        Some("0bda") => &["sat", "sntrealtek"],
        _ => &["sat"],
    }
}

/// A bridge by its USB vendor id, with its maker's name where it is one of the pass-through
/// types' makers.
fn bridge_name(vendor: &str) -> String {
    let maker = match vendor.trim().to_ascii_lowercase().as_str() {
        "152d" => " (JMicron)",
        "174c" => " (ASMedia)",
        "0bda" => " (Realtek)",
        _ => "",
    };
    format!("USB vendor id {vendor}{maker}")
}

/// A reading of `device`; behind a USB bridge (its vendor id `bridge`), each pass-through type
/// in turn until one reads the disk.
pub fn read(
    smartctl: &dyn Smartctl,
    device: &str,
    bridge: Option<&str>,
) -> Result<Reading, SmartGap> {
    let first = smartctl.json(device, None).and_then(|json| parse(&json));
    let Some(vendor) = bridge else {
        return first;
    };
    match first {
        Ok(reading) => Ok(reading),
        Err(gap @ (SmartGap::NotInstalled { .. } | SmartGap::NeedsAdmin | SmartGap::Asleep)) => {
            Err(gap)
        }
        Err(_) => bridge_types(Some(vendor))
            .iter()
            .find_map(|&t| smartctl.json(device, Some(t)).and_then(|j| parse(&j)).ok())
            .ok_or_else(|| SmartGap::Bridge {
                bridge: bridge_name(vendor),
            }),
    }
}
