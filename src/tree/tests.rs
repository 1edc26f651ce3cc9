use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::time::Duration;

use super::*;
use crate::workload::fileset::{self, SetKind, SetSpec};

fn run_task(task: &Task, root: &Path, threads: usize) -> Outcome {
    run(
        task,
        root,
        threads,
        Duration::from_millis(100),
        "test",
        &mut |_| {},
    )
    .unwrap()
}

fn small_set(dir: &Path, files: u64) -> fileset::SetSummary {
    let spec = SetSpec {
        kind: SetKind::Small,
        total_bytes: u64::MAX,
        max_files: files,
        size_cap: 1 << 30,
        seed: 11,
    };
    fileset::generate(&spec, dir).unwrap()
}

#[test]
fn copy_keeps_content_mode_times_and_links_and_lists_special_files() {
    let src = tempfile::tempdir().unwrap();
    let dst = tempfile::tempdir().unwrap();
    let set = small_set(src.path(), 500);
    fs::set_permissions(
        src.path().join("f0001.bin"),
        fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    std::os::unix::fs::symlink("/etc/passwd", src.path().join("link")).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        src.path().join("fifo"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    for threads in [1, 4] {
        let copy = dst.path().join(format!("copy{threads}"));
        fs::create_dir(&copy).unwrap();
        let task = Task::Copy {
            dst: copy.clone(),
            durable_each: threads == 1,
            uring: threads == 4,
        };
        let out = run_task(&task, src.path(), threads);
        assert_eq!(
            (out.files, out.bytes, out.dirs),
            (set.files, set.bytes, set.dirs)
        );
        assert_eq!(out.symlinks, 1);
        assert_eq!(out.special.count, 1);
        assert_eq!(out.special.examples, ["fifo"]);
        assert_eq!(out.latency.count(), set.files);
        let meta = fs::metadata(copy.join("f0001.bin")).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
        assert_eq!(meta.mtime(), fileset::GENERATED_MTIME.as_secs() as i64);
        assert_eq!(
            fs::read_link(copy.join("link")).unwrap(),
            Path::new("/etc/passwd")
        );
        let verify = run_task(
            &Task::Verify {
                source: src.path().to_path_buf(),
            },
            &copy,
            threads,
        );
        assert_eq!(verify.mismatches.count, 0);
        assert_eq!(verify.files, set.files);
    }
}

#[test]
fn verify_finds_a_changed_byte() {
    let src = tempfile::tempdir().unwrap();
    let dst = tempfile::tempdir().unwrap();
    small_set(src.path(), 50);
    run_task(
        &Task::Copy {
            dst: dst.path().to_path_buf(),
            durable_each: false,
            uring: true,
        },
        src.path(),
        2,
    );
    let victim = dst.path().join("f0007.bin");
    let mut bytes = fs::read(&victim).unwrap();
    bytes[100] ^= 1;
    fs::write(&victim, bytes).unwrap();
    let out = run_task(
        &Task::Verify {
            source: src.path().to_path_buf(),
        },
        dst.path(),
        3,
    );
    assert_eq!(out.mismatches.count, 1);
    assert_eq!(out.mismatches.examples, ["f0007.bin"]);
}

#[test]
fn read_and_delete_cover_every_file() {
    let src = tempfile::tempdir().unwrap();
    let set = small_set(src.path(), 300);
    let read = run_task(&Task::Read, src.path(), 2);
    assert_eq!((read.files, read.bytes), (set.files, set.bytes));
    let deleted = run_task(&Task::Delete, src.path(), 4);
    assert_eq!(deleted.files, set.files);
    assert_eq!(
        fs::read_dir(src.path()).unwrap().count(),
        0,
        "everything below root removed"
    );
}
