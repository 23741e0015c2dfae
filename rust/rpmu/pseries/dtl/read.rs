// SPDX-License-Identifier: GPL-2.0

//! Reading a DTL ring: entries as words, timebases, and copies into an AUX
//! area. The hypervisor may write the ring meanwhile, so every read is a
//! volatile load or a C `memcpy`, never a Rust reference to the ring.

use super::{DtlBuffer, DTL_ENTRIES, DTL_ENTRY_BYTES, DTL_ENTRY_WORDS};
use crate::rpmu::perf::{AuxWindow, PmuDriver};
use kernel::prelude::*;

impl DtlBuffer {
    /// The timebase of the entry in ring slot `slot` (a volatile load of
    /// its big-endian word); `None` if the slot is outside the ring.
    #[inline]
    pub fn timebase(&self, slot: usize) -> Option<u64> {
        if slot >= DTL_ENTRIES {
            return None;
        }
        // At most 84 * 6 + 2 (`slot < DTL_ENTRIES`): never `None`.
        let word = slot.checked_mul(DTL_ENTRY_WORDS)?.checked_add(2)?;
        // SAFETY: `word` is word 2 of a slot inside the ring (checked above),
        // which is 8-byte aligned and allocated (invariants).
        let w = unsafe { core::ptr::read_volatile(self.base().cast::<u64>().add(word)) };
        Some(u64::from_be(w))
    }

    /// Copies the `len` entries from ring slot `slot` on into `win` at byte
    /// offset `off`, in one `memcpy`, as the C readers copy the ring. Fails
    /// with `EINVAL`, copying nothing, if the slots are outside the ring or
    /// the bytes outside the window.
    pub fn copy_to_aux<T: PmuDriver>(
        &self,
        slot: usize,
        len: usize,
        win: &mut AuxWindow<'_, '_, T>,
        off: usize,
    ) -> Result {
        if slot.checked_add(len).is_none_or(|end| end > DTL_ENTRIES) {
            return Err(EINVAL);
        }
        // Both at most `DTL_BYTES` (`slot + len <= DTL_ENTRIES`): never fail.
        let at = slot.checked_mul(DTL_ENTRY_BYTES).ok_or(EINVAL)?;
        let bytes = len.checked_mul(DTL_ENTRY_BYTES).ok_or(EINVAL)?;
        // SAFETY: `[at, at + bytes)` are the bytes of slots
        // `slot..slot + len`, within the ring (checked above), which is allocated
        // (invariants); the hypervisor may write it meanwhile, which
        // `copy_from` allows.
        let ok = unsafe { win.copy_from(off, self.base().add(at), bytes) };
        if ok {
            Ok(())
        } else {
            Err(EINVAL)
        }
    }

    /// The entry in ring slot `slot` as its [`DTL_ENTRY_WORDS`] 8-byte
    /// words (native-endian loads of the big-endian entry), read with
    /// volatile loads: the hypervisor may be writing. `None` if the slot is
    /// outside the ring.
    #[inline]
    pub fn load_slot(&self, slot: usize) -> Option<[u64; DTL_ENTRY_WORDS]> {
        if slot >= DTL_ENTRIES {
            return None;
        }
        let src = self.base().cast::<u64>();
        // At most 84 * 6 (`slot < DTL_ENTRIES`): never `None`.
        let first = slot.checked_mul(DTL_ENTRY_WORDS)?;
        Some(core::array::from_fn(|w| {
            // SAFETY: Word `w < DTL_ENTRY_WORDS` after word `first`, that is
            // word `first + w`, is below `DTL_ENTRIES * DTL_ENTRY_WORDS`
            // (510), within the 512-word ring, which is 8-byte aligned and
            // allocated (invariants).
            unsafe { core::ptr::read_volatile(src.add(first).add(w)) }
        }))
    }
}
