//! A link speed the user declares (`--link-speed 100mbit`) for a link the system cannot report:
//! a shaped or virtual network interface, a link beyond the first hop. It is always labelled as
//! declared wherever it appears.

use super::links::{self, trim_number};
use super::{Bandwidth, Ceiling, Chain, Node, NodeKind};

/// A declared link rate.
#[derive(Debug, Clone, PartialEq)]
pub struct DeclaredLink {
    /// Megabits per second (10^6 bit/s).
    pub mbit_s: f64,
    /// As the user wrote it.
    pub text: String,
}

impl std::str::FromStr for DeclaredLink {
    type Err = String;

    /// `100mbit`, `1gbit`, `2.5gbit`, `500kbit` (tc's units: 1mbit = 10^6 bit/s). Bytes per
    /// second are refused on purpose: tc's `mbps` means megabytes, a classic mix-up.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        let split = lower
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(lower.len());
        let (number, unit) = lower.split_at(split);
        let factor = match unit {
            "kbit" => 1e-3,
            "mbit" => 1.0,
            "gbit" => 1e3,
            "tbit" => 1e6,
            _ => {
                return Err(format!(
                    "{s:?}: give a link speed in bits per second with a unit: 100mbit, 1gbit, 2.5gbit"
                ));
            }
        };
        let value: f64 = number
            .parse()
            .map_err(|_| format!("{s:?}: not a number followed by kbit, mbit or gbit"))?;
        if !(value > 0.0 && value.is_finite()) {
            return Err(format!("{s:?}: the link speed must be more than 0"));
        }
        Ok(DeclaredLink {
            mbit_s: value * factor,
            text: s.trim().to_string(),
        })
    }
}

impl DeclaredLink {
    /// The ceiling of the declared link. A declared rate is a wire rate; the payload that fits
    /// is taken from the table's Ethernet/TCP row, the only rule the table has for a raw rate.
    pub fn bandwidth(&self) -> Bandwidth {
        let row = links::row("ethernet");
        let c = row.ceiling_of_rate(self.mbit_s);
        Bandwidth::Known(Ceiling {
            link: format!(
                "the declared link ({} Mbit/s, --link-speed)",
                trim_number(self.mbit_s)
            ),
            rated: format!("{} Mbit/s (declared)", trim_number(self.mbit_s)),
            origin: format!(
                "declared by the user (--link-speed {}), not read from the system; payload {}% of it as for TCP ({})",
                self.text,
                trim_number(row.practical * 100.0),
                c.origin
            ),
            declared: true,
            ..c
        })
    }
}

impl DeclaredLink {
    /// Puts the declared speed on the network interface when there is one (keeping what the
    /// system reported as a fact), or adds a declared link below the mount.
    pub fn declare(&self, chain: &mut Chain) {
        fn interface(node: &mut Node) -> Option<&mut Node> {
            if node.kind == NodeKind::Interface {
                return Some(node);
            }
            node.children.iter_mut().find_map(interface)
        }
        if let Some(iface) = interface(&mut chain.root) {
            if let Bandwidth::Unknown { why } = &iface.bandwidth {
                let why = why.clone();
                iface.other("reported speed", format!("unknown: {why}"), "the prober");
            }
            iface.bandwidth = self.bandwidth();
        } else {
            let mut node = Node::new(
                NodeKind::Declared,
                format!("declared link {} (--link-speed)", self.text),
            );
            node.bandwidth = self.bandwidth();
            chain.root.children.push(node);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_tc_units() {
        let d: DeclaredLink = "100mbit".parse().unwrap();
        assert_eq!(d.mbit_s, 100.0);
        assert_eq!("2.5Gbit".parse::<DeclaredLink>().unwrap().mbit_s, 2500.0);
        assert_eq!("500kbit".parse::<DeclaredLink>().unwrap().mbit_s, 0.5);
        for bad in ["100", "100mbps", "fast", "0mbit", "-5mbit", "mbit"] {
            assert!(bad.parse::<DeclaredLink>().is_err(), "{bad}");
        }
    }

    #[test]
    fn declared_bandwidth_is_labelled() {
        let Bandwidth::Known(c) = "100mbit".parse::<DeclaredLink>().unwrap().bandwidth() else {
            panic!("no ceiling")
        };
        assert!(c.declared && c.origin.contains("declared by the user"));
        assert_eq!(c.practical_mb_s, 11.8);
    }
}
