//! The throttled test's judgement as data: whether background I/O priority can act on the
//! destination ([`PriorityEffect`], with the [`Blocker`] that stops it) and what the figures
//! show it did ([`Conclusion`]). Each has its words as `Display`; the run document keeps those
//! words in `ThrottledDetails` beside the figures.

use std::fmt;

use super::{PairRates, Slowdown, ThrottledDetails};

/// Percentage points by which the foreground read's slowdown must differ between the two
/// priorities before the difference is called an effect: two short phases on a shared device
/// vary by a few points on their own.
pub const EFFECT_POINTS: f64 = 0.05;

/// Why background priority cannot act on a destination.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Blocker {
    UnknownDevice,
    Network,
    NoBlockDevice,
    NoScheduler { device: String },
    IgnoresPriorities { device: String, scheduler: String },
    Buffered,
}

impl fmt::Display for Blocker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Blocker::UnknownDevice => f.write_str("the device behind the destination could not be found, so whether its scheduler honours I/O priorities is unknown"),
            Blocker::Network => f.write_str("a network filesystem: I/O priorities apply to local block devices, not to a share's server"),
            Blocker::NoBlockDevice => f.write_str("no block device under the destination (memory or a userspace filesystem): there is no queue for a priority to act on"),
            Blocker::NoScheduler { device } => write!(f, "{device} has no I/O scheduler of its own (stacked devices pass requests on without ordering them by priority)"),
            Blocker::IgnoresPriorities { device, scheduler } => write!(f, "{device}'s I/O scheduler is `{scheduler}`, which ignores I/O priorities: background priority cannot take effect here (bfq or mq-deadline would honour it)"),
            Blocker::Buffered => f.write_str("the filesystem refused O_DIRECT: buffered writes reach the disk through the kernel's writeback threads, which do not carry the writer's I/O priority"),
        }
    }
}

/// Whether background priority can act on a destination: its device and scheduler where
/// known, and what stops the priority (None: it can act).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PriorityEffect {
    pub device: Option<String>,
    pub scheduler: Option<String>,
    pub blocker: Option<Blocker>,
}

impl PriorityEffect {
    pub fn effective(&self) -> bool {
        self.blocker.is_none()
    }

    /// What the device allows, in words.
    pub fn note(&self) -> String {
        match (&self.blocker, &self.scheduler) {
            (Some(blocker), _) => blocker.to_string(),
            (None, Some(s)) => format!("the `{s}` scheduler honours the idle I/O class"),
            (None, None) => "the scheduler honours the idle I/O class".into(),
        }
    }
}

/// What the foreground read went through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// The writer did not slow it even at normal priority: nothing to shield.
    NeverSlowed,
    /// The idle class shielded it.
    Helped,
    /// It was slowed as much beside the idle-class writer as at normal priority.
    NoDifference,
}

/// What the throttled test concludes, from its figures: the device's ability to honour
/// priorities says only what could happen, the figures say whether it did.
#[derive(Debug, Clone, PartialEq)]
pub enum Conclusion {
    CannotAct {
        note: String,
    },
    Measured {
        reader: Reader,
        /// The backup gave way in the idle class.
        yielded: bool,
        normal: Slowdown,
        background: Slowdown,
    },
}

impl Conclusion {
    pub fn of(effect: &PriorityEffect, normal: Slowdown, background: Slowdown) -> Conclusion {
        if !effect.effective() {
            return Conclusion::CannotAct {
                note: effect.note(),
            };
        }
        let reader = if normal.read < EFFECT_POINTS {
            Reader::NeverSlowed
        } else if background.read <= normal.read - EFFECT_POINTS {
            Reader::Helped
        } else {
            Reader::NoDifference
        };
        Conclusion::Measured {
            reader,
            yielded: background.write >= normal.write + EFFECT_POINTS,
            normal,
            background,
        }
    }

    /// Whether the idle class shielded the foreground read: None where the priority cannot act
    /// or there was nothing to shield.
    pub fn idle_class_helped(&self) -> Option<bool> {
        match self {
            Conclusion::Measured {
                reader: Reader::Helped,
                ..
            } => Some(true),
            Conclusion::Measured {
                reader: Reader::NoDifference,
                ..
            } => Some(false),
            _ => None,
        }
    }
}

/// As the terminal shows changes: -28% is 28% slower.
fn pct(slowdown: f64) -> String {
    format!("{:+.0}%", -slowdown * 100.0)
}

impl fmt::Display for Conclusion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (reader, yielded, normal, background) = match self {
            Conclusion::CannotAct { note } => {
                return write!(f, "background priority cannot take effect: {note}");
            }
            Conclusion::Measured {
                reader,
                yielded,
                normal,
                background,
            } => (reader, yielded, normal, background),
        };
        let figures = format!(
            "the foreground read ran {} beside the idle-class writer against {} at normal priority",
            pct(background.read),
            pct(normal.read)
        );
        match reader {
            Reader::NeverSlowed => write!(
                f,
                "the writer did not slow the foreground read even at normal priority ({}), so there was nothing for the idle class to shield",
                pct(normal.read)
            )?,
            Reader::Helped => write!(f, "the idle I/O class helped: {figures}")?,
            Reader::NoDifference => {
                write!(f, "the idle I/O class made no difference here: {figures}")?
            }
        }
        write!(
            f,
            "; the backup {} ({} in the idle class against {} at normal priority)",
            if *yielded { "yielded" } else { "did not yield" },
            pct(background.write),
            pct(normal.write)
        )
    }
}

fn slowdown(alone: &PairRates, together: &PairRates) -> Slowdown {
    let s = |a: f64, t: f64| if a > 0.0 { 1.0 - t / a } else { 0.0 };
    Slowdown {
        write: s(alone.write_mb_s, together.write_mb_s),
        read: s(alone.read_mb_s, together.read_mb_s),
    }
}

impl ThrottledDetails {
    /// The test's figures with its judgement: each side's slowdown against its rate alone, and
    /// the conclusion drawn from them.
    pub fn judged(
        effect: PriorityEffect,
        alone: PairRates,
        normal: PairRates,
        background: PairRates,
    ) -> (ThrottledDetails, Conclusion) {
        let slowdown_normal = slowdown(&alone, &normal);
        let slowdown_background = slowdown(&alone, &background);
        let conclusion = Conclusion::of(&effect, slowdown_normal, slowdown_background);
        let details = ThrottledDetails {
            priority_effective: effect.effective(),
            note: effect.note(),
            device: effect.device,
            scheduler: effect.scheduler,
            alone,
            normal,
            background,
            slowdown_normal,
            slowdown_background,
            idle_class_helped: conclusion.idle_class_helped(),
            conclusion: conclusion.to_string(),
        };
        (details, conclusion)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slowdowns(read: f64, write: f64) -> Slowdown {
        Slowdown { write, read }
    }

    fn effective() -> PriorityEffect {
        PriorityEffect {
            device: Some("disk sdb".into()),
            scheduler: Some("mq-deadline".into()),
            blocker: None,
        }
    }

    /// The conclusion's idle-class verdict and its words, for the slowdowns at normal and at
    /// background priority.
    fn concluded(normal: Slowdown, background: Slowdown) -> (Option<bool>, String) {
        let c = Conclusion::of(&effective(), normal, background);
        (c.idle_class_helped(), c.to_string())
    }

    #[test]
    fn the_conclusion_follows_the_figures_not_the_scheduler() {
        // (read and write slowdowns at normal and at background priority, helped, words)
        let cases: [(Slowdown, Slowdown, Option<bool>, &[&str]); 3] = [
            // The reader suffered more beside the idle-class writer.
            (
                slowdowns(0.28, 0.1),
                slowdowns(0.42, 0.1),
                Some(false),
                &[
                    "made no difference",
                    "-42%",
                    "-28%",
                    "the backup did not yield",
                ],
            ),
            // Within the noise margin is no effect either.
            (slowdowns(0.28, 0.1), slowdowns(0.25, 0.1), Some(false), &[]),
            // The idle class shielding the reader, at the backup's expense.
            (
                slowdowns(0.40, 0.1),
                slowdowns(0.10, 0.9),
                Some(true),
                &[
                    "helped",
                    "-10%",
                    "-40%",
                    "the backup yielded (-90% in the idle class against -10%",
                ],
            ),
        ];
        for (normal, background, helped, words) in cases {
            let (got, text) = concluded(normal, background);
            assert_eq!(got, helped, "{text}");
            assert!(
                words.iter().all(|w| text.contains(w)),
                "{words:?} in {text}"
            );
        }
    }

    #[test]
    fn no_conclusion_without_contention_or_a_priority_that_can_act() {
        // The reader never slowed, the idle-class writer gave way.
        let (helped, text) = concluded(slowdowns(0.01, -0.01), slowdowns(0.01, 0.97));
        assert_eq!(helped, None);
        assert!(
            text.contains("nothing for the idle class to shield"),
            "{text}"
        );
        assert!(text.contains("the backup yielded (-97%"), "{text}");
        let blocked = PriorityEffect {
            blocker: Some(Blocker::IgnoresPriorities {
                device: "disk sdb".into(),
                scheduler: "none".into(),
            }),
            ..effective()
        };
        let c = Conclusion::of(&blocked, slowdowns(0.5, 0.0), slowdowns(0.1, 0.0));
        assert_eq!(c.idle_class_helped(), None);
        assert!(
            c.to_string().starts_with(
                "background priority cannot take effect: disk sdb's I/O scheduler is `none`"
            ),
            "{c}"
        );
    }
}
