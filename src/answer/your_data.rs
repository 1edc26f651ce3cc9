//! "Your data": how much the user backs up, and how fast it reads. By default the used bytes
//! and files of the volume that holds the home folder, read from the filesystem's counters at
//! once (no walk); with `--data`, a folder surveyed; with `--source`, the folder the run
//! copied. How fast it reads: a bounded sample of the folder's (or the home folder's) files
//! read from a cold cache (`estimate::source_sample`), fitted to a cost per file and a rate.

use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::estimate::model::ReadCosts;
use crate::estimate::source_sample;
use crate::platform::{self, UserDir};
use crate::results::{DataKind, DataReads, RunDocument, YourData};
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
        reads: None,
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
        reads: None,
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
            reads: None,
        })
    })
}

/// `data` with how fast it reads: a sample of its folder (the home folder for the home volume)
/// read cold, a few seconds at most; without it where the folder cannot be read or no read
/// took time.
pub fn with_reads(mut data: YourData, progress: &mut dyn Progress) -> YourData {
    progress.update(&format!(
        "reading a sample of {} from a cold cache (a few seconds)",
        data.path
    ));
    let Ok(sample) = source_sample::sample(Path::new(&data.path)) else {
        return data;
    };
    let reads: Vec<(u64, f64)> = sample.reads.iter().map(|r| (r.bytes, r.seconds)).collect();
    let Some(costs) = ReadCosts::of(&reads) else {
        return data;
    };
    let (cold, cache) = match sample.cold() {
        Ok(how) => (true, how),
        Err(why) => (false, why),
    };
    data.reads = Some(DataReads {
        path: data.path.clone(),
        files_sampled: reads.len() as u64,
        bytes_sampled: reads.iter().map(|r| r.0).sum(),
        sample_seconds: sample.took.as_secs_f64(),
        per_file_s: costs.per_file_s(),
        mb_s: costs.bytes_per_s().times(1e-6),
        seconds: costs.seconds(data.files.unwrap_or(0), data.bytes),
        cold,
        cache,
    });
    data
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

    /// A folder's reads: each of its files read (written to the disk first: pages not yet
    /// written cannot be dropped), cold where the system drops a file's pages (Linux), at costs
    /// that give its whole time; a folder that is not there has none.
    #[test]
    fn a_folders_reads_are_sampled_and_fitted() {
        let dir = tempfile::tempdir().unwrap();
        for (i, size) in [100usize, 3_000, 20_000, 100_000, 600_000]
            .iter()
            .enumerate()
        {
            for j in 0..6 {
                let path = dir.path().join(format!("f{i}-{j}"));
                std::fs::write(&path, vec![1u8; *size]).unwrap();
                // Written back, so its pages can be dropped (Windows syncs a writable handle only).
                let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
                file.sync_all().unwrap();
            }
        }
        let data = folder(dir.path(), &mut runner::NoProgress).unwrap();
        let data = with_reads(data, &mut runner::NoProgress);
        let reads = data.reads.as_ref().expect("sampled");
        assert_eq!(reads.files_sampled, 30, "{reads:?}");
        assert_eq!(reads.bytes_sampled, data.bytes);
        assert_eq!(reads.cold, cfg!(target_os = "linux"), "{reads:?}");
        let s = reads.seconds;
        assert!(
            0.0 < s.low && s.low <= s.expected && s.expected <= s.high,
            "{s:?}"
        );
        let mut gone = data.clone();
        gone.reads = None;
        gone.path = dir.path().join("gone").display().to_string();
        assert!(with_reads(gone, &mut runner::NoProgress).reads.is_none());
    }
}
