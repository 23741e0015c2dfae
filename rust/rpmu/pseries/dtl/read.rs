// SPDX-License-Identifier: GPL-2.0

//! Reading a DTL ring: entries as words, timebases, and runs of slots as
//! [`SharedBytes`] for a consumer to copy. The hypervisor may write the ring
//! meanwhile, so every read is a volatile load or a C `memcpy`, never a Rust
//! reference to the ring.

use super::{DtlBuffer, DTL_ENTRY_BYTES, DTL_ENTRY_WORDS};
use crate::rpmu::io::SharedBytes;
use core::{marker::PhantomData, ptr::NonNull};

impl DtlBuffer {
    /// The timebase of the entry in ring slot `slot` (a volatile load of
    /// its big-endian word); `None` if the slot is outside the ring.
    #[inline]
    pub fn timebase(&self, slot: usize) -> Option<u64> {
        self.view().timebase(slot)
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
        self.view().load_slot(slot)
    }

    /// The ring's base and size, read once, for a reader that reads many
    /// slots (a poll): [`RingView::timebase`] and [`RingView::load_slot`]
    /// then check each slot against that size only.
    #[inline]
    pub fn view(&self) -> RingView<'_> {
        // INVARIANT: `entries` slots fit in the ring's memory at `base`
        // (`DtlBuffer` invariant), which is allocated while `self` is
        // borrowed; a later change of `entries` never exceeds that memory.
        RingView {
            base: self.base().cast::<u64>(),
            entries: self.entries(),
            _buf: PhantomData,
        }
    }
}

/// A DTL ring's base and size as read once (see [`DtlBuffer::view`]).
///
/// # Invariants
///
/// `entries` slots of [`DTL_ENTRY_WORDS`] words from `base`, which is
/// 8-byte aligned, are allocated for `'a`.
pub struct RingView<'a> {
    base: *mut u64,
    entries: usize,
    _buf: PhantomData<&'a DtlBuffer>,
}

impl RingView<'_> {
    /// As [`DtlBuffer::timebase`].
    #[inline]
    pub fn timebase(&self, slot: usize) -> Option<u64> {
        if slot >= self.entries {
            return None;
        }
        // At most 1364 * 6 + 2 (`slot < entries`): never `None`.
        let word = slot.checked_mul(DTL_ENTRY_WORDS)?.checked_add(2)?;
        // SAFETY: `word` is word 2 of a slot below `entries` (checked
        // above), allocated and aligned (invariant).
        let w = unsafe { core::ptr::read_volatile(self.base.add(word)) };
        Some(u64::from_be(w))
    }

    /// As [`DtlBuffer::load_slot`].
    #[inline]
    pub fn load_slot(&self, slot: usize) -> Option<[u64; DTL_ENTRY_WORDS]> {
        if slot >= self.entries {
            return None;
        }
        // At most 1364 * 6 (`slot < entries`): never `None`.
        let first = slot.checked_mul(DTL_ENTRY_WORDS)?;
        Some(core::array::from_fn(|w| {
            // SAFETY: Word `first + w`, `w < DTL_ENTRY_WORDS`, lies in a slot
            // below `entries` (checked above), allocated and aligned
            // (invariant).
            unsafe { core::ptr::read_volatile(self.base.add(first).add(w)) }
        }))
    }
}
