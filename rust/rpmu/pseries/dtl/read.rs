// SPDX-License-Identifier: GPL-2.0

//! Reading a DTL ring: entries as words, and runs of slots as
//! [`SharedWords`] for a consumer to copy. The hypervisor may write the ring
//! meanwhile, so every read is a volatile load, never a Rust reference to
//! the ring.

use super::{DtlBuffer, DTL_ENTRY_WORDS};
use crate::rpmu::io::SharedWords;
use core::{marker::PhantomData, ptr::NonNull};

impl DtlBuffer {
    /// The entry in ring slot `slot` as its [`DTL_ENTRY_WORDS`] 8-byte
    /// words (native-endian loads of the big-endian entry), read with
    /// volatile loads: the hypervisor may be writing. `None` if the slot is
    /// outside the ring.
    #[inline]
    pub fn load_slot(&self, slot: usize) -> Option<[u64; DTL_ENTRY_WORDS]> {
        self.view().load_slot(slot)
    }

    /// The ring's base and size, read once, for a reader that reads many
    /// slots (a poll): [`RingView::load_slot`] and [`RingView::slot_words`]
    /// then check slots against that size only.
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

impl<'a> RingView<'a> {
    /// The `len` entries from ring slot `slot` on as words another agent
    /// may write, for a consumer to copy and check record by record
    /// (`AuxWindow::copy_records_while`); `None` if the slots are outside
    /// the ring.
    #[inline]
    pub fn slot_words(&self, slot: usize, len: usize) -> Option<SharedWords<'a>> {
        if slot.checked_add(len)? > self.entries {
            return None;
        }
        // Both within the ring's words (`slot + len <= entries`): never fail.
        let words = len.checked_mul(DTL_ENTRY_WORDS)?;
        let start = NonNull::new(self.base.wrapping_add(slot.checked_mul(DTL_ENTRY_WORDS)?))?;
        // SAFETY: The words of slots `slot..slot + len` are within the ring
        // (checked above), allocated for `'a` and 8-byte aligned
        // (invariant), and no AUX area; the hypervisor may write them,
        // which `SharedWords` allows.
        Some(unsafe { SharedWords::new(start, words) })
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
