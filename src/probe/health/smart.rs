//! smartctl's JSON (`--json`, smartmontools 7+) read into the chain's typed facts: the
//! assessment, the sector and link error counts, hours, cycles and temperature, NVMe's health
//! log, and what the disk is (rotation, form factor, TRIM, firmware). Lenient: a key a drive or
//! a version does not give is a fact left out, never an error.

use serde_json::Value as Json;

use super::{Assessment, Rotation, SmartGap};
use crate::probe::Value;

/// What one smartctl call said of a disk.
#[derive(Debug, Default, PartialEq)]
pub struct Reading {
    /// The disk's own model (through a USB bridge, the sysfs model is the bridge's).
    pub model: Option<String>,
    pub facts: Vec<Value>,
}

/// smartctl's exit status bits (its man page, "RETURN VALUES"): the command line did not
/// parse; the device did not open (or was asleep under `-n standby`).
const BAD_COMMAND_LINE: u64 = 1 << 0;
const DEVICE_NOT_OPENED: u64 = 1 << 1;

/// The reading of `json`, or why there is none (smartctl's own words, typed where they say
/// something a person can act on).
pub fn parse(json: &str) -> Result<Reading, SmartGap> {
    let doc: Json = serde_json::from_str(json).map_err(|e| SmartGap::Failed {
        message: format!("its output is not JSON ({e})"),
    })?;
    let status = doc["smartctl"]["exit_status"].as_u64().unwrap_or(0);
    let messages: Vec<&str> = doc["smartctl"]["messages"]
        .as_array()
        .map(|m| m.iter().filter_map(|m| m["string"].as_str()).collect())
        .unwrap_or_default();
    if status & (BAD_COMMAND_LINE | DEVICE_NOT_OPENED) != 0 || !identified(&doc) {
        return Err(gap(&messages));
    }
    Ok(Reading {
        model: text(&doc["model_name"]),
        facts: facts(&doc),
    })
}

/// Whether smartctl read the disk's identity at all.
fn identified(doc: &Json) -> bool {
    doc["model_name"].is_string() || doc["nvme_smart_health_information_log"].is_object()
}

/// Why smartctl read nothing, from its messages.
fn gap(messages: &[&str]) -> SmartGap {
    let said = |what: &str| messages.iter().find(|m| m.contains(what));
    // Linux's and macOS's words; Windows says "Error=5" (ERROR_ACCESS_DENIED).
    if ["Permission denied", "Operation not permitted", "Error=5"]
        .iter()
        .any(|w| said(w).is_some())
    {
        return SmartGap::NeedsAdmin;
    }
    if said("STANDBY").is_some() || said("SLEEP").is_some() {
        return SmartGap::Asleep;
    }
    if let Some(m) = said("Unknown USB bridge") {
        let bridge = m
            .split_once('[')
            .and_then(|(_, rest)| rest.split_once(']'))
            .map_or("unknown", |(inside, _)| inside);
        return SmartGap::Bridge {
            bridge: bridge.to_string(),
        };
    }
    SmartGap::Failed {
        message: messages
            .first()
            .copied()
            .unwrap_or("it read nothing and said nothing")
            .to_string(),
    }
}

/// Every fact the document gives, in the order the chain shows them.
fn facts(doc: &Json) -> Vec<Value> {
    let mut out = Vec::new();
    if let Some(passed) = doc["smart_status"]["passed"].as_bool() {
        out.push(Value::SmartAssessment(if passed {
            Assessment::Passed
        } else {
            Assessment::Failed
        }));
    }
    for (id, fact) in ATA_COUNTS {
        if let Some(raw) = ata_raw(doc, id) {
            out.push(fact(raw));
        }
    }
    nvme(&doc["nvme_smart_health_information_log"], &mut out);
    if let Some(hours) = doc["power_on_time"]["hours"].as_u64() {
        out.push(Value::PowerOnHours(hours));
    }
    if let Some(cycles) = doc["power_cycle_count"].as_u64() {
        out.push(Value::PowerCycles(cycles));
    }
    if let Some(celsius) = doc["temperature"]["current"].as_i64() {
        out.push(Value::Temperature(celsius));
    }
    identity(doc, &mut out);
    out
}

/// A fact made of a count.
type CountFact = fn(u64) -> Value;

/// The ATA attributes read as counts, by id: their raw values are plain counts on every vendor.
const ATA_COUNTS: [(u64, CountFact); 4] = [
    (5, Value::ReallocatedSectors),
    (197, Value::PendingSectors),
    (198, Value::UncorrectableSectors),
    (199, Value::LinkErrors),
];

/// The raw value of ATA attribute `id`. Some vendors pack other counters into the upper bytes
/// of a raw value (48 bits); the count is the low 32.
fn ata_raw(doc: &Json, id: u64) -> Option<u64> {
    doc["ata_smart_attributes"]["table"]
        .as_array()?
        .iter()
        .find(|a| a["id"].as_u64() == Some(id))
        .and_then(|a| a["raw"]["value"].as_u64())
        .map(|raw| raw & 0xffff_ffff)
}

/// NVMe's health log: its warnings, wear and errors.
fn nvme(log: &Json, out: &mut Vec<Value>) {
    if !log.is_object() {
        return;
    }
    let byte = |key: &str| log[key].as_u64().map(|v| v.min(255) as u8);
    if let Some(bits) = byte("critical_warning") {
        out.push(Value::CriticalWarning(bits));
    }
    if let Some(pct) = byte("percentage_used") {
        out.push(Value::EnduranceUsed(pct));
    }
    if let Some(n) = log["media_errors"].as_u64() {
        out.push(Value::MediaErrors(n));
    }
    if let Some(n) = log["unsafe_shutdowns"].as_u64() {
        out.push(Value::UnsafeShutdowns(n));
    }
}

/// What the disk is: firmware, rotation, form factor, TRIM.
fn identity(doc: &Json, out: &mut Vec<Value>) {
    if let Some(firmware) = text(&doc["firmware_version"]) {
        out.push(Value::Firmware(firmware));
    }
    let nvme = doc["device"]["protocol"].as_str() == Some("NVMe");
    match doc["rotation_rate"].as_u64() {
        Some(0) => out.push(Value::Rotation(Rotation::SolidState)),
        Some(rpm) => out.push(Value::Rotation(Rotation::Rpm(
            rpm.min(u32::MAX.into()) as u32
        ))),
        None if nvme => out.push(Value::Rotation(Rotation::SolidState)),
        None => {}
    }
    if let Some(form) = text(&doc["form_factor"]["name"]) {
        out.push(Value::FormFactor(form));
    }
    if let Some(trim) = doc["trim"]["supported"].as_bool() {
        out.push(Value::Trim(trim));
    }
}

/// A JSON string, trimmed; None when absent or empty.
fn text(v: &Json) -> Option<String> {
    v.as_str()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}
