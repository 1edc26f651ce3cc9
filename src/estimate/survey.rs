//! The source as the estimate sees it: surveyed once (names and sizes, never contents), and
//! its shape for each tool, which copies hard links its own way.

use std::path::Path;

use crate::error::Result;
use crate::platform;
use crate::tree::size_classes::SizeHistogram;
use crate::tree::survey::{self as tree_survey, Survey};
use crate::workload::Tool;

use super::model::TreeShape;

/// Threads listing directories: the survey waits on the filesystem far more than on the CPU,
/// so more threads than cores keep more requests in flight (a disk's queue, a share's round
/// trips).
const SURVEY_THREADS: usize = 8;

/// The surveyed source.
pub struct Surveyed {
    pub survey: Survey,
    /// Seconds the tree took to list from a cold cache on one thread, where that was timed.
    pub listing_s: Option<f64>,
    /// Every name of every file: what a tool that does not keep hard links copies.
    every_name: SizeHistogram,
}

/// Surveys the tree at `root`. A first backup also reads the tree's directories and inodes
/// from a cold cache: with `cold` (`--measure-source`) as root, the machine's caches are
/// dropped first (only clean copies: no data is written) and the tree is listed on one
/// thread, as cp and rsync walk it, and that listing's time is the source's metadata cost.
/// Otherwise the listing is quick and untimed.
pub fn survey(root: &Path, cold: bool, cross_filesystems: bool) -> Result<Surveyed> {
    let cold_listing = cold
        && platform::is_root()
        && platform::drop_caches().is_ok()
        && platform::drop_inode_caches().is_ok();
    let threads = if cold_listing { 1 } else { SURVEY_THREADS };
    let survey = tree_survey::survey(root, threads, cross_filesystems)?;
    let mut every_name = survey.histogram.clone();
    every_name.merge(&survey.hard_links);
    Ok(Surveyed {
        listing_s: cold_listing.then_some(survey.elapsed.as_secs_f64()),
        survey,
        every_name,
    })
}

impl Surveyed {
    /// The tree as `tool` copies it: a tool that copies each name of a file with several
    /// names copies its data each time.
    pub fn shape(&self, tool: &Tool) -> TreeShape<'_> {
        let s = &self.survey;
        let keeps = tool.keeps_hard_links();
        TreeShape {
            histogram: if keeps {
                &s.histogram
            } else {
                &self.every_name
            },
            // The root exists at the destination already.
            dirs: s.dirs.saturating_sub(1),
            symlinks: s.symlinks,
            hard_links: if keeps { s.hard_links.total_files() } else { 0 },
        }
    }
}
