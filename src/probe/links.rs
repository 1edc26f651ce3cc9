//! The link table: rated bandwidth and practical ceiling of every link a chain can contain. It
//! lives as data (`data/links.csv`, with the source of every row) so figures are changed in one
//! place and reviewed as data, not scattered through the prober.

use std::sync::LazyLock;

use super::Ceiling;

/// The table as shipped.
const TABLE: &str = include_str!("../../data/links.csv");

/// The table parsed once, on the first lookup: every chain looks up several rows.
static ROWS: LazyLock<Vec<LinkRow>> =
    LazyLock::new(|| parse_table().expect("data/links.csv parses (checked by its unit test)"));

/// How a row's practical figures apply to a concrete link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scale {
    /// The figures are the ceiling of the link as a whole.
    Fixed,
    /// The figures are per PCIe lane; multiply by the negotiated width.
    PerLane,
    /// The figures are fractions of the rate the system reports (bytes = bits / 8).
    OfRated,
}

/// One row of the table, named by the table's header.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct LinkRow {
    pub id: String,
    pub name: String,
    pub rated: String,
    pub practical: f64,
    pub practical_max: f64,
    pub scale: Scale,
    /// Where the row's figures come from: its citation, the table's `source` column.
    #[serde(rename = "source")]
    pub origin: String,
}

impl LinkRow {
    /// The checks a type cannot make: positive figures in order, every text present.
    fn check(self) -> Result<LinkRow, String> {
        let positive = |v: f64| v.is_finite() && v > 0.0;
        if !positive(self.practical) || !positive(self.practical_max) {
            return Err(format!("row {}: figures must be positive", self.id));
        }
        if self.practical > self.practical_max {
            return Err(format!("row {}: practical above practical_max", self.id));
        }
        if [&self.id, &self.name, &self.origin]
            .iter()
            .any(|s| s.is_empty())
        {
            return Err(format!(
                "row {:?}: empty id, name or source (its origin)",
                self.id
            ));
        }
        Ok(self)
    }
}

/// Every row of a table in links.csv's format, or the first malformed one.
fn parse(table: &str) -> Result<Vec<LinkRow>, String> {
    csv::ReaderBuilder::new()
        .comment(Some(b'#'))
        .from_reader(table.as_bytes())
        .deserialize::<LinkRow>()
        .map(|row| row.map_err(|e| e.to_string()).and_then(LinkRow::check))
        .collect()
}

/// Every row as shipped, or the first malformed one.
pub fn parse_table() -> Result<Vec<LinkRow>, String> {
    parse(TABLE)
}

/// The row with `id`. The table is checked by a unit test, so a missing id is a bug here.
pub fn row(id: &str) -> &'static LinkRow {
    ROWS.iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("no row {id:?} in data/links.csv"))
}

/// The row of a USB link negotiated at `mbit_s` (as Linux's sysfs and macOS's IORegistry report
/// it), with UAS or BOT; None for a speed the table has no row for. Without the driver
/// (`uas` None) the higher (UAS) ceiling is used: it never claims a limit that might not be there.
pub fn usb_row(mbit_s: f64, uas: Option<bool>) -> Option<&'static str> {
    let bot = uas == Some(false);
    let is = |rated: f64| (mbit_s - rated).abs() < 0.5;
    Some(match () {
        // Low speed (1.5 Mbit/s) is below full speed's ceiling: that ceiling never overstates.
        _ if mbit_s <= 12.0 => "usb1.1",
        _ if is(480.0) && bot => "usb2-bot",
        _ if is(480.0) => "usb2-uas",
        _ if is(5000.0) && bot => "usb3g1-bot",
        _ if is(5000.0) => "usb3g1-uas",
        _ if is(10000.0) => "usb3g2",
        _ if is(20000.0) => "usb3g2x2",
        _ => return None,
    })
}

impl LinkRow {
    /// The ceiling of a fixed-rate link.
    pub fn ceiling(&self) -> Ceiling {
        debug_assert_eq!(self.scale, Scale::Fixed);
        self.make(self.rated.to_string(), self.practical, self.practical_max)
    }

    /// The ceiling of a PCIe link of `width` lanes.
    pub fn ceiling_lanes(&self, width: u32) -> Ceiling {
        debug_assert_eq!(self.scale, Scale::PerLane);
        let w = f64::from(width);
        self.make(
            format!("{} x{width}", self.rated.trim_end_matches(" per lane")),
            round(self.practical * w),
            round(self.practical_max * w),
        )
    }

    /// The ceiling of a link the system reports at `mbit_s` megabits per second.
    pub fn ceiling_of_rate(&self, mbit_s: f64) -> Ceiling {
        debug_assert_eq!(self.scale, Scale::OfRated);
        let bytes = mbit_s / 8.0;
        self.make(
            format!("{} Mbit/s", trim_number(mbit_s)),
            round(bytes * self.practical),
            round(bytes * self.practical_max),
        )
    }

    fn make(&self, rated: String, practical: f64, practical_max: f64) -> Ceiling {
        Ceiling {
            link: self.name.to_string(),
            row: self.id.to_string(),
            rated,
            practical_mb_s: practical,
            practical_max_mb_s: practical_max,
            origin: format!("links table row {} ({})", self.id, self.origin),
            declared: false,
        }
    }
}

/// One decimal at most: the table's figures are approximate.
fn round(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

/// "100", "2500", "866.7".
pub fn trim_number(v: f64) -> String {
    let s = format!("{v:.1}");
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_parses_and_ids_are_unique() {
        let rows = parse_table().unwrap();
        assert!(rows.len() >= 30, "{} rows", rows.len());
        let mut ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), rows.len(), "duplicate ids");
    }

    #[test]
    fn malformed_rows_are_rejected() {
        let header = "id,name,rated,practical,practical_max,scale,source\n";
        let with = |row: &str| parse(&format!("{header}{row}\n"));
        assert!(with("a,b,c,1,2,fixed").is_err());
        assert!(with("a,b,c,x,2,fixed,s").is_err());
        assert!(with("a,b,c,3,2,fixed,s").is_err());
        assert!(with("a,b,c,-1,2,fixed,s").is_err());
        assert!(with("a,b,c,1,2,sideways,s").is_err());
        assert!(with(",b,c,1,2,fixed,s").is_err());
        assert!(with("a,b,c,1,2,fixed,s, with, commas").is_err());
        let quoted = with("a,b,c,1,2,per-lane,\"s, with, commas\"").unwrap();
        assert_eq!(
            (quoted[0].scale, quoted[0].origin.as_str()),
            (Scale::PerLane, "s, with, commas")
        );
    }

    #[test]
    fn usb_speeds_map_to_their_rows_and_odd_speeds_to_none() {
        for (id, bot) in [
            ("usb2-bot", true),
            ("usb3g1-bot", true),
            ("usb3g1-uas", false),
        ] {
            let rated: f64 = row(id).rated.split(' ').next().unwrap().parse().unwrap();
            let mbit = if row(id).rated.contains("Gbit") {
                rated * 1000.0
            } else {
                rated
            };
            assert_eq!(usb_row(mbit, Some(!bot)), Some(id));
        }
        // Without the driver, the higher ceiling.
        assert_eq!(usb_row(480.0, None), Some("usb2-uas"));
        assert_eq!(usb_row(1.5, Some(false)), Some("usb1.1"));
        assert_eq!(usb_row(777.0, Some(true)), None);
    }

    #[test]
    fn scaled_ceilings_match_links_md() {
        // NVMe x4 Gen3 ~3500 MB/s; GbE ~117; 100 Mbit ~11.7 (docs/links.md).
        assert_eq!(row("pcie3").ceiling_lanes(4).practical_mb_s, 3544.0);
        assert_eq!(
            row("ethernet").ceiling_of_rate(1000.0).practical_mb_s,
            117.5
        );
        assert_eq!(row("ethernet").ceiling_of_rate(100.0).practical_mb_s, 11.8);
        assert_eq!(row("usb2-bot").ceiling().practical_mb_s, 35.0);
    }
}
