// SPDX-License-Identifier: GPL-2.0

//! A small deterministic generator (SplitMix64): the whole run is a function
//! of the seed and of the kernel's answers.

/// SplitMix64 (Steele, Lea, Flood 2014).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True with probability `pct`/100.
    pub fn chance(&mut self, pct: u64) -> bool {
        self.below(100) < pct
    }

    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len() as u64) as usize]
    }

    /// A value that is interesting for a field of `bits` bits: zero, one,
    /// all ones, a single bit, or random.
    pub fn edgy(&mut self, bits: u32) -> u64 {
        let mask = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        match self.below(6) {
            0 => 0,
            1 => 1,
            2 => mask,
            3 => 1u64 << self.below(bits as u64),
            4 => self.next() & mask & 0xffff,
            _ => self.next() & mask,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_sequence() {
        let (mut a, mut b) = (Rng::new(42), Rng::new(42));
        for _ in 0..1000 {
            assert_eq!(a.next(), b.next());
        }
        assert_ne!(Rng::new(1).next(), Rng::new(2).next());
    }

    #[test]
    fn below_stays_in_range() {
        let mut r = Rng::new(7);
        for n in 1..200 {
            assert!(r.below(n) < n);
        }
        for b in 1..=64 {
            let v = r.edgy(b);
            assert!(b == 64 || v < (1u64 << b));
        }
    }
}
