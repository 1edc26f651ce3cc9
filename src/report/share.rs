//! A share's figures in one line, as the terminal shows it under the verdict and the HTML report
//! and the page under the bar of its time: each figure with the result it came from, then the
//! limit. Written once here; the figures are the document's (`results::Share`).

use crate::results::{Share, round_mb_s};

/// "the wire 140 MB/s (seq-read SEQ1M-Q8T1), new files flushed 17.5 MB/s (seq-write
/// 10-50MB), a request 0.85 ms (meta delete), a 16 KiB file 25.0 ms, about 5 requests; SMB
/// signing on; limit: the server's disks"
pub fn words(share: &Share) -> String {
    let limit = format!("limit: {}", share.limit);
    match figures(share) {
        figures if figures.is_empty() => limit,
        figures => format!("{figures}; {limit}"),
    }
}

/// The line without its limit, for a page that names the limit on its own.
pub fn figures(share: &Share) -> String {
    let by = |by: &Option<String>| by.as_ref().map_or(String::new(), |b| format!(" ({b})"));
    let mut parts = Vec::new();
    if let Some(rate) = share.wire_mb_s {
        parts.push(format!(
            "the wire {} MB/s{}",
            round_mb_s(rate),
            by(&share.wire_by)
        ));
    }
    if let Some(rate) = share.durable_write_mb_s {
        parts.push(format!(
            "new files flushed {} MB/s{}",
            round_mb_s(rate),
            by(&share.durable_by)
        ));
    }
    if let Some(ms) = share.request_ms {
        parts.push(format!("a request {ms:.2} ms{}", by(&share.request_by)));
    }
    if let (Some(ms), Some(bytes)) = (share.per_file_ms, share.per_file_bytes) {
        let requests = share
            .requests_per_file
            .map_or(String::new(), |n| format!(", about {n:.0} requests"));
        parts.push(format!(
            "a {} file {ms:.1} ms{requests}",
            crate::units::format_bytes(bytes.round() as u64)
        ));
    }
    let on = |yes: bool| if yes { "on" } else { "off" };
    let smb: Vec<String> = [("signing", share.signing), ("encryption", share.encryption)]
        .into_iter()
        .filter_map(|(what, known)| Some(format!("SMB {what} {}", on(known?))))
        .collect();
    [parts.join(", ")]
        .into_iter()
        .chain(smb)
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::ShareLimit;

    /// Each figure is said with its result, unknown ones left out, the limit last.
    #[test]
    fn a_shares_line_names_each_figure_with_its_result_and_the_limit_last() {
        assert_eq!(
            words(&crate::results::tests::share()),
            "the wire 100 MB/s (seq-read SEQ1M-Q8T1), new files flushed 25 MB/s (seq-write \
             20-100MB), a request 10.00 ms (meta delete), a 16 KiB file 20.7 ms, about 2 \
             requests; SMB signing on; SMB encryption off; limit: the server's disks"
        );
        let bare = Share {
            limit: ShareLimit::RoundTrips,
            ..Share::default()
        };
        assert_eq!(words(&bare), "limit: round trips");
    }
}
