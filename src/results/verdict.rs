//! The verdict as data: what `crate::verdict` concluded about a run, carried in the run document
//! beside the results it judged. The judging lives in `crate::verdict`; this is only its value,
//! so the document, the reports and the history read it without depending on the judge.

use serde::{Deserialize, Serialize};

use super::{Warning, WarningKind};

/// What the verdict concluded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VerdictKind {
    /// The measured rate is close to the narrowest link's ceiling.
    LimitedByLink,
    /// The measured rate is far below every known ceiling: the device, or the server and the
    /// protocol over a network (or an unknown link, when there is one).
    DeviceOrProtocol,
    /// No link on the path reported its speed.
    LinkUnknown,
    /// A share whose writes that must reach the server's disks (new files, each flushed) are
    /// far slower than what the network carried: the server's storage is the limit.
    ServerStorage,
    /// The measured rate is above what the narrowest link can carry: a cache answered.
    Cached,
    /// The destination is memory (tmpfs).
    Memory,
    /// The run has no large sequential result to judge.
    NeedsSequentialTests,
    /// The chain could not be probed.
    #[default]
    NoChain,
}

/// A link the verdict refers to.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LinkRef {
    /// The chain node's label.
    pub node: String,
    /// The link table's name.
    pub link: String,
    pub rated: String,
    pub practical_mb_s: f64,
    pub declared: bool,
}

/// A result whose figure is above what the narrowest link can carry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CachedFigure {
    /// Which result: its index in the run's `results` (None in documents written before the
    /// index was recorded, whose results carry the warning themselves).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<usize>,
    pub test: String,
    pub variant: String,
    pub median_mb_s: f64,
    /// The practical maximum of the narrowest link.
    pub ceiling_mb_s: f64,
    pub link: String,
}

/// The verdict of a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Verdict {
    pub kind: VerdictKind,
    /// Said before anything else: the disk reports that it is failing, or its link repeated
    /// transfers during the run (`probe::health::alarm`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alarm: Option<String>,
    /// One line: "limited by USB 2.0 (BOT): 33.8 MB/s of a practical ~35 MB/s (97%)".
    pub summary: String,
    /// Further lines: the next link, unknown links, caches, the per-file cost.
    pub details: Vec<String>,
    /// The large sequential rate judged: the better of write and read, MB/s.
    pub measured_mb_s: Option<f64>,
    /// Which result that is ("seq-read SEQ1M-Q8T1").
    pub measured_by: Option<String>,
    pub write_mb_s: Option<f64>,
    pub read_mb_s: Option<f64>,
    pub bottleneck: Option<LinkRef>,
    /// measured / the bottleneck's practical ceiling, in percent.
    pub percent_of_ceiling: Option<f64>,
    /// The link that would limit next if the bottleneck were faster.
    pub next: Option<LinkRef>,
    /// Links of unknown speed, with why.
    pub unknown_links: Vec<String>,
    pub cached: Vec<CachedFigure>,
    /// Over a network: what one small file costs, durable, ms: from the small set copied one
    /// file after another, each fsync'd (files-copy small-1t-cache-off), where the run has it;
    /// else Time Machine's median file of 500, 32 in flight (tm-check 500x4KB).
    pub per_file_ms: Option<f64>,
    /// Over a network: what a request and its reply take, ms: a round trip, the median of a
    /// 4 KiB direct read at depth 1 (4k-read RND4K-Q1T1), where the run has it; else the
    /// faster median of meta rename and meta delete (a request that moves no data).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_ms: Option<f64>,
    /// A share's verdict `server-storage`: the fastest large sequential figure that crossed its
    /// network (its read, or a block write the server may have held in memory), MB/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network_mb_s: Option<f64>,
}

impl Verdict {
    /// The cached figure of the result at `index` in the run's results, if it is one.
    pub fn cached_result(&self, index: usize) -> Option<&CachedFigure> {
        self.cached.iter().find(|c| c.result == Some(index))
    }

    /// The summary and its details in one line: "summary (detail; detail)".
    pub fn in_words(&self) -> String {
        if self.details.is_empty() {
            self.summary.clone()
        } else {
            format!("{} ({})", self.summary, self.details.join("; "))
        }
    }
}

impl CachedFigure {
    /// The warning shown beside the result whose figure this is.
    pub fn warning(&self) -> Warning {
        Warning::new(
            WarningKind::LikelyCached,
            format!(
                "likely cached: {} MB/s is above what {} can carry (~{} MB/s), the narrowest link on the path",
                round_mb_s(self.median_mb_s),
                self.link,
                round_mb_s(self.ceiling_mb_s)
            ),
        )
    }
}

/// Rounds for display: whole MB/s from 100 up, one decimal below (none when it is .0).
pub fn round_mb_s(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else {
        crate::probe::links::trim_number(v)
    }
}
