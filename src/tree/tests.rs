use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::time::Duration;

use super::*;
use crate::workload::fileset::{self, SetKind, SetSpec};

fn run_task(task: &Task, root: &Path, threads: usize) -> Outcome {
    run_on(&EngineFactory::system(), task, root, threads)
}

/// The directory at `path`, opened as a task's root.
fn at(path: &Path) -> Root {
    Root::open(path).unwrap()
}

fn run_on(engines: &EngineFactory, task: &Task, root: &Path, threads: usize) -> Outcome {
    run_at(engines, task, &at(root), threads)
}

fn run_at(engines: &EngineFactory, task: &Task, root: &Root, threads: usize) -> Outcome {
    run(
        task,
        root,
        engines,
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
    crate::platform::make_fifo(&src.path().join("fifo")).unwrap();
    for threads in [1, 4] {
        let copy = dst.path().join(format!("copy{threads}"));
        fs::create_dir(&copy).unwrap();
        let task = Task::Copy {
            dst: at(&copy),
            durable_each: threads == 1,
        };
        let out = run_on(&EngineFactory::system(), &task, src.path(), threads);
        assert_eq!(
            (out.files, out.bytes, out.dirs),
            (set.files, set.bytes, set.dirs)
        );
        let link = fs::read_link(copy.join("link")).unwrap();
        assert_eq!(link, std::path::Path::new("/etc/passwd"));
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
                source: at(src.path()),
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
    run_on(
        &EngineFactory::system(),
        &Task::Copy {
            dst: at(dst.path()),
            durable_each: false,
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
            source: at(src.path()),
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

/// On the null engine a task runs on virtual lanes: 300 small files (one 1 MiB chunk each) on
/// 4 lanes are 75 files a lane, each a create (10 µs) and a write (100 µs), then one syncfs.
#[test]
fn null_engine_copies_restores_and_deletes_in_exact_virtual_time() {
    let src = tempfile::tempdir().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let set = small_set(src.path(), 300);
    let engines =
        EngineFactory::new(crate::engine::EngineChoice::Null(Default::default())).unwrap();
    let dst = make_dir(&at(scratch.path()), "copy", &engines).unwrap();
    let task = Task::Copy {
        dst: dst.clone(),
        durable_each: false,
    };
    let us = Duration::from_micros;
    let copied = run_on(&engines, &task, src.path(), 4);
    assert_eq!(
        (copied.files, copied.bytes, copied.dirs),
        (set.files, set.bytes, set.dirs)
    );
    assert_eq!(copied.elapsed, 75 * us(110) + us(1000));
    assert_eq!(copied.engine, EngineKind::Null);
    assert!(!dst.path().exists(), "the null engine wrote nothing");

    let read = run_at(&engines, &Task::Read, &dst, 3);
    assert_eq!((read.files, read.bytes), (set.files, set.bytes));
    assert_eq!(read.elapsed, 100 * us(110));

    let deleted = run_at(&engines, &Task::Delete, &dst, 1);
    assert_eq!(deleted.files, set.files);
    // 300 unlinks, then the directories removed and one syncfs.
    assert_eq!(
        deleted.elapsed,
        300 * us(10) + set.dirs as u32 * us(10) + us(1000)
    );
}

/// A destination that fills up stops the copy with the error that names it and what was done.
#[test]
fn a_full_destination_stops_the_copy_and_says_how_far_it_got() {
    let src = tempfile::tempdir().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    small_set(src.path(), 300);
    let tree = crate::engine::tree::VirtualTree::with_capacity(100_000);
    let engines = EngineFactory::null_on(Default::default(), tree);
    let dst = make_dir(&at(scratch.path()), "copy", &engines).unwrap();
    let task = Task::Copy {
        dst,
        durable_each: false,
    };
    let error = run(
        &task,
        &at(src.path()),
        &engines,
        2,
        Duration::from_millis(100),
        "copying",
        &mut |_| {},
    )
    .unwrap_err();
    match error {
        Error::DestinationFull { during } => {
            assert!(during.starts_with("copying: writing "), "{during}");
            assert!(during.contains(" files / "), "{during}");
        }
        other => panic!("not a full destination: {other}"),
    }
}

/// The elapsed time used to be taken after a supervisor that polled every 50 ms, so every copy,
/// read and delete lasted a whole number of ticks.
#[test]
fn tree_times_are_not_rounded_to_a_polling_tick() {
    let src = tempfile::tempdir().unwrap();
    small_set(src.path(), 40);
    let mut times = Vec::new();
    for _ in 0..3 {
        let dst = tempfile::tempdir().unwrap();
        let copy = Task::Copy {
            dst: at(dst.path()),
            durable_each: false,
        };
        times.push(run_task(&copy, src.path(), 2).elapsed);
        times.push(run_task(&Task::Read, dst.path(), 2).elapsed);
        times.push(run_task(&Task::Delete, dst.path(), 2).elapsed);
    }
    let tick = Duration::from_millis(50).as_nanos();
    assert!(
        times.iter().any(|t| t.as_nanos() % tick != 0),
        "every time is a multiple of 50 ms: {times:?}"
    );
    // A walk of 40 files takes well under a tick on any disk that can run the tests.
    assert!(
        times.iter().any(|t| *t < Duration::from_millis(50)),
        "{times:?}"
    );
}
