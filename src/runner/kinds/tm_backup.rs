//! tm-backup: how fast Time Machine itself would back up to this destination. Over a share,
//! Time Machine writes into a sparse bundle disk image, band file by band file, and ends every
//! round with flushes and a barrier; this test lays such a bundle down in scratch and replays
//! that pattern (`workload::tm_pattern`, from an SMB trace of macOS 15.7.9), a first backup and
//! an incremental, then copies the same user data as plain files to the same destination, so
//! the ratio "Time Machine against a plain copy" is measured here, not quoted.
//!
//! Every file is opened buffered, as Time Machine's DiskImages writes through the client's
//! cache; every byte is flushed inside the timing (each round's `fdatasync`s), so no figure is
//! the page cache's.

use std::collections::HashSet;
use std::io;
use std::time::Duration;

use crate::engine::tree::Dir;
use crate::engine::{Engine, EngineFactory, FileId, IoRequest, Op};
use crate::error::{Error, Result};
use crate::interrupt;
use crate::platform::{self, HandleRef, OpenHow};
use crate::results::{
    BandSizeFrom, Details, Method, PlainCopy, Repetition, TmBackupDetails, TmPhaseFigures,
};
use crate::scratch::Scratch;
use crate::stats::{ThroughputSeries, median};
use crate::tree;
use crate::units;
use crate::workload::DataStamper;
use crate::workload::tm_pattern::{
    self, DATA_WRITE, MAPPED_LEN, MAX_OPEN_BANDS, Round, TmPattern, TmPhase, WriteKind,
};

use crate::runner::ctx::{Ctx, Measured};
use crate::runner::kinds::test::{Rep, Shape, Test};
use crate::runner::kinds::tm_beside;
use crate::settings::RunPlan;

/// The plain copy's files: 8 MiB each (the photos of the trace's test tree), 1 MiB writes.
const COPY_FILE: u64 = 8 << 20;
const COPY_BLOCK: usize = 1 << 20;

/// Time Machine's backup replayed into a sparse bundle, then a plain copy of its user data.
pub(in crate::runner) struct TmBackupTest;

impl Test for TmBackupTest {
    fn shape(&self) -> Shape {
        Shape::io(DATA_WRITE as usize, 1)
    }

    /// The bundle (its user data, a tenth more for metadata and the incremental, and two bands
    /// where the filesystem cannot keep the hot spots' holes sparse), and beside it the reader's
    /// file; the plain copy comes after the bundle is removed.
    fn space_needed(&self, plan: &RunPlan) -> u64 {
        2 * plan.file_size + plan.file_size / 10 + 2 * band_size(plan).0
    }

    fn measure(&mut self, rep: Rep<'_, '_>) -> Result<Measured> {
        measure(rep.ctx, rep.plan)
    }
}

/// The band size for this run, where it came from, and the destination's size when read.
fn band_size(plan: &RunPlan) -> (u64, BandSizeFrom, Option<u64>) {
    let volume = platform::filesystem_size(&plan.destination).ok();
    match plan.band_size {
        Some(b) => (b, BandSizeFrom::Flag, volume),
        None => (
            tm_pattern::band_size_for(volume.unwrap_or(0)),
            BandSizeFrom::DestinationSize,
            volume,
        ),
    }
}

fn measure(ctx: &mut Ctx<'_>, plan: &RunPlan) -> Result<Measured> {
    let (band_size, band_size_from, volume) = band_size(plan);
    let rounds = TmPattern {
        band_size,
        user_bytes: plan.file_size,
    }
    .rounds(ctx.seed);
    let name = format!("{}.sparsebundle", ctx.scratch.fresh_name("tm-backup"));
    let cpu = platform::process_cpu_time();
    let on = Place {
        engines: ctx.engines,
        scratch: ctx.scratch,
        seed: ctx.seed,
    };
    let replayed = replay(on, &name, band_size, &rounds);
    tree::remove_all(&ctx.scratch.root(), &name, ctx.engines);
    let (first, incremental, max_open_bands, engine) = replayed?;
    let cpu = platform::process_cpu_time().saturating_sub(cpu);
    let copy = plain_copy(ctx, first.user_bytes)?;
    // The null engine's replay does no I/O a reader could feel.
    let beside_reader = if ctx.access.real_io {
        let alone = (
            units::mb_per_s(first.user_bytes, first.seconds),
            first.seconds + incremental.seconds,
        );
        let again = |name: &str| replay(on, name, band_size, &rounds).map(|r| r.0);
        Some(tm_beside::beside_reader(ctx, plan, &again, alone)?)
    } else {
        None
    };
    let user_data_mb_s = units::mb_per_s(first.user_bytes, first.seconds);
    let (data_flush, full_flush) = if ctx.access.real_io {
        ("fdatasync", platform::FULL_FLUSH)
    } else {
        ("none (null engine)", "none (null engine)")
    };
    let details = TmBackupDetails {
        band_size_bytes: band_size,
        band_size_from,
        destination_size_bytes: volume,
        first,
        incremental,
        user_data_mb_s,
        barriers_per_s: (first.barriers + incremental.barriers) as f64
            / (first.seconds + incremental.seconds),
        data_flush: data_flush.into(),
        full_flush: full_flush.into(),
        copy,
        ratio_to_copy: (copy.mb_s > 0.0).then(|| user_data_mb_s / copy.mb_s),
        max_open_bands,
        beside_reader,
    };
    let elapsed = Duration::from_secs_f64(first.seconds);
    Ok(Measured {
        repetition: Repetition {
            rate: user_data_mb_s,
            bytes: first.user_bytes,
            ops: first.writes,
            elapsed,
            cpu,
            series: ThroughputSeries::new(ctx.series_interval),
            passes: None,
        },
        latency: Default::default(),
        method: ctx.access.method(Method::Fsync),
        engine,
        warnings: Vec::new(),
        file_set: None,
        integrity_error: None,
        details: Some(Details::TmBackup(details)),
    })
}

/// Where a replay runs: what it needs of the run's context, shareable with a thread.
#[derive(Clone, Copy)]
struct Place<'a> {
    engines: &'a EngineFactory,
    scratch: &'a Scratch,
    seed: u64,
}

/// Both phases of the replay in the bundle `name`: their figures, the most bands open at once,
/// and the engine that issued them.
fn replay(
    on: Place<'_>,
    name: &str,
    band_size: u64,
    rounds: &[Round],
) -> Result<(
    TmPhaseFigures,
    TmPhaseFigures,
    usize,
    crate::engine::EngineKind,
)> {
    let at = on.scratch.path().join(name);
    let io = |e| {
        Error::io(
            format!("replaying Time Machine's backup in {}", at.display()),
            e,
        )
    };
    let mut bundle = Bundle::create(on, name, band_size).map_err(io)?;
    let mut phases = Vec::with_capacity(2);
    for phase in [TmPhase::First, TmPhase::Incremental] {
        bundle.counts = TmPhaseFigures::default();
        let start = bundle.engine.now();
        let (mut last, mut gaps) = (start, Vec::new());
        for round in rounds.iter().filter(|r| r.phase == phase) {
            interrupt::check()?;
            bundle.round(round).map_err(io)?;
            let now = bundle.engine.now();
            gaps.push((now - last).as_secs_f64());
            last = now;
        }
        bundle.counts.seconds = (last - start).as_secs_f64();
        bundle.counts.median_round_s = median(&gaps);
        phases.push(bundle.counts);
    }
    bundle.close().map_err(io)?;
    Ok((phases[0], phases[1], bundle.max_open, bundle.engine.kind()))
}

/// A band file and its `mapped/` bitmap, open.
#[derive(Clone, Copy)]
struct OpenBand {
    band: u64,
    file: FileId,
    mapped: FileId,
    /// Written since its last flush.
    dirty: bool,
}

/// The sparse bundle being written: its directories, `Info.plist`, the open bands (least
/// recently written first) and the current phase's counts.
struct Bundle<'a> {
    engine: Box<dyn Engine>,
    scratch: &'a Scratch,
    bands_dir: Dir,
    mapped_dir: Dir,
    plist: FileId,
    plist_text: Vec<u8>,
    open: Vec<OpenBand>,
    created: HashSet<u64>,
    stamper: DataStamper,
    counts: TmPhaseFigures,
    max_open: usize,
}

/// The directory's descriptor; under the null engine, whose directories are virtual and whose
/// opens touch nothing, the scratch directory's.
fn fd<'d>(dir: &'d Dir, scratch: &'d Scratch) -> HandleRef<'d> {
    dir.fd().unwrap_or_else(|_| scratch.fd())
}

const CREATE: OpenHow = OpenHow {
    write: true,
    create: true,
    direct: false,
};

impl<'a> Bundle<'a> {
    /// The bundle's directories and header files, as Time Machine lays them down (untimed).
    fn create(on: Place<'a>, name: &str, band_size: u64) -> io::Result<Bundle<'a>> {
        let mut tree = on.engines.build_tree();
        let top = tree.open_root(&on.scratch.root())?;
        let dir = tree.mkdir(&top, name.as_ref())?;
        let bands_dir = tree.mkdir(&dir, "bands".as_ref())?;
        let mapped_dir = tree.mkdir(&dir, "mapped".as_ref())?;
        let mut engine = on
            .engines
            .build(1)
            .map_err(|e| io::Error::new(e.kind(), format!("setting up the I/O engine: {e}")))?;
        engine.prepare(1, DATA_WRITE as usize)?;
        let here = fd(&dir, on.scratch);
        for empty in ["token", "lock"] {
            let file = engine.open(here, empty, CREATE)?;
            engine.close(file)?;
        }
        let backup = engine.open(here, "Info.bckup", CREATE)?;
        let plist = engine.open(here, "Info.plist", CREATE)?;
        let mut stamper = DataStamper::new(on.seed);
        stamper.fill(engine.buffer_mut(0));
        let mut bundle = Bundle {
            engine,
            scratch: on.scratch,
            bands_dir,
            mapped_dir,
            plist,
            plist_text: info_plist(band_size).into_bytes(),
            open: Vec::new(),
            created: HashSet::new(),
            stamper,
            counts: TmPhaseFigures::default(),
            max_open: 0,
        };
        bundle.write_plist(backup)?;
        bundle.engine.close(backup)?;
        bundle.barrier()?;
        Ok(bundle)
    }

    fn io(&mut self, file: FileId, op: Op, offset: u64, len: usize) -> io::Result<()> {
        let request = IoRequest {
            slot: 0,
            file,
            op,
            offset,
            len,
        };
        self.engine.run_one(request)?.result.map(drop)
    }

    /// A round: its band writes, a data flush of each written band and its `mapped/` file
    /// (rewritten first), then the barrier.
    fn round(&mut self, round: &Round) -> io::Result<()> {
        for w in &round.writes {
            let band = self.band(w.band)?;
            let len = w.len as usize;
            self.stamper.stamp(&mut self.engine.buffer_mut(0)[..len]);
            self.io(band.file, Op::Write, w.offset, len)?;
            self.count_write(w.len);
            if w.kind == WriteKind::Data {
                self.counts.user_bytes += w.len;
            }
        }
        for i in 0..self.open.len() {
            if self.open[i].dirty {
                self.flush_band(self.open[i])?;
                self.open[i].dirty = false;
            }
        }
        self.barrier()
    }

    fn count_write(&mut self, len: u64) {
        self.counts.writes += 1;
        self.counts.bytes_written += len;
    }

    /// The band's handles, opened (created the first time) when it is not open; the least
    /// recently written band is flushed and closed to keep at most five open.
    fn band(&mut self, band: u64) -> io::Result<OpenBand> {
        if let Some(i) = self.open.iter().position(|b| b.band == band) {
            let mut b = self.open.remove(i);
            b.dirty = true;
            self.open.push(b);
            return Ok(b);
        }
        if self.open.len() == MAX_OPEN_BANDS {
            let old = self.open.remove(0);
            if old.dirty {
                self.flush_band(old)?;
            }
            self.engine.close(old.file)?;
            self.engine.close(old.mapped)?;
        }
        let how = OpenHow {
            create: self.created.insert(band),
            ..CREATE
        };
        let name = format!("{band:x}");
        let file = self
            .engine
            .open(fd(&self.bands_dir, self.scratch), &name, how)?;
        let mapped = self
            .engine
            .open(fd(&self.mapped_dir, self.scratch), &name, how)?;
        let b = OpenBand {
            band,
            file,
            mapped,
            dirty: true,
        };
        self.open.push(b);
        self.max_open = self.max_open.max(self.open.len());
        Ok(b)
    }

    /// The band's bitmap rewritten in place, then a data flush of the band and of the bitmap.
    fn flush_band(&mut self, b: OpenBand) -> io::Result<()> {
        self.stamper
            .stamp(&mut self.engine.buffer_mut(0)[..MAPPED_LEN as usize]);
        self.io(b.mapped, Op::Write, 0, MAPPED_LEN as usize)?;
        self.count_write(MAPPED_LEN);
        self.io(b.file, Op::Sync, 0, 0)?;
        self.io(b.mapped, Op::Sync, 0, 0)?;
        self.counts.data_flushes += 2;
        Ok(())
    }

    /// `file` cut to nothing and written whole with the header, in place.
    fn write_plist(&mut self, file: FileId) -> io::Result<()> {
        let len = self.plist_text.len();
        self.engine.set_len(file, 0)?;
        self.engine.buffer_mut(0)[..len].copy_from_slice(&self.plist_text);
        self.io(file, Op::Write, 0, len)?;
        self.count_write(len as u64);
        self.io(file, Op::Sync, 0, 0)?;
        self.counts.data_flushes += 1;
        Ok(())
    }

    /// The barrier: `Info.plist` rewritten in place with a data and a full flush.
    fn barrier(&mut self) -> io::Result<()> {
        self.write_plist(self.plist)?;
        self.io(self.plist, Op::FullSync, 0, 0)?;
        self.counts.barriers += 1;
        Ok(())
    }

    /// Closes every handle (all flushed: a round ends with its barrier).
    fn close(&mut self) -> io::Result<()> {
        for b in std::mem::take(&mut self.open) {
            self.engine.close(b.file)?;
            self.engine.close(b.mapped)?;
        }
        self.engine.close(self.plist)
    }
}

/// The image header, as `Info.plist` and `Info.bckup` hold it: a 16 TB image (Time Machine's
/// size whatever the share's) in bands of `band_size`.
fn info_plist(band_size: u64) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <plist version=\"1.0\">\n<dict>\n\
         \t<key>CFBundleInfoDictionaryVersion</key>\n\t<string>6.0</string>\n\
         \t<key>band-size</key>\n\t<integer>{band_size}</integer>\n\
         \t<key>bundle-backingstore-version</key>\n\t<integer>2</integer>\n\
         \t<key>diskimage-bundle-type</key>\n\
         \t<string>com.apple.diskimage.sparsebundle</string>\n\
         \t<key>size</key>\n\t<integer>16000000000000</integer>\n\
         </dict>\n</plist>\n"
    )
}

/// The same user data as plain new files of 8 MiB in 1 MiB writes, each `fdatasync`'d before
/// the next (durable, as the replay's rounds are), timed from the first create to the last
/// flush; the files are removed afterwards.
fn plain_copy(ctx: &mut Ctx<'_>, bytes: u64) -> Result<PlainCopy> {
    let mut engine = ctx.build_engine(1)?;
    let prefix = ctx.scratch.fresh_name("tm-copy");
    let files = bytes.div_ceil(COPY_FILE);
    let io = |e| {
        Error::io(
            format!("copying plain files into {}", ctx.scratch.path().display()),
            e,
        )
    };
    engine.prepare(1, COPY_BLOCK).map_err(io)?;
    ctx.stamper.fill(engine.buffer_mut(0));
    let start = engine.now();
    let mut made = 0;
    let copied = (|| -> Result<u64> {
        let mut written = 0;
        for i in 0..files {
            interrupt::check()?;
            let file = engine
                .open(ctx.scratch.fd(), &format!("{prefix}-{i}"), CREATE)
                .map_err(io)?;
            made += 1;
            let len = COPY_FILE.min(bytes - written);
            let mut offset = 0;
            while offset < len {
                let n = (len - offset).min(COPY_BLOCK as u64) as usize;
                ctx.stamper.stamp(&mut engine.buffer_mut(0)[..n]);
                let request = IoRequest {
                    slot: 0,
                    file,
                    op: Op::Write,
                    offset,
                    len: n,
                };
                engine.run_one(request).map_err(io)?.result.map_err(io)?;
                offset += n as u64;
            }
            let sync = IoRequest {
                op: Op::Sync,
                offset: 0,
                len: 0,
                slot: 0,
                file,
            };
            engine.run_one(sync).map_err(io)?.result.map_err(io)?;
            engine.close(file).map_err(io)?;
            written += len;
        }
        Ok(written)
    })();
    let seconds = (engine.now() - start).as_secs_f64();
    for i in 0..made {
        let _ = engine.unlink(ctx.scratch.fd(), &format!("{prefix}-{i}"));
    }
    let bytes = copied?;
    Ok(PlainCopy {
        files,
        file_bytes: COPY_FILE,
        bytes,
        seconds,
        mb_s: units::mb_per_s(bytes, seconds),
    })
}
