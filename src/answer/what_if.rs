//! What a faster link would change: the limiting link of the chain replaced by the next faster
//! one a user can plug in, bounded by the chain's next link. Only for a link the table knows
//! and the verdict found limiting; never a figure the chain cannot back. For a share whose
//! server's disks limit, those disks as fast as the network carried, at best.

use crate::probe::links::{self, Scale};
use crate::probe::{Ceiling, Chain};
use crate::results::{Verdict, VerdictKind};

/// The next faster link for a link table row, as a user would get it.
enum Faster {
    /// Another fixed-rate row: its id and what the user plugs into.
    Row(&'static str, &'static str),
    /// An Ethernet link at the next standard rate above the current one.
    NextEthernet,
    /// Wi-Fi replaced by wired Ethernet at this rate (Mbit/s).
    Wired(f64),
}

/// Each row a user can upgrade from, with what they would move to. USB keeps its protocol
/// (a BOT enclosure stays BOT on a faster port).
const UPGRADES: &[(&str, Faster)] = &[
    ("usb1.1", Faster::Row("usb2-uas", "a USB 2.0 port")),
    ("usb2-bot", Faster::Row("usb3g1-bot", "a USB 3 port")),
    ("usb2-uas", Faster::Row("usb3g1-uas", "a USB 3 port")),
    ("usb3g1-bot", Faster::Row("usb3g2", "a USB 3 Gen 2 port")),
    ("usb3g1-uas", Faster::Row("usb3g2", "a USB 3 Gen 2 port")),
    (
        "firewire400",
        Faster::Row("firewire800", "a FireWire 800 port"),
    ),
    ("sata1", Faster::Row("sata2", "a SATA II port")),
    ("sata2", Faster::Row("sata3", "a SATA III port")),
    ("ethernet", Faster::NextEthernet),
    ("wifi", Faster::Wired(1000.0)),
];

/// Ethernet's standard rates, Mbit/s.
const ETHERNET_MBIT_S: [f64; 6] = [10.0, 100.0, 1000.0, 2500.0, 5000.0, 10000.0];

/// The faster link instead of the one that limits: its words and its practical ceiling, MB/s.
pub(super) struct Upgrade {
    pub link: String,
    pub instead: String,
    pub ceiling_mb_s: f64,
    pub bounded_by: String,
}

/// The upgrade of the link that limits, where the verdict found one and the table knows a
/// faster link; its ceiling bounded by the chain's next link.
pub(super) fn upgrade(verdict: &Verdict, chain: &Chain) -> Option<Upgrade> {
    if let (VerdictKind::ServerStorage, Some(network)) = (verdict.kind, verdict.network_mb_s) {
        // At best: the server's writes as fast as its network carries.
        let instead = "a server whose disks keep up with its network".to_string();
        return Some(Upgrade {
            link: "the server's disks".into(),
            bounded_by: instead.clone(),
            instead,
            ceiling_mb_s: network,
        });
    }
    if verdict.kind != VerdictKind::LimitedByLink {
        return None;
    }
    let known = chain.known_links();
    let (_, limiting) = known.first()?;
    let (instead, ceiling) = faster(limiting)?;
    let mut upgrade = Upgrade {
        link: limiting.link.clone(),
        bounded_by: instead.clone(),
        instead,
        ceiling_mb_s: ceiling,
    };
    if let Some((node, next)) = known.get(1)
        && next.practical_mb_s < upgrade.ceiling_mb_s
    {
        upgrade.ceiling_mb_s = next.practical_mb_s;
        upgrade.bounded_by = format!("{} ({})", next.link, node.label);
    }
    Some(upgrade)
}

/// What replaces `limiting`, and its practical ceiling.
fn faster(limiting: &Ceiling) -> Option<(String, f64)> {
    let (_, how) = UPGRADES.iter().find(|(row, _)| *row == limiting.row)?;
    let ethernet = links::row("ethernet");
    match how {
        Faster::Row(id, words) => Some((words.to_string(), links::row(id).practical)),
        Faster::NextEthernet => {
            debug_assert_eq!(ethernet.scale, Scale::OfRated);
            // The ceiling is the rate times the row's payload share (bytes = bits / 8).
            let rate = limiting.practical_mb_s / ethernet.practical * 8.0;
            let next = ETHERNET_MBIT_S.into_iter().find(|r| *r > rate * 1.01)?;
            Some((
                format!("a {} link", mbit_words(next)),
                ethernet.ceiling_of_rate(next).practical_mb_s,
            ))
        }
        Faster::Wired(mbit) => Some((
            format!("wired {} Ethernet", mbit_words(*mbit)),
            ethernet.ceiling_of_rate(*mbit).practical_mb_s,
        )),
    }
}

/// "100 Mbit/s", "1 Gbit/s", "2.5 Gbit/s".
fn mbit_words(mbit: f64) -> String {
    if mbit >= 1000.0 {
        format!("{} Gbit/s", links::trim_number(mbit / 1000.0))
    } else {
        format!("{} Mbit/s", links::trim_number(mbit))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row an upgrade names exists, and each upgrade is faster than what it replaces.
    #[test]
    fn every_upgrade_is_a_faster_row_of_the_table() {
        for (from, how) in UPGRADES {
            let from = links::row(from);
            if let Faster::Row(to, _) = how {
                assert!(links::row(to).practical > from.practical, "{}", from.id);
            }
        }
    }

    /// 100 Mbit/s Ethernet goes to 1 Gbit/s; Wi-Fi to wired Gigabit; 10 Gbit/s has no next.
    #[test]
    fn ethernet_steps_to_the_next_standard_rate() {
        let ethernet = links::row("ethernet");
        let at = |mbit: f64| faster(&ethernet.ceiling_of_rate(mbit));
        let (words, mb_s) = at(100.0).unwrap();
        assert_eq!(words, "a 1 Gbit/s link");
        assert_eq!(mb_s, ethernet.ceiling_of_rate(1000.0).practical_mb_s);
        assert!(at(10000.0).is_none());
        let wifi = links::row("wifi").ceiling_of_rate(300.0);
        assert_eq!(faster(&wifi).unwrap().0, "wired 1 Gbit/s Ethernet");
    }

    /// A share whose server's disks take writes far slower than its network carries: the answer
    /// says what a server whose disks keep up would take, at best, the rest as measured.
    #[test]
    fn a_share_limited_by_its_servers_disks_says_what_faster_disks_would_take() {
        let data = crate::answer::tests::home(10_000_000_000, Some(100_000));
        let mut share = crate::answer::tests::run(None, 20.0, crate::answer::tests::sets());
        let chain = share.chain.as_mut().unwrap();
        chain.root.children[0].kind = crate::probe::NodeKind::Server;
        share.results.push(crate::verdict::tests::result(
            crate::workload::TestId::SeqWrite,
            "20-100MB",
            10.0,
        ));
        share.verdict = Some(crate::verdict::of(&share));
        let v = share.verdict.as_ref().unwrap();
        assert_eq!(v.kind, crate::results::VerdictKind::ServerStorage, "{v:?}");
        assert_eq!(v.network_mb_s, Some(22.0), "the read, the faster figure");
        let answer = crate::answer::of(&share, data).unwrap();
        let w = answer.what_if.as_ref().expect("a what-if");
        assert_eq!(w.instead, "a server whose disks keep up with its network");
        assert_eq!(w.ceiling_mb_s, 22.0);
        // The data's 10 GB at 22 MB/s instead of 10, the rest of the time as measured.
        let now = answer.tools[0].first_seconds.expected;
        let rest = (now - 1000.0).max(0.0);
        assert!(
            (w.first_seconds - (rest + 10_000.0 / 22.0)).abs() < 1e-6,
            "{now} {w:?}"
        );
        assert!(w.first_seconds < now);
        let said = answer.words.join(" ");
        assert!(
            said.contains("On a server whose disks keep up with its network the same first backup would take as little as"),
            "{said}"
        );
    }
}
