// SPDX-License-Identifier: GPL-2.0

//! Counter allocation and overflow arithmetic.

use super::hw::Version;

/// Counter allocator of one sub-block: a bitmap of used counters, lowest
/// free index first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Allocator {
    used: u32,
    n: usize,
}

impl Allocator {
    /// An allocator of `n` counters (at most 32; more are not used).
    pub const fn new(n: usize) -> Self {
        Self {
            used: 0,
            n: if n > 32 { 32 } else { n },
        }
    }

    /// The number of counters.
    pub const fn capacity(&self) -> usize {
        self.n
    }

    /// Takes the lowest free counter, or `None` if all are in use.
    pub fn alloc(&mut self) -> Option<usize> {
        let idx = (!self.used).trailing_zeros() as usize;
        if idx >= self.n {
            return None;
        }
        // `idx < n <= 32`: the bit exists.
        self.used |= bit(idx)?;
        Some(idx)
    }

    /// Gives counter `idx` back. Freeing a free or out-of-range counter
    /// does nothing.
    pub fn free(&mut self, idx: usize) {
        if idx < self.n {
            if let Some(b) = bit(idx) {
                self.used &= !b;
            }
        }
    }

    /// The counters in use, bit `idx` per counter.
    pub fn used(&self) -> u32 {
        self.used
    }
}

/// Bit `idx` of the bitmap, `None` past bit 31.
fn bit(idx: usize) -> Option<u32> {
    u32::try_from(idx).ok().and_then(|i| 1u32.checked_shl(i))
}

/// What a counter of width `mask` counted from `prev` to `now`, across at
/// most one wrap.
pub fn delta(prev: u64, now: u64, mask: u64) -> u64 {
    now.wrapping_sub(prev) & mask
}

/// The value a counter is started (and re-armed after an overflow) with.
///
/// v1/v2 (32 bits): 2^31, as upstream. The overflow interrupt then comes
/// after 2^31 events, and the interrupt handler has another 2^31 events
/// (about a second at 2 GHz) before a second wrap would make [`delta`]
/// ambiguous.
///
/// v3 (64 bits): 0. The counter cannot wrap in practice (2^64 events at
/// 4 GHz is over a century), so [`delta`] is exact without relying on the
/// interrupt; starting at 0 gives the whole range and raw counter values
/// equal to counts. Upstream programs 2^31 here too, which is harmless but
/// has no purpose.
/// (The values are [`super::hw::Layout::start_value`].)
pub const fn start_value(v: Version) -> u64 {
    v.layout().start_value
}

/// Whether a group with `n_events_on_this_pmu` hardware events on one
/// sub-block can ever be scheduled at once (v1 has one counter).
pub fn group_fits(v: Version, n_events_on_this_pmu: usize) -> bool {
    n_events_on_this_pmu <= v.layout().counters
}
