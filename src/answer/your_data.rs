//! "Your data": how much the user backs up. By default the used bytes and files of the volume
//! that holds the home folder, read from the filesystem's counters at once (no walk); with
//! `--source`, the folder the run copied.

use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::platform::{self, UserDir};
use crate::results::{DataKind, RunDocument, YourData};
use crate::runner::{self, Progress};
use crate::settings::defs;
use crate::tree::survey;
use crate::workload::{SetName, Workload};

/// The volume holding the home folder (`$HOME`, Windows' `%USERPROFILE%`; the root where
/// neither is set): its used bytes and files, or the reason it could not be read.
pub fn home_volume() -> Result<YourData, String> {
    let home = platform::user_dir(UserDir::Home).unwrap_or_else(|| PathBuf::from("/"));
    volume(&home)
}

/// The used bytes and files of the volume holding `path`.
fn volume(path: &Path) -> Result<YourData, String> {
    let usage = platform::volume_usage(path)
        .map_err(|e| format!("the volume of {} cannot be read: {e}", path.display()))?;
    Ok(YourData {
        kind: DataKind::HomeVolume,
        path: path.display().to_string(),
        bytes: usage.used_bytes,
        files: usage.used_files,
    })
}

/// Threads listing the folder's directories: the survey waits on the filesystem, not the CPU.
const SURVEY_THREADS: usize = 8;

/// The folder the user names as what they back up (`--data`): its bytes and files from a
/// survey of names and sizes (a file with several names counted once, as a backup keeps it).
pub fn folder(path: &Path, progress: &mut dyn Progress) -> Result<YourData> {
    runner::check_folder(path, &defs::DATA)?;
    progress.update(&format!(
        "surveying {} (names and sizes only)",
        path.display()
    ));
    let survey = survey::survey(path, SURVEY_THREADS, false)?;
    let h = &survey.histogram;
    Ok(YourData {
        kind: DataKind::Folder,
        path: path.display().to_string(),
        bytes: h.total_bytes(),
        files: Some(h.total_files() + survey.symlinks),
    })
}

/// The user's folder the run copied as its file set (`--source`), as the run counted it.
pub fn folder_of_run(run: &RunDocument) -> Option<YourData> {
    run.results.iter().find_map(|r| {
        let set = r.file_set.as_ref()?;
        matches!(
            &r.workload,
            Some(Workload::FileSet {
                set: SetName::Source,
                ..
            })
        )
        .then(|| YourData {
            kind: DataKind::Folder,
            path: set.source_path.clone(),
            bytes: set.bytes,
            files: Some(set.files),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The volume holding this source tree has used bytes (the tree's at least); a path that
    /// is not there is an error, not a zero.
    #[test]
    fn a_volume_reports_its_used_bytes_without_a_walk() {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        let data = volume(here).unwrap();
        assert_eq!(data.kind, DataKind::HomeVolume);
        assert!(data.bytes > 100_000, "{data:?}");
        assert!(volume(&here.join("no such folder")).is_err());
    }
}
