//! The whole-file tests (20-100 MB transfers, Time Machine's 50 MB file) and the many-files test
//! (Time Machine's 500 files of 4 KB written at once).

use std::borrow::Cow;
use std::time::Duration;

use crate::engine::{Completion, Engine, FileId, IoRequest, Op};
use crate::error::{Error, Result};
use crate::interrupt;
use crate::platform;
use crate::results::{Method, OpKind, Untimed};
use crate::units;
use crate::workload::Direction;

use crate::runner::ctx::{Ctx, Measured};
use crate::runner::kinds::block::fill_buffers;
use crate::runner::kinds::stream::{self, Chunk, Recorder};
use crate::runner::kinds::test::{Rep, Shape, Test};
use crate::runner::untimed::Work;
use crate::settings::RunPlan;

/// Requests in flight for whole-file transfers: enough to stream like kernel writeback and
/// readahead do, few enough to stay a single sequential stream.
const WHOLE_FILE_DEPTH: usize = 4;
/// Files in flight in the many-files test.
const MANY_FILES_DEPTH: usize = 32;

/// Whole new files, one after another (QuickBench's transfers, Time Machine's big file); the
/// read variant reads back files laid down before its first repetition.
pub(in crate::runner) struct WholeFilesTest {
    pub direction: Direction,
    pub sizes: Cow<'static, [u64]>,
    pub block: usize,
}

impl Test for WholeFilesTest {
    fn shape(&self) -> Shape {
        Shape::io(self.block, WHOLE_FILE_DEPTH)
    }

    /// A read keeps every file it reads back; a write keeps one file at a time.
    fn space_needed(&self, _plan: &RunPlan) -> u64 {
        match self.direction {
            Direction::Read => self.sizes.iter().sum(),
            Direction::Write => self.sizes.iter().copied().max().unwrap_or(0),
        }
    }

    fn planned_bytes(&self, _plan: &RunPlan) -> u64 {
        self.sizes.iter().sum()
    }

    fn prepare_bytes(&self, _plan: &RunPlan) -> u64 {
        match self.direction {
            Direction::Read => self.sizes.iter().sum(),
            Direction::Write => 0,
        }
    }

    fn prepare(&mut self, rep: Rep<'_, '_>) -> Result<()> {
        match self.direction {
            Direction::Read => prepare_read_files(rep.ctx, &self.sizes, self.block),
            Direction::Write => Ok(()),
        }
    }

    fn measure(&mut self, rep: Rep<'_, '_>) -> Result<Measured> {
        measure_whole(rep.ctx, self.direction, &self.sizes, self.block, rep.index)
    }

    fn clean_up(&mut self, ctx: &mut Ctx<'_>) {
        if self.direction == Direction::Read {
            for index in 0..self.sizes.len() {
                ctx.remove_file(&read_file_name(index));
            }
        }
    }
}

/// Many small new files written at once (Time Machine's check).
pub(in crate::runner) struct ManyFilesTest {
    pub count: usize,
    pub size: u64,
}

impl Test for ManyFilesTest {
    fn shape(&self) -> Shape {
        Shape {
            op_kind: OpKind::File,
            ..Shape::io(self.size as usize, MANY_FILES_DEPTH.min(self.count))
        }
    }

    fn space_needed(&self, _plan: &RunPlan) -> u64 {
        self.count as u64 * self.size.next_multiple_of(4096)
    }

    fn planned_bytes(&self, plan: &RunPlan) -> u64 {
        self.space_needed(plan)
    }

    fn planned_files(&self, _plan: &RunPlan) -> u64 {
        self.count as u64
    }

    fn prepare_bytes(&self, plan: &RunPlan) -> u64 {
        self.space_needed(plan)
    }

    fn prepare_files(&self, plan: &RunPlan) -> u64 {
        self.planned_files(plan)
    }

    /// Its files go [`MANY_FILES_DEPTH`] at a time: on the testbed's sshfs share 0.35-0.64 ms
    /// each, where a set's copy, one file after another, took 0.93-2.1 ms a file.
    fn teaches(&self) -> bool {
        false
    }

    /// A warm-up: the files written once, untimed. A repetition lasts too little to hold a
    /// steady part, and the first after another test starts where that test left the
    /// destination (a write cache full or drained), not where the next repetitions do.
    fn prepare(&mut self, rep: Rep<'_, '_>) -> Result<()> {
        let start = std::time::Instant::now();
        let warmed = measure_many(rep.ctx, self.count, self.size, rep.index);
        let work = Work::new(
            Untimed::Copy,
            self.prepare_bytes(rep.plan),
            self.prepare_files(rep.plan),
        );
        // A repetition of its own, untimed: not the price of a copy.
        rep.ctx.ledger.apart(work, start.elapsed().as_secs_f64());
        warmed.map(drop)
    }

    fn measure(&mut self, rep: Rep<'_, '_>) -> Result<Measured> {
        measure_many(rep.ctx, self.count, self.size, rep.index)
    }
}

/// Names of the files read back by the whole-file read test.
fn read_file_name(index: usize) -> String {
    format!("transfer-{index}.dat")
}

/// The chunks of a whole file of `size` bytes. With direct I/O the tail is issued as a whole
/// block (direct I/O needs aligned lengths) and only the file's bytes are counted.
fn chunks(size: u64, block: usize, direct: bool) -> impl FnMut() -> Option<Chunk> {
    let mut offset = 0u64;
    move || {
        if offset >= size {
            return None;
        }
        let remaining = size - offset;
        let counted = remaining.min(block as u64);
        let len = if direct { block } else { counted as usize };
        let chunk = Chunk {
            offset,
            len,
            counted,
        };
        offset += counted;
        Some(chunk)
    }
}

/// Creates `name` and writes `size` bytes to it, durable on return; everything inside the
/// caller's timing.
fn write_file(
    ctx: &mut Ctx<'_>,
    engine: &mut dyn Engine,
    name: &str,
    size: u64,
    block: usize,
    recorder: &mut Recorder,
) -> Result<()> {
    let what = || format!("writing {name} ({})", units::format_bytes(size));
    let file = engine
        .open(ctx.scratch.fd(), name, ctx.access.open_how(true, true))
        .map_err(|e| Error::io(what(), e))?;
    let next = chunks(size, block, ctx.access.direct);
    let stamper = &mut *ctx.stamper;
    stream::stream(
        engine,
        file,
        Op::Write,
        WHOLE_FILE_DEPTH,
        next,
        &mut |_, _| true,
        Some(stamper),
        recorder,
        &what,
    )?;
    if ctx.access.direct && !size.is_multiple_of(block as u64) {
        engine
            .set_len(file, size)
            .map_err(|e| Error::io(what(), e))?;
    }
    stream::sync(engine, file, &what)?;
    engine.close(file).map_err(|e| Error::io(what(), e))
}

/// Writes the files the whole-file read test reads, untimed.
fn prepare_read_files(ctx: &mut Ctx<'_>, sizes: &[u64], block: usize) -> Result<()> {
    let mut engine = ctx.build_engine(WHOLE_FILE_DEPTH)?;
    engine
        .prepare(WHOLE_FILE_DEPTH, block)
        .map_err(|e| Error::io("setting up I/O buffers", e))?;
    fill_buffers(ctx, engine.as_mut(), WHOLE_FILE_DEPTH);
    let mut recorder = Recorder::new(engine.now(), Duration::from_secs(1));
    let start = std::time::Instant::now();
    for (index, &size) in sizes.iter().enumerate() {
        write_file(
            ctx,
            engine.as_mut(),
            &read_file_name(index),
            size,
            block,
            &mut recorder,
        )?;
    }
    let took = start.elapsed().as_secs_f64();
    // Files of megabytes: their time is their bytes', none of it a price per file.
    ctx.ledger
        .add(Work::new(Untimed::Copy, sizes.iter().sum(), 0), took);
    Ok(())
}

/// One timed repetition of a whole-file variant: each file timed on its own, the figure the mean
/// of the files' rates.
fn measure_whole(
    ctx: &mut Ctx<'_>,
    direction: Direction,
    sizes: &[u64],
    block: usize,
    rep: usize,
) -> Result<Measured> {
    let mut engine = ctx.build_engine(WHOLE_FILE_DEPTH)?;
    engine
        .prepare(WHOLE_FILE_DEPTH, block)
        .map_err(|e| Error::io("setting up I/O buffers", e))?;
    let mut recorder = Recorder::new(engine.now(), ctx.series_interval);
    let mut rates = Vec::with_capacity(sizes.len());
    let mut elapsed = Duration::ZERO;
    let cpu_start = platform::process_cpu_time();
    let mut method = ctx.access.write_method();
    let mut warning = None;
    if direction == Direction::Write {
        fill_buffers(ctx, engine.as_mut(), WHOLE_FILE_DEPTH);
    }
    for (index, &size) in sizes.iter().enumerate() {
        let took = match direction {
            Direction::Write => {
                let name = format!("write-{rep}-{index}.dat");
                let start = engine.now();
                let written = write_file(ctx, engine.as_mut(), &name, size, block, &mut recorder);
                if written.is_err() {
                    // Leave no partial file to shrink the space of the tests after this one.
                    let _ = engine.unlink(ctx.scratch.fd(), &name);
                }
                written?;
                let took = engine.now() - start;
                engine
                    .unlink(ctx.scratch.fd(), &name)
                    .map_err(|e| Error::io(format!("removing {name}"), e))?;
                took
            }
            Direction::Read => {
                let name = read_file_name(index);
                let what = || format!("reading {name}");
                let file = engine
                    .open(ctx.scratch.fd(), &name, ctx.access.open_how(false, false))
                    .map_err(|e| Error::io(what(), e))?;
                let (read_method, read_warning) =
                    ctx.access.prepare_read(engine.as_mut(), file, size)?;
                method = worse(method, read_method);
                warning = warning.or(read_warning);
                let start = engine.now();
                let next = chunks(size, block, ctx.access.direct);
                stream::stream(
                    engine.as_mut(),
                    file,
                    Op::Read,
                    WHOLE_FILE_DEPTH,
                    next,
                    &mut |_, _| true,
                    None,
                    &mut recorder,
                    &what,
                )?;
                let took = engine.now() - start;
                engine.close(file).map_err(|e| Error::io(what(), e))?;
                took
            }
        };
        rates.push(units::mb_per_s(size, took.as_secs_f64()));
        elapsed += took;
    }
    let cpu = platform::process_cpu_time().saturating_sub(cpu_start);
    let mut measured = Measured::streamed(recorder, elapsed, cpu, method, engine.kind());
    // QuickBench's figure: the mean of the files' rates, not total bytes over total time.
    measured.repetition.rate = rates.iter().sum::<f64>() / rates.len() as f64;
    measured.warnings = warning.into_iter().collect();
    Ok(measured)
}

/// For reads over several files: the least trustworthy method seen is the one to report.
fn worse(current: Method, seen: Method) -> Method {
    let rank = |m: Method| match m {
        Method::Null => 0,
        Method::Direct | Method::Fsync | Method::Syncfs | Method::FsyncEach => 1,
        Method::Evict => 2,
        Method::DropCaches => 3,
        Method::PageCache => 4,
    };
    if rank(seen) >= rank(current) {
        seen
    } else {
        current
    }
}

/// The name of file `i` of the many-files test's repetition `rep`.
fn many_name(rep: usize, i: usize) -> String {
    format!("tm-{rep}-{i}.dat")
}

/// Writes `len` bytes to each of `files` and syncs it, `depth` files in flight: a slot moves to
/// the next file once its file is durable. Records each file from its write to durable.
fn write_durably(
    ctx: &mut Ctx<'_>,
    engine: &mut dyn Engine,
    files: &[FileId],
    depth: usize,
    len: usize,
    rep: usize,
    recorder: &mut Recorder,
) -> Result<()> {
    let count = files.len();
    let name = |i: usize| many_name(rep, i);
    // Per slot: which file it works on, whether its write is done, when the file started.
    let mut slot_file: Vec<Option<(usize, bool, Duration)>> = vec![None; depth];
    let mut next_file = 0usize;
    let mut in_flight = 0usize;
    let mut done: Vec<Completion> = Vec::with_capacity(depth);
    let submit = |engine: &mut dyn Engine, slot: usize, file: FileId, op: Op| {
        engine.submit(IoRequest {
            slot,
            file,
            op,
            offset: 0,
            len,
        })
    };
    for (slot, state) in slot_file.iter_mut().enumerate() {
        ctx.stamper.stamp(engine.buffer_mut(slot));
        submit(engine, slot, files[next_file], Op::Write)
            .map_err(|e| Error::io(format!("writing {}", name(next_file)), e))?;
        *state = Some((next_file, false, engine.now()));
        next_file += 1;
        in_flight += 1;
    }
    while in_flight > 0 {
        interrupt::check()?;
        done.clear();
        engine
            .reap(1, &mut done)
            .map_err(|e| Error::io("writing the small files", e))?;
        let now = engine.now();
        for completion in done.drain(..) {
            in_flight -= 1;
            let slot = completion.slot;
            let (index, written, started) = slot_file[slot].expect("slot in use");
            let what = || format!("writing {}", name(index));
            let n = completion.result.map_err(|e| Error::io(what(), e))?;
            if !written {
                if n < len {
                    return Err(Error::io(what(), std::io::ErrorKind::WriteZero.into()));
                }
                submit(engine, slot, files[index], Op::Sync).map_err(|e| Error::io(what(), e))?;
                slot_file[slot] = Some((index, true, started));
                in_flight += 1;
                continue;
            }
            recorder.record(now, len as u64, now - started);
            slot_file[slot] = None;
            if next_file < count {
                ctx.stamper.stamp(engine.buffer_mut(slot));
                submit(engine, slot, files[next_file], Op::Write)
                    .map_err(|e| Error::io(format!("writing {}", name(next_file)), e))?;
                slot_file[slot] = Some((next_file, false, now));
                next_file += 1;
                in_flight += 1;
            }
        }
    }
    Ok(())
}

/// One timed repetition of the many-files test: `count` new files of `size` bytes, up to
/// [`MANY_FILES_DEPTH`] at once, each written then made durable; timed from the first create to
/// the last close. Ops are files; the latency is per file (write submitted to durable).
fn measure_many(ctx: &mut Ctx<'_>, count: usize, size: u64, rep: usize) -> Result<Measured> {
    let depth = MANY_FILES_DEPTH.min(count);
    let len = size as usize;
    let mut engine = ctx.build_engine(depth)?;
    engine
        .prepare(depth, len)
        .map_err(|e| Error::io("setting up I/O buffers", e))?;
    fill_buffers(ctx, engine.as_mut(), depth);
    let name = |i: usize| many_name(rep, i);
    let cpu_start = platform::process_cpu_time();
    let start = engine.now();
    let mut recorder = Recorder::new(start, ctx.series_interval);
    let mut files: Vec<FileId> = Vec::with_capacity(count);
    let result = (|| -> Result<()> {
        for i in 0..count {
            interrupt::check()?;
            let file = engine
                .open(ctx.scratch.fd(), &name(i), ctx.access.open_how(true, true))
                .map_err(|e| Error::io(format!("creating {}", name(i)), e))?;
            files.push(file);
        }
        write_durably(ctx, engine.as_mut(), &files, depth, len, rep, &mut recorder)?;
        for file in files.drain(..) {
            engine
                .close(file)
                .map_err(|e| Error::io("closing the small files", e))?;
        }
        Ok(())
    })();
    let elapsed = engine.now() - start;
    let cpu = platform::process_cpu_time().saturating_sub(cpu_start);
    // Untimed: close whatever an error left open, then remove the files.
    for file in files.drain(..) {
        let _ = engine.close(file);
    }
    for i in 0..count {
        let _ = engine.unlink(ctx.scratch.fd(), &name(i));
    }
    result?;
    Ok(Measured::streamed(
        recorder,
        elapsed,
        cpu,
        ctx.access.write_method(),
        engine.kind(),
    ))
}
