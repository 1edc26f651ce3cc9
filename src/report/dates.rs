//! Dates as every report prints them: UTC, to the minute.

/// "2026-04-05 13:22 UTC" from Unix seconds (proleptic Gregorian, no leap seconds); a time
/// out of the calendar's range (a damaged record) as its seconds.
pub fn utc(unix_s: i64) -> String {
    match jiff::Timestamp::from_second(unix_s) {
        Ok(t) => t.strftime("%Y-%m-%d %H:%M UTC").to_string(),
        Err(_) => format!("{unix_s} s after 1970 UTC"),
    }
}
