//! Small files copied in batches through io_uring: for a batch of files (one directory's, see
//! [`MAX_BATCH`]), one submission stats, opens and reads every source, a second creates, writes,
//! (fsyncs) and closes every copy, with the files held as io_uring direct descriptors. That
//! replaces about eight system calls per file with two per batch, plus one `utimensat` per file
//! to keep its times (io_uring has no operation for that). Files larger than one buffer go back
//! to the ordinary path.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::os::unix::ffi::OsStrExt;

use io_uring::{IoUring, opcode, squeue, types};

use super::{Batch, Copied, CopyError};

/// Files in one batch (the walker sends at most this many, all from one directory).
pub const MAX_BATCH: usize = 8;
/// The largest file copied this way; larger ones take the ordinary path.
pub const MAX_SIZE: usize = 64 << 10;

/// The steps of one file's copy, in the order they run; a completion carries its step in the low
/// byte of its user_data (the file's index above it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Step {
    Statx,
    OpenSrc,
    Read,
    OpenDst,
    Write,
    Fsync,
    CloseDst,
    CloseSrc,
}

const STEPS: usize = Step::CloseSrc as usize + 1;

/// One file's step results (the kernel's return values), looked up by step.
#[derive(Debug, Clone, Copy, Default)]
struct StepResults([i32; STEPS]);

impl std::ops::Index<Step> for StepResults {
    type Output = i32;
    fn index(&self, step: Step) -> &i32 {
        &self.0[step as usize]
    }
}

pub struct UringCopier {
    ring: IoUring,
    buffers: Vec<Vec<u8>>,
    stats: Box<[libc::statx]>,
    /// Set when the ring failed with requests possibly still in flight: from then on every file
    /// takes the ordinary path, and the memory those requests point at is never freed.
    broken: bool,
}

impl UringCopier {
    /// A ring with room for two batches' requests and a table of direct descriptors (Linux 5.19+);
    /// Err where the kernel cannot, and the caller copies the ordinary way.
    pub fn new() -> io::Result<Self> {
        let ring = IoUring::new((MAX_BATCH * STEPS).next_power_of_two() as u32)?;
        ring.submitter()
            .register_files_sparse((2 * MAX_BATCH) as u32)?;
        // SAFETY: statx is plain old data; all-zero is a valid value.
        let zero: libc::statx = unsafe { std::mem::zeroed() };
        Ok(UringCopier {
            ring,
            buffers: (0..MAX_BATCH).map(|_| vec![0u8; MAX_SIZE]).collect(),
            stats: vec![zero; MAX_BATCH].into_boxed_slice(),
            broken: false,
        })
    }

    /// Pushes entries and waits for all their completions; returns each result by user_data.
    ///
    /// # Safety
    ///
    /// Every pointer in `entries` (paths, buffers, statx records) must point at memory that stays
    /// allocated and untouched until this function returns; if it returns an error, until the
    /// ring is gone ([`poison`](Self::poison) keeps it so). Every descriptor the entries name
    /// must stay open until this function returns.
    unsafe fn run(
        &mut self,
        entries: &[squeue::Entry],
        results: &mut [StepResults],
    ) -> io::Result<()> {
        for entry in entries {
            // SAFETY: the caller keeps what the entry points at alive and untouched until its
            // completion is reaped below (see this function's contract).
            unsafe { self.ring.submission().push(entry) }
                .map_err(|_| io::Error::other("io_uring submission queue full"))?;
        }
        let mut left = entries.len();
        while left > 0 {
            match self.ring.submit_and_wait(left) {
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
            for cqe in self.ring.completion() {
                let data = cqe.user_data();
                results[(data >> 8) as usize].0[(data & 0xff) as usize] = cqe.result();
                left -= 1;
            }
        }
        Ok(())
    }

    /// Copies each file of the batch from its `source` directory to `target` (the descriptor of
    /// the batch's target directory).
    pub fn copy_batch(
        &mut self,
        source: BorrowedFd<'_>,
        target: BorrowedFd<'_>,
        batch: &Batch<'_>,
    ) -> Vec<Copied> {
        let Batch {
            files,
            durable,
            umask,
            ..
        } = *batch;
        assert!(
            files.len() <= MAX_BATCH,
            "batch larger than the ring was built for"
        );
        if self.broken {
            return files.iter().map(|_| Copied::Ordinary).collect();
        }
        let (src_dir, dst_dir) = (types::Fd(source.as_raw_fd()), types::Fd(target.as_raw_fd()));
        let mut out: Vec<Option<Copied>> = (0..files.len()).map(|_| None).collect();
        let mut paths = Vec::with_capacity(files.len());
        for (i, file) in files.iter().enumerate() {
            match CString::new(file.name.as_bytes()) {
                Ok(name) => paths.push((name.clone(), name)),
                Err(e) => {
                    out[i] = Some(Copied::Failed(CopyError::Source(io::Error::other(e))));
                    paths.push((CString::default(), CString::default()));
                }
            }
        }
        let mut results = vec![StepResults::default(); files.len()];
        let tag = |i: usize, step: Step| ((i as u64) << 8) | step as u64;

        // 1: stat, open and read every source.
        let mut first = Vec::new();
        for (i, (src, _)) in paths.iter().enumerate() {
            if out[i].is_some() {
                continue;
            }
            let slot = types::DestinationSlot::try_from_slot_target(i as u32).expect("slot");
            let statx = (&mut self.stats[i] as *mut libc::statx).cast::<types::statx>();
            first.push(
                opcode::Statx::new(src_dir, src.as_ptr(), statx)
                    .flags(libc::AT_SYMLINK_NOFOLLOW)
                    .mask(libc::STATX_BASIC_STATS)
                    .build()
                    .user_data(tag(i, Step::Statx)),
            );
            first.push(
                opcode::OpenAt::new(src_dir, src.as_ptr())
                    // No O_CLOEXEC: direct descriptors are not in the fd table, and io_uring
                    // refuses the flag for them. O_NONBLOCK: a FIFO swapped in cannot block.
                    .flags(libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK)
                    .file_index(Some(slot))
                    .build()
                    .flags(squeue::Flags::IO_LINK)
                    .user_data(tag(i, Step::OpenSrc)),
            );
            let buf = self.buffers[i].as_mut_ptr();
            first.push(
                opcode::Read::new(types::Fixed(i as u32), buf, MAX_SIZE as u32)
                    .offset(0)
                    .build()
                    .user_data(tag(i, Step::Read)),
            );
        }
        // SAFETY: the entries point into `paths`, `self.buffers` and `self.stats`, which live
        // until the end of this function or, after a ring failure, forever (`poison`); the
        // directory descriptors are borrowed for the whole call.
        if let Err(e) = unsafe { self.run(&first, &mut results) } {
            self.poison(paths);
            return fail_all(out, e);
        }

        // 2: create, write, (fsync,) close every copy; close every source.
        let mut second = Vec::new();
        let mut sizes = vec![0usize; files.len()];
        for (i, (_, dst)) in paths.iter().enumerate() {
            if out[i].is_some() {
                continue;
            }
            let r = results[i];
            if r[Step::OpenSrc] >= 0 {
                second.push(
                    opcode::Close::new(types::Fixed(i as u32))
                        .build()
                        .user_data(tag(i, Step::CloseSrc)),
                );
            }
            let failed = [Step::Statx, Step::OpenSrc, Step::Read]
                .into_iter()
                .find(|&step| r[step] < 0);
            if let Some(op) = failed {
                out[i] = Some(Copied::Failed(CopyError::Source(
                    io::Error::from_raw_os_error(-r[op]),
                )));
                continue;
            }
            let size = self.stats[i].stx_size as usize;
            let read = r[Step::Read] as usize;
            if size > MAX_SIZE || read != size {
                out[i] = Some(Copied::Ordinary);
                continue;
            }
            sizes[i] = read;
            let mode = u32::from(self.stats[i].stx_mode) & 0o7777;
            let slot =
                types::DestinationSlot::try_from_slot_target((MAX_BATCH + i) as u32).expect("slot");
            let fixed = types::Fixed((MAX_BATCH + i) as u32);
            second.push(
                opcode::OpenAt::new(dst_dir, dst.as_ptr())
                    .flags(libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW)
                    .mode(mode)
                    .file_index(Some(slot))
                    .build()
                    .flags(squeue::Flags::IO_LINK)
                    .user_data(tag(i, Step::OpenDst)),
            );
            second.push(
                opcode::Write::new(fixed, self.buffers[i].as_ptr(), read as u32)
                    .offset(0)
                    .build()
                    .flags(squeue::Flags::IO_LINK)
                    .user_data(tag(i, Step::Write)),
            );
            if durable {
                second.push(
                    opcode::Fsync::new(fixed)
                        .build()
                        .flags(squeue::Flags::IO_LINK)
                        .user_data(tag(i, Step::Fsync)),
                );
            }
            second.push(
                opcode::Close::new(fixed)
                    .build()
                    .user_data(tag(i, Step::CloseDst)),
            );
        }
        // SAFETY: as for the first submission.
        if let Err(e) = unsafe { self.run(&second, &mut results) } {
            self.poison(paths);
            return fail_created(out, &e);
        }

        // 3: the outcome of each copy, and its times (and mode, if the umask changed it).
        for (i, (_, dst)) in paths.iter().enumerate() {
            if out[i].is_some() {
                continue;
            }
            let r = results[i];
            let mut ops = vec![Step::OpenDst, Step::Write];
            if durable {
                ops.push(Step::Fsync);
            }
            ops.push(Step::CloseDst);
            if let Some(op) = ops.into_iter().find(|&op| r[op] < 0) {
                out[i] = Some(Copied::Failed(CopyError::Destination(
                    io::Error::from_raw_os_error(-r[op]),
                )));
                continue;
            }
            if r[Step::Write] as usize != sizes[i] {
                out[i] = Some(Copied::Failed(CopyError::Destination(
                    io::ErrorKind::WriteZero.into(),
                )));
                continue;
            }
            let st = &self.stats[i];
            let time = |t: libc::statx_timestamp| rustix::fs::Timespec {
                tv_sec: t.tv_sec,
                tv_nsec: t.tv_nsec.into(),
            };
            let times = rustix::fs::Timestamps {
                last_access: time(st.stx_atime),
                last_modification: time(st.stx_mtime),
            };
            let path = dst.as_c_str();
            let mode = u32::from(st.stx_mode) & 0o7777;
            let meta =
                rustix::fs::utimensat(target, path, &times, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
                    .and_then(|()| {
                        if mode & !umask != mode {
                            rustix::fs::chmodat(
                                target,
                                path,
                                rustix::fs::Mode::from_raw_mode(mode),
                                rustix::fs::AtFlags::empty(),
                            )
                        } else {
                            Ok(())
                        }
                    });
            out[i] = Some(match meta {
                Ok(()) => Copied::Done(sizes[i] as u64),
                Err(e) => Copied::Failed(CopyError::Destination(e.into())),
            });
        }
        out.into_iter()
            .map(|c| c.expect("every file has an outcome"))
            .collect()
    }
}

impl UringCopier {
    /// After a ring failure the kernel may still hold pointers into the paths, buffers and statx
    /// records: leak them rather than free memory it could still write.
    fn poison(&mut self, paths: Vec<(CString, CString)>) {
        std::mem::forget(paths);
        std::mem::forget(std::mem::take(&mut self.buffers));
        std::mem::forget(std::mem::replace(&mut self.stats, Box::new([])));
        self.broken = true;
    }
}

/// When the ring failed after the destination files may have been created, every file not yet
/// decided fails with the ring's error: copied again file by file, its create would fail with
/// "File exists" and hide what really happened (a failing disk's EIO).
fn fail_created(out: Vec<Option<Copied>>, error: &io::Error) -> Vec<Copied> {
    let again = || match error.raw_os_error() {
        Some(code) => io::Error::from_raw_os_error(code),
        None => io::Error::new(error.kind(), error.to_string()),
    };
    out.into_iter()
        .map(|c| c.unwrap_or_else(|| Copied::Failed(CopyError::Destination(again()))))
        .collect()
}

/// When the ring itself failed before anything was created, every file not yet decided goes
/// back to the ordinary path.
fn fail_all(out: Vec<Option<Copied>>, _error: io::Error) -> Vec<Copied> {
    out.into_iter()
        .map(|c| c.unwrap_or(Copied::Ordinary))
        .collect()
}
