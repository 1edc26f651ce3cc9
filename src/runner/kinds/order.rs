//! Offsets for the block tests.

/// Visits every block index in `0..n` exactly once, in a scrambled order, with O(1) memory: a
/// full-period linear congruential generator over the next power of two (Hull-Dobell: odd
/// increment, multiplier = 1 mod 4), skipping values >= n. Each pass uses a new seed, so repeated
/// passes do not repeat the order. Reading every block once per pass also keeps a buffered random
/// read from hitting a page it already brought in.
pub struct RandomOrder {
    n: u64,
    mask: u64,
    multiplier: u64,
    increment: u64,
    state: u64,
    emitted: u64,
    rng: fastrand::Rng,
}

impl RandomOrder {
    pub fn new(n: u64, seed: u64) -> Self {
        assert!(n > 0, "random order over no blocks");
        let mut order = RandomOrder {
            n,
            mask: n.next_power_of_two() - 1,
            multiplier: 0,
            increment: 0,
            state: 0,
            emitted: 0,
            rng: fastrand::Rng::with_seed(seed),
        };
        order.reseed();
        order
    }

    fn reseed(&mut self) {
        self.multiplier = (self.rng.u64(..) & !3) | 1; // = 1 mod 4
        self.increment = self.rng.u64(..) | 1; // odd
        self.state = self.rng.u64(..) & self.mask;
        self.emitted = 0;
    }

    /// True once the current pass has visited every block.
    pub fn pass_complete(&self) -> bool {
        self.emitted == self.n
    }

    /// The next block index; starts a new pass after a complete one.
    pub fn next_block(&mut self) -> u64 {
        if self.pass_complete() {
            self.reseed();
        }
        loop {
            self.state = self
                .state
                .wrapping_mul(self.multiplier)
                .wrapping_add(self.increment)
                & self.mask;
            if self.state < self.n {
                self.emitted += 1;
                return self.state;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_pass_visits_every_block_once() {
        for n in [1u64, 2, 7, 1000, 4096, 5000] {
            let mut order = RandomOrder::new(n, 42);
            for _ in 0..2 {
                let mut seen = vec![false; n as usize];
                for _ in 0..n {
                    let b = order.next_block() as usize;
                    assert!(!seen[b], "block {b} twice in one pass of {n}");
                    seen[b] = true;
                }
                assert!(order.pass_complete());
            }
        }
    }

    #[test]
    fn order_is_scrambled() {
        let mut order = RandomOrder::new(1000, 1);
        let first: Vec<u64> = (0..10).map(|_| order.next_block()).collect();
        assert_ne!(first, (0..10).collect::<Vec<u64>>());
    }
}
