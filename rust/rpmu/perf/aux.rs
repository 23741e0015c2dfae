// SPDX-License-Identifier: GPL-2.0

//! The AUX area: a second ring buffer perf maps for trace-style PMUs.
//!
//! C header: [`include/linux/perf_event.h`](srctree/include/linux/perf_event.h)
//!
//! When user space maps an event's AUX area, perf allocates the pages and
//! calls `setup_aux`; this module maps them into one contiguous
//! [`AuxBuffer`] and lets the driver attach its [`PmuDriver::AuxData`]. To
//! write, the driver opens an [`AuxOutput`] (`perf_aux_output_begin`), copies
//! records within the space perf granted, and commits
//! (`perf_aux_output_end`), which posts a `PERF_RECORD_AUX` carrying the
//! output flags.

use super::{module_pin::ModulePin, Event, PmuDriver, Process};
use crate::rpmu::{bindings, io::SharedBytes};
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
    base: NonNull<u8>,
    size: usize,
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
struct AuxBox<T: PmuDriver> {
    data: T::AuxData,
    buf: AuxBuffer,
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
    let Ok(pin) = ModulePin::new() else {
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
fn tag<T: PmuDriver>() -> c_ulong {
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
pub struct AuxFlags(u64);

impl AuxFlags {
    /// `PERF_AUX_FLAG_TRUNCATED`: data was dropped because the AUX area was
    /// full. Perf core disables the event when such a record is committed.
    pub const TRUNCATED: Self = Self(bindings::PERF_AUX_FLAG_TRUNCATED as u64);
    /// `PERF_AUX_FLAG_PARTIAL`: the record follows a gap in the data.
    pub const PARTIAL: Self = Self(bindings::PERF_AUX_FLAG_PARTIAL as u64);
}

/// An open AUX transaction (between `perf_aux_output_begin` and
/// `perf_aux_output_end`). Committed by [`AuxOutput::commit`] or on drop.
///
/// # Invariants
///
/// `handle` was filled by a successful `perf_aux_output_begin` and has not
/// been ended; `aux` is the `AuxBox<T>` perf returned for it. `written` never
/// exceeds `handle.size`.
pub struct AuxOutput<'a, T: PmuDriver> {
    handle: bindings::perf_output_handle,
    aux: &'a AuxBox<T>,
    written: usize,
    flags: u64,
}

impl<'a, T: PmuDriver> AuxOutput<'a, T> {
    pub(super) fn begin(event: &'a Event<T>) -> Option<Self> {
        let mut handle = bindings::perf_output_handle::default();
        // SAFETY: `event` is an active event of our PMU; perf core checks
        // that an AUX area is mapped and returns its private data.
        let p = unsafe { bindings::perf_aux_output_begin(&mut handle, event.raw()) };
        if p.is_null() {
            return None;
        }
        // SAFETY: `p` is only compared, not dereferenced.
        if !unsafe { bindings::rpmu_aux_is(p, tag::<T>()) } {
            // The ring's AUX area was set up by another PMU (the event's
            // output is redirected into a ring shared with it): its private
            // data is not ours to use. End the transaction, writing nothing.
            // SAFETY: The handle was opened by the successful begin above
            // and is ended once, here.
            unsafe { bindings::perf_aux_output_end(&mut handle, 0) };
            return None;
        }
        // SAFETY: `p` is in the registry with `T`'s tag, so it is a live
        // `AuxBox<T>` made by `setup` (entries are erased before the box is
        // freed); the reference `begin` took on the AUX area keeps perf from
        // freeing it until the transaction ends.
        let aux = unsafe { &*p.cast::<AuxBox<T>>() };
        // INVARIANT: begin succeeded; nothing written yet.
        Some(Self {
            handle,
            aux,
            written: 0,
            flags: 0,
        })
    }

    /// The driver's state for this AUX area, for as long as the
    /// transaction is open: [`Self::commit`] may drop the last reference
    /// to the area.
    pub fn data(&self) -> &T::AuxData {
        &self.aux.data
    }

    /// Bytes perf granted that are still free in this transaction. Zero in
    /// snapshot mode, where perf grants no space accounting.
    pub fn space(&self) -> usize {
        // `written <= handle.size` (invariant): exact.
        self.handle.size.saturating_sub(self.written)
    }

    /// Offset from the start of the AUX session (perf's free-running
    /// `aux_head`) at which the next byte will land.
    fn position(&self) -> u64 {
        // SAFETY: For AUX handles perf core sets `head` (not `addr`).
        let head = unsafe { self.handle.__bindgen_anon_2.head };
        // Free-running, as perf's `aux_head` is: wraps.
        (head as u64).wrapping_add(self.written as u64)
    }

    /// Appends `bytes`, wrapping at the end of the buffer. Fails with
    /// `ENOSPC`, writing nothing, if they do not fit in [`Self::space`].
    pub fn write(&mut self, bytes: &[u8]) -> Result {
        if bytes.len() > self.space() {
            return Err(ENOSPC);
        }
        let size = self.aux.buf.size;
        // `size` is never zero (`map` refuses no pages): the fallback is
        // never taken.
        let off = self.position().checked_rem(size as u64).unwrap_or(0) as usize;
        // `off < size` (a remainder) and `first <= bytes.len()`: neither
        // saturates.
        let first = bytes.len().min(size.saturating_sub(off));
        let rest = bytes.len().saturating_sub(first);
        let base = self.aux.buf.base.as_ptr();
        // SAFETY: `off + first <= size` and `rest = bytes.len() - first <=
        // off` (since `bytes.len() <= space < size`), so both copies stay
        // within the `size`-byte mapping; perf granted this space to us, so
        // user space does not read it until we commit.
        unsafe {
            core::ptr::copy_nonoverlapping(bytes.as_ptr(), base.add(off), first);
            core::ptr::copy_nonoverlapping(bytes.as_ptr().add(first), base, rest);
        }
        // `bytes.len() <= space`, so `written` stays within `handle.size`
        // (invariant): never saturates.
        self.written = self.written.saturating_add(bytes.len());
        Ok(())
    }

    /// Reserves the next `len` bytes of the granted space, for the driver
    /// to fill before it keeps a prefix of them ([`AuxWindow::keep`]); what
    /// it does not keep stays unwritten. This saves a staging copy when data
    /// is checked after it is taken (where it came from, not in the AUX
    /// area, which user space may write).
    /// `None` if `len` exceeds [`Self::space`] or the next byte is not
    /// 8-byte aligned.
    pub fn reserve(&mut self, len: usize) -> Option<AuxWindow<'_, 'a, T>> {
        let size = self.aux.buf.size;
        // As in `write`: `size` is never zero.
        let start = self.position().checked_rem(size as u64).unwrap_or(0) as usize;
        if len > self.space() || len > size || start % 8 != 0 {
            return None;
        }
        // INVARIANT: `start < size` (a remainder), 8-aligned; `len` is
        // within the free space and the buffer.
        Some(AuxWindow {
            out: self,
            start,
            len,
        })
    }

    /// Marks the record with `flags`.
    pub fn set_flags(&mut self, flags: AuxFlags) {
        self.flags |= flags.0;
    }

    /// Commits what was written, posting a `PERF_RECORD_AUX` (also posted,
    /// empty, when flags are set). Returns the bytes committed.
    pub fn commit(self) -> usize {
        self.written
    }
}

impl<T: PmuDriver> Drop for AuxOutput<'_, T> {
    fn drop(&mut self) {
        // SAFETY: By the type invariant the handle is open and owns a
        // reference on the buffer; ending it releases both, exactly once.
        unsafe {
            if self.flags != 0 {
                bindings::perf_aux_output_flag(&mut self.handle, self.flags);
            }
            bindings::perf_aux_output_end(&mut self.handle, self.written as c_ulong);
        }
    }
}

/// Reserved, uncommitted bytes of an AUX transaction ([`AuxOutput::reserve`]),
/// written at 8-byte aligned offsets; the window wraps at the end of the
/// AUX buffer as the data does.
///
/// User space can map the AUX area writable and so change these bytes at
/// any time: the window is write-only, so nothing a driver decides can
/// depend on them.
///
/// # Invariants
///
/// `start < size` and is 8-byte aligned, and `len` exceeds neither `size`
/// nor the transaction's free space, where `size` is the AUX buffer's size.
pub struct AuxWindow<'o, 'a, T: PmuDriver> {
    out: &'o mut AuxOutput<'a, T>,
    start: usize,
    len: usize,
}

impl<T: PmuDriver> AuxWindow<'_, '_, T> {
    /// Where the word at window offset `off` is in the buffer (a byte
    /// offset, 8-byte aligned, at most `size - 8`), if `off` is 8-byte
    /// aligned and the word within the window.
    #[inline]
    fn buf_offset(&self, off: usize) -> Option<usize> {
        if off % 8 != 0 || off.checked_add(8)? > self.len {
            return None;
        }
        let size = self.out.aux.buf.size;
        // `start + off < 2 * size`: `start < size` and `off < len <= size`,
        // so the sum does not overflow (`None` otherwise), and wraps at most
        // once: `at - size` past the end of the buffer, else `at`.
        let at = self.start.checked_add(off)?;
        Some(at.checked_sub(size).unwrap_or(at))
    }

    /// Writes `words` from byte offset `off` on, wrapping with the buffer;
    /// does nothing unless `off` is 8-byte aligned and all of them are
    /// within the window.
    #[inline]
    pub fn write_words<const N: usize>(&mut self, off: usize, words: &[u64; N]) {
        let Some(at) = self.buf_offset(off) else {
            return;
        };
        // An end past `usize::MAX` is past the window too.
        let end = N.checked_mul(8).and_then(|n| off.checked_add(n));
        if end.is_none_or(|end| end > self.len) {
            return;
        }
        let size = self.out.aux.buf.size;
        let base = self.out.aux.buf.base.as_ptr();
        // Words before the end of the buffer (`at < size`: exact).
        let before = size.saturating_sub(at) / 8;
        if before >= N {
            // SAFETY: `at + 8 * N <= size`, within the mapping, and aligned;
            // perf granted this space to the transaction, and user space
            // does not read it before commit.
            unsafe { base.add(at).cast::<[u64; N]>().write(*words) };
            return;
        }
        for (i, w) in words.iter().enumerate() {
            // Word `i` is word `i` from `at` while `i < before`, else word
            // `i - before` from the start of the buffer.
            let (from, k) = match i.checked_sub(before) {
                None => (at, i),
                Some(k) => (0, k),
            };
            // SAFETY: The first `before` words (`from = at`, `k = i`) end at
            // the end of the mapping; the rest (`from = 0`, `k = i - before`)
            // start at its beginning and end before `at` (the window is at
            // most `size` bytes). As above otherwise.
            unsafe { base.add(from).cast::<u64>().add(k).write(*w) };
        }
    }

    /// Copies the bytes of `src` to byte offset `off` on, wrapping with the
    /// buffer, with the kernel's `memcpy` (another agent may be writing
    /// them); does nothing (and returns false) unless `off` is 8-byte
    /// aligned and all of them are within the window.
    pub fn copy_from(&mut self, off: usize, src: SharedBytes<'_>) -> bool {
        let n = src.len();
        let Some(at) = self.buf_offset(off) else {
            return false;
        };
        // `n > len - off` (`off < len`), as `off + n > len`; an end past
        // `usize::MAX` is past the window too.
        if off.checked_add(n).is_none_or(|end| end > self.len) {
            return false;
        }
        let size = self.out.aux.buf.size;
        let base = self.out.aux.buf.base.as_ptr();
        // `at < size` and `first <= n`: neither saturates.
        let first = n.min(size.saturating_sub(at));
        let rest = n.saturating_sub(first);
        let from = src.as_ptr();
        // SAFETY: `[at, at + first)` and `[0, rest)` (`rest = n - first`)
        // are within the `size`-byte mapping and, the window being at most
        // `size` bytes, do not overlap; perf granted them to this
        // transaction. `from` is valid for reads of `n = first + rest` bytes
        // and does not overlap an AUX area (`SharedBytes` invariant); another
        // agent may write them: the kernel's `memcpy` copies them as bytes.
        unsafe {
            bindings::rpmu_memcpy(base.add(at).cast(), from.cast(), first);
            bindings::rpmu_memcpy(base.cast(), from.add(first).cast(), rest);
        }
        true
    }

    /// Keeps the first `n` bytes (at most [`Self::len`]) as written by the
    /// transaction; the rest is left free.
    pub fn keep(self, n: usize) {
        // INVARIANT: `len` is within the free space, so `written` stays
        // within the space perf granted (and never saturates).
        self.out.written = self.out.written.saturating_add(n.min(self.len));
    }
}
