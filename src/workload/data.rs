//! Data that neither compresses nor deduplicates, so compressing filesystems and controllers cannot
//! flatter a write figure.
//!
//! Buffers are filled with random bytes once; before each write, the first 16 bytes of every 4 KiB
//! block are stamped with a counter and a fresh random word, so no two blocks ever written are the
//! same (as fio's `scramble_buffers`), at a small fraction of the cost of refilling the buffer.

/// Fills and stamps write buffers. Seeded, so a run's data is reproducible.
pub struct DataStamper {
    rng: fastrand::Rng,
    counter: u64,
}

/// The dedup granularity we defeat: every 4 KiB block is unique.
const STAMP_EVERY: usize = 4096;

impl DataStamper {
    pub fn new(seed: u64) -> Self {
        DataStamper {
            rng: fastrand::Rng::with_seed(seed),
            counter: 0,
        }
    }

    /// Fills the whole buffer with random bytes.
    pub fn fill(&mut self, buf: &mut [u8]) {
        self.rng.fill(buf);
    }

    /// Makes every 4 KiB block of `buf` unique.
    pub fn stamp(&mut self, buf: &mut [u8]) {
        for block in buf.chunks_mut(STAMP_EVERY) {
            if block.len() < 16 {
                continue;
            }
            self.counter += 1;
            block[..8].copy_from_slice(&self.counter.to_le_bytes());
            block[8..16].copy_from_slice(&self.rng.u64(..).to_le_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn stamped_blocks_are_unique_across_writes() {
        let mut stamper = DataStamper::new(1);
        let mut buf = vec![0u8; 4 * STAMP_EVERY];
        stamper.fill(&mut buf);
        let mut seen = HashSet::new();
        for _ in 0..10 {
            stamper.stamp(&mut buf);
            for block in buf.chunks(STAMP_EVERY) {
                assert!(seen.insert(block.to_vec()), "a 4 KiB block repeated");
            }
        }
    }

    #[test]
    fn random_fill_is_not_constant() {
        let mut buf = vec![0u8; 65536];
        DataStamper::new(7).fill(&mut buf);
        let distinct: HashSet<u8> = buf.iter().copied().collect();
        assert!(
            distinct.len() > 250,
            "random data uses nearly all byte values"
        );
    }
}
