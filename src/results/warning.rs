//! What the runner noticed about a result or a whole run, as data: a [`WarningKind`] that the
//! reports sort and group by, and the words a person reads. A warning is made with its kind by
//! the code that noticed it; nothing reads the kind back out of the words.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};

/// The kinds of warning, in the order the reports list them: first what the user must act on
/// (leftovers to clean), then what makes a figure wrong (memory, the caches), a plan that did not
/// hold (stretched, failed, left out), and only then what makes a figure uncertain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WarningKind {
    /// Leftovers of killed runs were found.
    Leftovers,
    /// The destination is memory: no figure is a device's.
    MemoryBacked,
    /// The figure may be the page cache's (eviction failed, buffered writes without a flush).
    PageCache,
    /// Above what the narrowest link can carry (the verdict's).
    LikelyCached,
    /// Stat figures from the kernel's inode cache.
    InodeCache,
    /// The destination is too slow for the profile's time budget: the run was planned longer.
    Stretched,
    /// Some variants failed.
    Failures,
    /// Files of the source set could not be read and were skipped.
    SkippedFiles,
    /// Tests the engine cannot run, or programs that may not run on the destination, were
    /// left out.
    LeftOut,
    /// Programs started on the destination ran without the system's confinement to the scratch.
    Unconfined,
    /// The repetitions vary widely.
    LargeSpread,
    /// The repetitions drift one way over their order.
    Drift,
    /// One repetition lies far from the others.
    Outlier,
    /// The sustained write stopped before its rate was steady.
    NotSteady,
    /// Background priority could not act, or did not shield the reader.
    Priority,
    /// A repetition lasted less than the minimum time.
    ShortSample,
    /// The variant's time budget ran out before its median was known to the target precision.
    Imprecise,
    /// io_uring is not usable here.
    NoUring,
    /// The result was imported from another tool.
    Imported,
    /// A warning of a document written before warnings had kinds, or of a kind this version
    /// does not know.
    #[serde(other)]
    Other,
}

impl WarningKind {
    /// What the terminal calls a group of warnings of this kind.
    pub fn title(self) -> &'static str {
        match self {
            WarningKind::PageCache => "page cache",
            WarningKind::LikelyCached => "likely cached",
            WarningKind::InodeCache => "inode cache",
            WarningKind::LargeSpread => "large spread",
            WarningKind::Drift => "repetitions drift",
            WarningKind::Outlier => "outlier repetitions",
            WarningKind::ShortSample => "short-sample",
            WarningKind::Imprecise => "imprecise",
            WarningKind::NotSteady => "not yet steady",
            WarningKind::Priority => "background priority",
            WarningKind::SkippedFiles => "skipped files",
            WarningKind::MemoryBacked => "memory",
            WarningKind::LeftOut => "left out",
            WarningKind::Unconfined => "unconfined",
            WarningKind::NoUring => "io_uring",
            WarningKind::Failures => "failures",
            WarningKind::Stretched => "stretched",
            WarningKind::Leftovers => "leftovers",
            WarningKind::Imported => "imported",
            WarningKind::Other => "other",
        }
    }
}

/// One warning: its kind and its words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    pub kind: WarningKind,
    pub message: String,
}

impl Warning {
    pub fn new(kind: WarningKind, message: impl Into<String>) -> Warning {
        Warning {
            kind,
            message: message.into(),
        }
    }

    /// Adds to `list` each of `more` it does not hold yet: each warning is said once.
    pub fn add_new(list: &mut Vec<Warning>, more: impl IntoIterator<Item = Warning>) {
        for w in more {
            if !list.contains(&w) {
                list.push(w);
            }
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// A warning as documents hold it: `{kind, message}`, or the bare words of a document written
/// before warnings had kinds.
#[derive(Deserialize)]
#[serde(untagged)]
enum Stored {
    Typed { kind: WarningKind, message: String },
    Words(String),
}

impl<'de> Deserialize<'de> for Warning {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Warning, D::Error> {
        Ok(match Stored::deserialize(d)? {
            Stored::Typed { kind, message } => Warning { kind, message },
            Stored::Words(message) => Warning {
                kind: WarningKind::Other,
                message,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_read_back_typed_and_old_ones_as_words() {
        let w = Warning::new(WarningKind::ShortSample, "short-sample: 0.1 s");
        let json = serde_json::to_value(&w).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"kind": "short-sample", "message": "short-sample: 0.1 s"})
        );
        assert_eq!(serde_json::from_value::<Warning>(json).unwrap(), w);
        let old: Warning = serde_json::from_str("\"large spread: 12%\"").unwrap();
        assert_eq!(old.kind, WarningKind::Other);
        let newer: Warning =
            serde_json::from_str(r#"{"kind": "solar-flare", "message": "m"}"#).unwrap();
        assert_eq!(
            (newer.kind, newer.message.as_str()),
            (WarningKind::Other, "m")
        );
    }
}
