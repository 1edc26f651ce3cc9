//! Time Machine's backup to a network share, as data: the writes DiskImages makes into a sparse
//! bundle's band files, round by round, for a band size and an amount of user data. Pure: no
//! I/O, no clock; the runner's `tm-backup` test issues what this says.
//!
//! Every figure comes from a per-request SMB trace of macOS 15.7.9 backing up to a share
//! (repository `djosh34/s3-smb`, its files "research-tm-mac-trace.md", "research-tm-hotspots.md"
//! and "research-tm-smb-ops.md"); docs/tm-backup.md lists which figure comes from which table, and
//! what is inferred rather than seen.

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;

/// User data goes out in 256 KiB writes (mac-trace, "Bands": 238 of the 461 non-zero writes).
pub const DATA_WRITE: u64 = 256 * KIB;
/// Data is nearly sequential within 8 MiB positions (mac-trace, "How scattered writes are").
pub const POSITION: u64 = 8 * MIB;
/// Every band write is 4 KiB aligned (mac-trace, "Bands").
pub const ALIGN: u64 = 4 * KIB;
/// `mapped/<band>`: an 8 KiB bitmap rewritten in place after the band's writes (mac-trace,
/// "Other files").
pub const MAPPED_LEN: u64 = 8 * KIB;
/// At most five band handles were open at once (mac-trace, "Open handles").
pub const MAX_OPEN_BANDS: usize = 5;
/// The band size Time Machine picks is the share's size / 4096 (1 TiB gave 256 MiB, 348 GB gave
/// 85.1 MB), between the HFS+ era's 8 MiB and the 8 GiB seen on a 1.13 PB share (smb-ops,
/// "Band size and count").
pub const MIN_BAND: u64 = 8 * MIB;
pub const MAX_BAND: u64 = 8 * 1024 * MIB;

/// First backup: 20 data writes (5 MiB) per round: bands/6 took 46.5 MB of data in 9 data
/// flushes (mac-trace, "FLUSH").
const FIRST_DATA_PER_ROUND: usize = 20;
/// Incremental backups are mostly metadata (inc5 wrote 55 MiB for 40 KiB of changed user data,
/// hotspots). The trace gives their bytes, not their rounds: a first-backup round's metadata
/// with one data write in every fourth round is our assumption (docs/tm-backup.md).
const INCREMENTAL_DATA_EVERY: usize = 4;
/// Metadata writes per data write: 223 non-256 KiB writes beside 238 of 256 KiB (mac-trace,
/// "Bands").
const META_PER_DATA: (usize, usize) = (223, 238);
/// An incremental writes 4.4% of the first backup's bytes: the mean of inc1-inc5 (247 MiB)
/// against the baseline's 5,581 MiB of non-zero writes (hotspots, "Writes per backup").
const INCREMENTAL_PER_MILLE: u64 = 44;
/// Metadata write sizes in 4 KiB blocks and how often each was seen: 4 KiB 120, 12 KiB 33,
/// 16 KiB 35, and 35 others of 24-140 KiB whose mean makes the 4.2 MB of metadata (mac-trace,
/// "Bands"); the others are spread evenly over 24-128 KiB (mean 76 KiB).
const META_SIZES: [(u64, u32); 4] = [(1, 120), (3, 33), (4, 35), (0, 35)];
/// Where APFS metadata lands, as offsets into the disk image, and how many versions each 8 MiB
/// spot had in the first backup: bands/0 at 0 (89) and at 112 MiB (47), bands/5 at 240 MiB (37),
/// at 256 MiB bands (hotspots, "Hot spots").
const HOT_SPOTS: [(u64, u32); 3] = [(0, 89), (112 * MIB, 47), ((5 * 256 + 240) * MIB, 37)];
/// User data starts at bands/6 of 256 MiB (mac-trace, "Bands").
const DATA_START: u64 = 6 * 256 * MIB;
/// Metadata rewrites the same blocks (one 4 KiB block 68 times, mac-trace): half the metadata
/// writes go to the first 16 blocks of their spot.
const HOT_BLOCKS: u64 = 16;
/// Within a position, one pair of writes in 16 goes backward: 0-2 of 31 and 5 of 21 did
/// (mac-trace, "How scattered writes are").
const SWAP_ONE_IN: u32 = 16;

/// The band size Time Machine chooses on a share of `volume_bytes`.
pub fn band_size_for(volume_bytes: u64) -> u64 {
    (volume_bytes / 4096 / ALIGN * ALIGN).clamp(MIN_BAND, MAX_BAND)
}

/// Which backup a round belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TmPhase {
    /// The first backup: the user's data.
    First,
    /// An hourly incremental: mostly APFS metadata.
    Incremental,
}

/// What a band write carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteKind {
    /// User data: 256 KiB, nearly sequential.
    Data,
    /// APFS metadata: 4-128 KiB, rewriting hot spots.
    Metadata,
}

/// One write into a band file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BandWrite {
    pub band: u64,
    pub offset: u64,
    pub len: u64,
    pub kind: WriteKind,
}

/// One round: band writes, then (the runner's part) a data flush of every written band and its
/// `mapped/` file and the `Info.plist` barrier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Round {
    pub phase: TmPhase,
    pub writes: Vec<BandWrite>,
}

/// A first backup of `user_bytes` and one incremental, at `band_size`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TmPattern {
    pub band_size: u64,
    pub user_bytes: u64,
}

impl TmPattern {
    /// Every round of both phases, first backup first. The same seed gives the same rounds.
    pub fn rounds(&self, seed: u64) -> Vec<Round> {
        let mut g = Generator {
            rng: fastrand::Rng::with_seed(seed),
            band_size: self.band_size,
            cursor: DATA_START,
            owed: 0,
        };
        let mut rounds = Vec::new();
        let mut data_left = self.user_bytes.div_ceil(DATA_WRITE) as usize;
        let mut first_bytes = 0;
        while data_left > 0 {
            let n = data_left.min(FIRST_DATA_PER_ROUND);
            data_left -= n;
            g.owed += n * META_PER_DATA.0;
            let meta = g.owed / META_PER_DATA.1;
            g.owed %= META_PER_DATA.1;
            let round = g.round(TmPhase::First, n, meta);
            first_bytes += round.writes.iter().map(|w| w.len).sum::<u64>();
            rounds.push(round);
        }
        let target = first_bytes * INCREMENTAL_PER_MILLE / 1000;
        let meta = FIRST_DATA_PER_ROUND * META_PER_DATA.0 / META_PER_DATA.1;
        let mut incremental = 0;
        while incremental < target.max(1) {
            let data = usize::from(rounds.len().is_multiple_of(INCREMENTAL_DATA_EVERY));
            let round = g.round(TmPhase::Incremental, data, meta);
            incremental += round.writes.iter().map(|w| w.len).sum::<u64>();
            rounds.push(round);
        }
        rounds
    }
}

struct Generator {
    rng: fastrand::Rng,
    band_size: u64,
    /// Where the next user data goes in the disk image.
    cursor: u64,
    /// Metadata writes owed, in 238ths (META_PER_DATA), so the ratio holds over many rounds.
    owed: usize,
}

impl Generator {
    /// `n` data writes and `meta` metadata writes, interleaved.
    fn round(&mut self, phase: TmPhase, n: usize, meta: usize) -> Round {
        let data = self.data(n);
        let meta: Vec<(u64, u64)> = (0..meta).map(|_| self.metadata()).collect();
        // Interleave, keeping each kind's own order: each step takes metadata with the
        // probability of its share of what is left.
        let (mut d, mut m) = (data.into_iter().peekable(), meta.into_iter().peekable());
        let mut writes = Vec::new();
        loop {
            let (dl, ml) = (d.len(), m.len());
            let take_meta = match (dl, ml) {
                (0, 0) => break,
                (0, _) => true,
                (_, 0) => false,
                _ => self.rng.usize(..dl + ml) < ml,
            };
            let (image, len, kind) = if take_meta {
                let (o, l) = m.next().expect("metadata left");
                (o, l, WriteKind::Metadata)
            } else {
                let (o, l) = d.next().expect("data left");
                (o, l, WriteKind::Data)
            };
            writes.extend(self.in_bands(image, len, kind));
        }
        Round { phase, writes }
    }

    /// `n` 256 KiB writes from the cursor, as (image offset, length), an adjacent pair inside
    /// one position now and then swapped.
    fn data(&mut self, n: usize) -> Vec<(u64, u64)> {
        let mut out: Vec<(u64, u64)> = (0..n)
            .map(|i| (self.cursor + i as u64 * DATA_WRITE, DATA_WRITE))
            .collect();
        self.cursor += n as u64 * DATA_WRITE;
        let mut i = 0;
        while i + 1 < out.len() {
            let same = out[i].0 / POSITION == out[i + 1].0 / POSITION;
            if same && self.rng.u32(..SWAP_ONE_IN) == 0 {
                out.swap(i, i + 1);
                i += 1;
            }
            i += 1;
        }
        out
    }

    /// One metadata write: a spot by its weight, a block inside its 8 MiB (one of the hot ones
    /// half the time), a size from the trace's mix.
    fn metadata(&mut self) -> (u64, u64) {
        let spot = pick(&mut self.rng, &HOT_SPOTS);
        let blocks = match pick(&mut self.rng, &META_SIZES) {
            0 => 6 + self.rng.u64(..=26),
            b => b,
        };
        let room = POSITION / ALIGN - blocks;
        let block = if self.rng.bool() {
            self.rng.u64(..HOT_BLOCKS)
        } else {
            self.rng.u64(..=room)
        };
        (spot + block * ALIGN, blocks * ALIGN)
    }

    /// A write at `image` split where it crosses a band's end.
    fn in_bands(&self, mut image: u64, len: u64, kind: WriteKind) -> Vec<BandWrite> {
        let end = image + len;
        let mut out = Vec::new();
        while image < end {
            let (band, offset) = (image / self.band_size, image % self.band_size);
            let len = (self.band_size - offset).min(end - image);
            out.push(BandWrite {
                band,
                offset,
                len,
                kind,
            });
            image += len;
        }
        out
    }
}

/// A value of `table` drawn by the weights beside it.
fn pick(rng: &mut fastrand::Rng, table: &[(u64, u32)]) -> u64 {
    let total: u32 = table.iter().map(|&(_, w)| w).sum();
    let mut at = rng.u32(..total);
    for &(value, weight) in table {
        if at < weight {
            return value;
        }
        at -= weight;
    }
    unreachable!("the draw is below the total weight")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn band_size_follows_the_share_as_time_machine_logged_it() {
        assert_eq!(band_size_for(1 << 40), 256 * MIB);
        assert_eq!(band_size_for(348_000_000_000) / 100_000, 849);
        assert_eq!(band_size_for(1_130_000_000_000_000), MAX_BAND);
        assert_eq!(band_size_for(1 << 30), MIN_BAND);
    }

    #[test]
    fn writes_are_aligned_inside_their_band_and_carry_the_user_data() {
        for band_size in [MIN_BAND, 85_000 * 1024, 256 * MIB] {
            let pattern = TmPattern {
                band_size,
                user_bytes: 64 * MIB,
            };
            let rounds = pattern.rounds(7);
            let first: Vec<&BandWrite> = rounds
                .iter()
                .filter(|r| r.phase == TmPhase::First)
                .flat_map(|r| &r.writes)
                .collect();
            let data: u64 = first
                .iter()
                .filter(|w| w.kind == WriteKind::Data)
                .map(|w| w.len)
                .sum();
            assert_eq!(data, 64 * MIB);
            for w in rounds.iter().flat_map(|r| &r.writes) {
                assert_eq!((w.offset % ALIGN, w.len % ALIGN), (0, 0), "{w:?}");
                assert!(w.offset + w.len <= band_size, "{w:?}");
            }
            assert!(rounds.iter().any(|r| r.phase == TmPhase::Incremental));
            assert_eq!(pattern.rounds(7), rounds, "the same seed, the same rounds");
        }
    }
}
