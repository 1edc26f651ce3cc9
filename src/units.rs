//! Sizes and rates as people write them: `4k`, `50MB`, `1GiB`, and how we print them.
//!
//! Units follow `dd`: a bare letter (`k`, `M`, `G`, `T`) is binary (1024-based), a letter with `B`
//! (`kB`, `MB`, `GB`, `TB`) is decimal, and the `iB` forms (`KiB`, `MiB`, ...) are binary. Rates are
//! always decimal, as storage vendors write them: 1 MB/s = 10^6 bytes per second.

use std::fmt;
use std::str::FromStr;

/// A number of bytes parsed from the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct ByteSize(pub u64);

/// The largest size anyone could mean for a benchmark file: 1 PiB. Anything larger is a typo.
pub const MAX_SIZE: u64 = 1 << 50;

/// Each holds the input as typed, control characters escaped (so the error stays one line).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    #[error("'{0}' is not a size (try 4k, 50MB, 1GiB)")]
    Malformed(String),
    #[error(
        "'{0}' has an unknown unit (use k, M, G, T, P, kB, MB, GB, TB, PB, KiB, MiB, GiB, TiB, PiB)"
    )]
    UnknownUnit(String),
    #[error("'{0}' is larger than 1 PiB")]
    TooLarge(String),
}

impl FromStr for ByteSize {
    type Err = SizeError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let trimmed = text.trim();
        let split = trimmed
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(trimmed.len());
        let (number, unit) = trimmed.split_at(split);
        let value: f64 = number
            .parse()
            .map_err(|_| SizeError::Malformed(text.escape_debug().to_string()))?;
        if !value.is_finite() || value < 0.0 {
            return Err(SizeError::Malformed(text.escape_debug().to_string()));
        }
        let multiplier: u64 = match unit.trim() {
            "" | "B" | "b" => 1,
            "k" | "K" | "KiB" | "kiB" => 1 << 10,
            "m" | "M" | "MiB" => 1 << 20,
            "g" | "G" | "GiB" => 1 << 30,
            "t" | "T" | "TiB" => 1 << 40,
            "p" | "P" | "PiB" => 1 << 50,
            "kB" | "KB" => 1_000,
            "MB" => 1_000_000,
            "GB" => 1_000_000_000,
            "TB" => 1_000_000_000_000,
            "PB" => 1_000_000_000_000_000,
            _ => return Err(SizeError::UnknownUnit(text.escape_debug().to_string())),
        };
        let bytes = value * multiplier as f64;
        if bytes > MAX_SIZE as f64 {
            return Err(SizeError::TooLarge(text.escape_debug().to_string()));
        }
        if bytes.fract() != 0.0 {
            return Err(SizeError::Malformed(text.escape_debug().to_string()));
        }
        Ok(ByteSize(bytes as u64))
    }
}

impl fmt::Display for ByteSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_bytes(self.0))
    }
}

/// Formats a byte count with a binary unit, exact where it can be: `4 KiB`, `1.50 GiB`, `20000000 B`
/// stays readable as `19.07 MiB`.
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 || value.fract() == 0.0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.2} {}", UNITS[unit])
    }
}

/// Bytes as a person says them, in decimal units: "520 MB", "4.2 GB", "212 GB", "1.5 TB".
pub fn decimal_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "kB", "MB", "GB", "TB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit < UNITS.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    if value < 10.0 && unit > 0 {
        format!("{value:.1} {}", UNITS[unit])
    } else {
        format!("{value:.0} {}", UNITS[unit])
    }
}

/// A count with thousands separated: "480,000".
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Formats a byte count exactly: decimal (`50 MB`) when it is a whole number of decimal
/// megabytes but not of binary mebibytes, as the profiles declare their sets; binary otherwise.
pub fn format_size(bytes: u64) -> String {
    if !bytes.is_multiple_of(1 << 20) && bytes.is_multiple_of(1_000_000) {
        format!("{} MB", bytes / 1_000_000)
    } else {
        format_bytes(bytes)
    }
}

/// Bytes per second to MB/s (decimal, as storage vendors write them).
pub fn mb_per_s(bytes: u64, seconds: f64) -> f64 {
    if seconds <= 0.0 {
        return 0.0;
    }
    bytes as f64 / seconds / 1e6
}

/// A duration the way people say it: `38 s`, `4.5 min`, `42 min`, `3 h 05 min`.
pub fn human_duration(seconds: f64) -> String {
    if seconds < 10.0 {
        // Small trees: whole seconds would print every figure as "0 s".
        format!("{seconds:.1} s")
    } else if seconds < 60.0 {
        format!("{seconds:.0} s")
    } else if seconds < 600.0 {
        format!("{:.1} min", seconds / 60.0)
    } else if seconds < 3600.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        let minutes = (seconds / 60.0).round() as u64;
        format!("{} h {:02} min", minutes / 60, minutes % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_naturally() {
        for (seconds, text) in [
            (0.43, "0.4 s"),
            (38.2, "38 s"),
            (270.0, "4.5 min"),
            (2520.0, "42 min"),
            (3.0 * 3600.0 + 300.0, "3 h 05 min"),
        ] {
            assert_eq!(human_duration(seconds), text);
        }
    }

    fn parse(s: &str) -> u64 {
        s.parse::<ByteSize>().unwrap().0
    }

    #[test]
    fn bare_letters_are_binary_like_dd_b_suffixes_decimal_and_ib_binary() {
        for (input, bytes) in [
            ("4k", 4096),
            ("4K", 4096),
            ("1M", 1 << 20),
            ("2G", 2 << 30),
            ("50MB", 50_000_000),
            ("4kB", 4_000),
            ("1GiB", 1 << 30),
            ("1.5GiB", 3 << 29),
            ("512", 512),
            ("1 TB", 1_000_000_000_000),
        ] {
            assert_eq!(parse(input), bytes, "{input}");
        }
    }

    #[test]
    fn rejects_garbage_units_fractions_and_absurd_sizes() {
        use SizeError::{Malformed, TooLarge, UnknownUnit};
        for input in ["abc", "", "0.5", "-4k"] {
            assert!(
                matches!(input.parse::<ByteSize>(), Err(Malformed(_))),
                "{input}"
            );
        }
        assert!(matches!("10XB".parse::<ByteSize>(), Err(UnknownUnit(_))));
        assert!(matches!("2000TB".parse::<ByteSize>(), Err(TooLarge(_))));
    }

    #[test]
    fn rates_are_decimal() {
        assert_eq!(mb_per_s(50_000_000, 2.0), 25.0);
        assert_eq!(mb_per_s(1, 0.0), 0.0);
    }
}
