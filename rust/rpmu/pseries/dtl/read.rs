// SPDX-License-Identifier: GPL-2.0

//! Reading a DTL ring: entries as words, timebases, and runs of slots as
//! [`SharedBytes`] for a consumer to copy. The hypervisor may write the ring
//! meanwhile, so every read is a volatile load or a C `memcpy`, never a Rust
//! reference to the ring.

use super::{DtlBuffer, DTL_ENTRY_BYTES, DTL_ENTRY_WORDS};
use crate::rpmu::io::SharedBytes;
use core::ptr::NonNull;

impl DtlBuffer {
    /// The timebase of the entry in ring slot `slot` (a volatile load of
    /// its big-endian word); `None` if the slot is outside the ring.
    #[inline]
    pub fn timebase(&self, slot: usize) -> Option<u64> {
        if slot >= self.entries() {
            return None;
        }
        // At most 1364 * 6 + 2 (`slot < entries`): never `None`.
        let word = slot.checked_mul(DTL_ENTRY_WORDS)?.checked_add(2)?;
        // SAFETY: `word` is word 2 of a slot inside the ring (checked above;
        // `entries` slots fit in the ring), which is 8-byte aligned and
        // allocated (invariants).
        let w = unsafe { core::ptr::read_volatile(self.base().cast::<u64>().add(word)) };
        Some(u64::from_be(w))
    }

    /// The `len` entries from ring slot `slot` on, as bytes the hypervisor
    /// may be writing, for a consumer to copy in one `memcpy`, as the C
    /// readers copy the ring (for example into an AUX area with
    /// `AuxWindow::copy_from`). `None` if the slots are outside the ring.
    pub fn slots(&self, slot: usize, len: usize) -> Option<SharedBytes<'_>> {
        if slot.checked_add(len).is_none_or(|end| end > self.entries()) {
            return None;
        }
        // Both at most the ring's bytes (`slot + len <= entries`): never fail.
        let at = slot.checked_mul(DTL_ENTRY_BYTES)?;
        let bytes = len.checked_mul(DTL_ENTRY_BYTES)?;
        // Inside the ring (`at <= entries * DTL_ENTRY_BYTES`, which is below
        // the ring's bytes): not null.
        let start = NonNull::new(self.base().wrapping_add(at))?;
        // SAFETY: `[at, at + bytes)` are the bytes of slots
        // `slot..slot + len`, within the ring (checked above), which is
        // allocated until `self` is dropped and so while it is borrowed
        // (invariants), and is no AUX area; the hypervisor may write them
        // meanwhile, which `SharedBytes` allows.
        Some(unsafe { SharedBytes::new(start, bytes) })
    }

    /// The entry in ring slot `slot` as its [`DTL_ENTRY_WORDS`] 8-byte
    /// words (native-endian loads of the big-endian entry), read with
    /// volatile loads: the hypervisor may be writing. `None` if the slot is
    /// outside the ring.
    #[inline]
    pub fn load_slot(&self, slot: usize) -> Option<[u64; DTL_ENTRY_WORDS]> {
        if slot >= self.entries() {
            return None;
        }
        let src = self.base().cast::<u64>();
        // At most 1364 * 6 (`slot < entries`): never `None`.
        let first = slot.checked_mul(DTL_ENTRY_WORDS)?;
        Some(core::array::from_fn(|w| {
            // SAFETY: Word `w < DTL_ENTRY_WORDS` after word `first`, that is
            // word `first + w`, is below `entries * DTL_ENTRY_WORDS`, within
            // the ring (`entries` slots fit in it), which is 8-byte aligned
            // and allocated (invariants).
            unsafe { core::ptr::read_volatile(src.add(first).add(w)) }
        }))
    }
}
