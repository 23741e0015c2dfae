// SPDX-License-Identifier: GPL-2.0

//! The AUX area: a second ring buffer perf maps for trace-style PMUs.
//!
//! C header: [`include/linux/perf_event.h`](srctree/include/linux/perf_event.h)
//!
//! When user space maps an event's AUX area, perf allocates the pages and
//! calls `setup_aux`; this module maps them into one contiguous
//! [`AuxBuffer`] and lets the driver attach its [`PmuDriver::AuxData`]. To
//! write, the driver opens an [`AuxOutput`](super::AuxOutput)
//! (`perf_aux_output_begin`, in `aux_output.rs`), copies records within the
//! space perf granted, and commits (`perf_aux_output_end`), which posts a
//! `PERF_RECORD_AUX` carrying the output flags.

use super::{module_pin::ModulePin, Event, PmuDriver, Process};
use crate::rpmu::bindings;
use core::{
    any::TypeId,
    hash::{Hash, Hasher},
    ptr::NonNull,
};
use kernel::prelude::*;

/// An AUX area mapped into one contiguous kernel buffer; unmapped on drop.
///
/// # Invariants
///
/// `base` is a `vmap` of `size` bytes, not yet unmapped.
pub struct AuxBuffer {
    pub(super) base: NonNull<u8>,
    pub(super) size: usize,
    snapshot: bool,
}

impl AuxBuffer {
    /// Size in bytes (a power-of-two number of pages).
    pub fn size(&self) -> usize {
        self.size
    }

    /// Whether user space mapped the area read-only, asking for snapshot
    /// (overwrite) mode.
    pub fn is_snapshot(&self) -> bool {
        self.snapshot
    }

    /// Maps the `nr_pages` pages perf passed to `setup_aux`.
    ///
    /// # Safety
    ///
    /// `pages` must hold `nr_pages` page-aligned kernel addresses of pages
    /// that stay allocated until the buffer is dropped, as perf core passes
    /// to `pmu::setup_aux` (it frees them after `free_aux`).
    unsafe fn map(pages: *mut *mut c_void, nr_pages: c_int, snapshot: bool) -> Result<Self> {
        let n = usize::try_from(nr_pages).map_err(|_| EINVAL)?;
        if n == 0 {
            return Err(EINVAL);
        }
        let mut list = KVec::<*mut bindings::page>::with_capacity(n, GFP_KERNEL)?;
        for i in 0..n {
            // SAFETY: `pages` has `n` entries (caller); each is a kernel address.
            let page = unsafe { bindings::rpmu_virt_to_page(*pages.add(i)) };
            list.push(page, GFP_KERNEL)?;
        }
        // SAFETY: `list` holds `n` valid pages; `vmap` maps them contiguously.
        let base = unsafe { bindings::rpmu_vmap_pages(list.as_mut_ptr(), n as c_uint) };
        let base = NonNull::new(base.cast::<u8>()).ok_or(ENOMEM)?;
        // INVARIANT: `base` maps `n` pages until `drop` unmaps it.
        Ok(Self {
            base,
            size: n << kernel::page::PAGE_SHIFT,
            snapshot,
        })
    }
}

impl Drop for AuxBuffer {
    fn drop(&mut self) {
        // SAFETY: `base` is the `vmap` made in `map` (type invariant); the
        // buffer is dropped by `free` after perf's last
        // `perf_aux_output_end`, so no writer is left.
        unsafe { bindings::vunmap(self.base.as_ptr().cast()) };
    }
}

// SAFETY: The mapping is not tied to a thread; writes go through
// `AuxOutput`, which perf serialises per buffer.
unsafe impl Send for AuxBuffer {}
// SAFETY: `&AuxBuffer` only reads the size and mode.
unsafe impl Sync for AuxBuffer {}

/// What `setup_aux` returns to perf, handed back by `perf_aux_output_begin`.
/// Fields drop in order: the driver's data, the mapping, then the module
/// reference.
pub(super) struct AuxBox<T: PmuDriver> {
    pub(super) data: T::AuxData,
    pub(super) buf: AuxBuffer,
    _pin: ModulePin,
}

/// Builds the AUX box for `setup_aux`; NULL (perf answers `-ENOMEM`) on
/// failure.
///
/// # Safety
///
/// As for [`AuxBuffer::map`].
pub(super) unsafe fn setup<T: PmuDriver>(
    event: &Event<T, Process>,
    pages: *mut *mut c_void,
    nr_pages: c_int,
    overwrite: bool,
) -> *mut c_void {
    // The module reference first: `free` may run after the event and the
    // registration are gone, and only this keeps the module loaded for it.
    // SAFETY: The event's PMU is registered while perf sets up its AUX
    // area, so its module is valid.
    let Ok(pin) = (unsafe { ModulePin::new((*(*event.raw()).pmu).module) }) else {
        return core::ptr::null_mut();
    };
    // SAFETY: Guaranteed by the caller.
    let Ok(buf) = (unsafe { AuxBuffer::map(pages, nr_pages, overwrite) }) else {
        return core::ptr::null_mut();
    };
    let Ok(data) = event.driver().setup_aux(event, &buf) else {
        return core::ptr::null_mut();
    };
    let Ok(b) = KBox::new(
        AuxBox::<T> {
            data,
            buf,
            _pin: pin,
        },
        GFP_KERNEL,
    ) else {
        return core::ptr::null_mut();
    };
    let p: *mut c_void = KBox::into_raw(b).cast();
    // SAFETY: `p` is a live allocation, registered until `free` erases it
    // before freeing it; the tag fits an XArray value entry.
    if unsafe { bindings::rpmu_aux_register(p, tag::<T>()) } != 0 {
        // SAFETY: `p` came from `KBox::into_raw` above and was not shared.
        drop(unsafe { KBox::from_raw(p.cast::<AuxBox<T>>()) });
        return core::ptr::null_mut();
    }
    p
}

/// What identifies `T`'s AUX boxes in the module's registry: a 62-bit
/// digest (FNV-1a) of `T`'s `TypeId`, which fits an XArray value entry. Two
/// driver types share a tag only if their type ids collide in those bits,
/// the same kind of assumption `dyn Any` downcasting makes of `TypeId`.
pub(super) fn tag<T: PmuDriver>() -> c_ulong {
    struct Fnv(u64);
    impl Hasher for Fnv {
        fn finish(&self) -> u64 {
            self.0
        }
        fn write(&mut self, bytes: &[u8]) {
            for b in bytes {
                self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
            }
        }
    }
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    TypeId::of::<T>().hash(&mut h);
    (h.finish() >> 2) as c_ulong
}

/// Frees what [`setup`] built.
///
/// # Safety
///
/// `p` must come from [`setup`] for the same `T` and not be used afterwards.
pub(super) unsafe fn free<T: PmuDriver>(p: *mut c_void) {
    // SAFETY: Erases what `setup` registered, before the memory goes, so the
    // registry never names freed memory.
    unsafe { bindings::rpmu_aux_unregister(p) };
    // SAFETY: `p` is a leaked `KBox<AuxBox<T>>` (caller).
    drop(unsafe { KBox::from_raw(p.cast::<AuxBox<T>>()) });
}

/// Output flags of an AUX record (`PERF_AUX_FLAG_*`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct AuxFlags(pub(super) u64);

impl AuxFlags {
    /// `PERF_AUX_FLAG_TRUNCATED`: data was dropped because the AUX area was
    /// full. Perf core disables the event when such a record is committed.
    pub const TRUNCATED: Self = Self(bindings::PERF_AUX_FLAG_TRUNCATED as u64);
    /// `PERF_AUX_FLAG_PARTIAL`: the record follows a gap in the data.
    pub const PARTIAL: Self = Self(bindings::PERF_AUX_FLAG_PARTIAL as u64);
}
