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

use super::{module_pin::ModulePin, Capability, Event, PmuDriver, Process};
use crate::rpmu::{bindings, io::SharedWords};
use core::{
    any::TypeId,
    cell::UnsafeCell,
    hash::{Hash, Hasher},
    ptr::NonNull,
};
use kernel::{
    prelude::*,
    sync::atomic::{Acquire, Atomic, Relaxed, Release},
};

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

/// No transaction is open.
const IDLE: i32 = 0;
/// A transaction is open and held across callbacks; no [`AuxOutput`] uses it.
const HELD: i32 = 1;
/// An [`AuxOutput`] uses the slot (its transaction open, or being opened).
const BUSY: i32 = 2;
/// As [`BUSY`], and a `stop` nested in the callback that uses it asked for
/// the transaction to end: the [`AuxOutput`] ends it instead of holding it.
const BUSY_END: i32 = 3;
/// `stop` or `del` returned (or `add` failed), and no transaction is open:
/// one may open (the driver's `del` may still write what came in since
/// `stop`), but none is held before the next `add` or `start`.
const STOPPED: i32 = 4;

/// The AUX transaction of one event: where [`AuxOutput`] keeps its
/// `perf_output_handle`, and where [`AuxOutput::hold`] leaves it open from
/// one callback of the event to the next. Part of the event's box.
///
/// # Invariants
///
/// - `state` is [`IDLE`], [`HELD`], [`BUSY`], [`BUSY_END`] or [`STOPPED`],
///   and `open` is
///   accessed only on the event's CPU: while `BUSY` or `BUSY_END` by the one
///   [`AuxOutput`] that set it so, while `HELD` by whoever moves `state` away
///   from `HELD` with an atomic exchange (so by one of a callback and a
///   callback nested in it, never both).
/// - While `HELD`, `open.handle` was filled by a successful
///   `perf_aux_output_begin` for the event and has not been ended, and
///   `open.aux` is the `AuxBox<T>` that call returned.
/// - No transaction is open once `stop` or `del` has returned, nor after a
///   failed `add`, until the next `add` or `start`: [`AuxSlot::stop`] ends
///   a held one and sets [`STOPPED`] (or, for a `stop` nested in a callback
///   that uses the slot, [`BUSY_END`], and that callback's [`AuxOutput`]
///   ends the transaction and sets [`STOPPED`]); a transaction opened from
///   `STOPPED` is `BUSY_END`, so it ends with its callback; [`AuxSlot::start`]
///   sets `IDLE` again.
pub(super) struct AuxSlot<T: PmuDriver> {
    state: Atomic<i32>,
    open: UnsafeCell<Open<T>>,
}

/// An open transaction's C handle and what the abstraction tracks of it.
struct Open<T: PmuDriver> {
    handle: bindings::perf_output_handle,
    aux: *const AuxBox<T>,
    /// Bytes written so far, at most `handle.size`.
    written: usize,
    /// `PERF_AUX_FLAG_*` to set when the transaction ends.
    flags: u64,
}

impl<T: PmuDriver> AuxSlot<T> {
    /// A slot with no transaction open.
    pub(super) fn new() -> Self {
        // INVARIANT: `IDLE`: nothing is open.
        Self {
            state: Atomic::new(IDLE),
            open: UnsafeCell::new(Open {
                handle: bindings::perf_output_handle::default(),
                aux: core::ptr::null(),
                written: 0,
                flags: 0,
            }),
        }
    }

    /// Ends the transaction the driver held, if any, and opens none until
    /// [`Self::start`]: called by the abstraction after `stop` and `del`
    /// return and after a failed `add`, on the event's CPU. If the callback
    /// this one is nested in is using the transaction (a `stop` from perf's
    /// throttling), that callback's [`AuxOutput`] ends it instead of
    /// holding it, before the callback returns.
    pub(super) fn stop(&self) {
        loop {
            let now = self.state.load(Relaxed);
            let next = match now {
                HELD => {
                    if self.state.cmpxchg(HELD, BUSY, Acquire).is_err() {
                        continue;
                    }
                    // SAFETY: `state` went from `HELD` to `BUSY` here: the
                    // slot is this call's, and its transaction is open
                    // (invariant).
                    unsafe { end(&mut *self.open.get()) };
                    // INVARIANT: Ended above.
                    self.state.store(STOPPED, Release);
                    return;
                }
                IDLE => STOPPED,
                BUSY => BUSY_END,
                _ => return,
            };
            if self.state.cmpxchg(now, next, Relaxed).is_ok() {
                return;
            }
        }
    }

    /// Gives up the slot an [`AuxOutput`] had, its transaction ended or
    /// never opened: `IDLE`, or `STOPPED` if the event stopped meanwhile
    /// (`BUSY_END`).
    fn release(&self) {
        // INVARIANT: No transaction is open (caller). Only a nested `stop`
        // changes `BUSY`, to `BUSY_END`, which becomes `STOPPED`.
        if self.state.cmpxchg(BUSY, IDLE, Release).is_err() {
            self.state.store(STOPPED, Release);
        }
    }

    /// Lets transactions be held again: called by the abstraction before
    /// `add` and `start`.
    pub(super) fn start(&self) {
        // Only from `STOPPED`; any other state is left as it is.
        let _ = self.state.cmpxchg(STOPPED, IDLE, Relaxed);
    }

    /// Whether a transaction is held open ([`AuxOutput::hold`]).
    pub(super) fn is_held(&self) -> bool {
        self.state.load(Relaxed) == HELD
    }
}

/// Ends `open`'s transaction, setting its flags first.
///
/// # Safety
///
/// `open.handle` must be open (filled by a successful
/// `perf_aux_output_begin` and not ended), and not be used again before a
/// new `perf_aux_output_begin`.
unsafe fn end<T: PmuDriver>(open: &mut Open<T>) {
    // SAFETY: The handle is open (caller) and owns a reference on the
    // buffer; ending it releases both, once.
    unsafe {
        if open.flags != 0 {
            bindings::perf_aux_output_flag(&mut open.handle, open.flags);
        }
        bindings::perf_aux_output_end(&mut open.handle, open.written as c_ulong);
    }
}

// SAFETY: `open` is accessed only on the event's CPU by the one party the
// atomic `state` designates (type invariant); `Open` holds no reference
// tied to a thread.
unsafe impl<T: PmuDriver> Sync for AuxSlot<T> {}
// SAFETY: As for `Sync`: the handle is not tied to the thread that opened it.
unsafe impl<T: PmuDriver> Send for AuxSlot<T> {}

/// An open AUX transaction (between `perf_aux_output_begin` and
/// `perf_aux_output_end`), in use by one callback of its event. Ended by
/// [`AuxOutput::commit`] or on drop; [`AuxOutput::hold`] keeps it open for
/// the event's next callback instead.
///
/// # Invariants
///
/// `slot` is the event's [`AuxSlot`], in state `BUSY` or `BUSY_END`, set so
/// by this value; its transaction is open, and `aux` is the `AuxBox<T>`
/// that `perf_aux_output_begin` returned for it.
pub struct AuxOutput<'a, T: PmuDriver> {
    slot: &'a AuxSlot<T>,
    aux: &'a AuxBox<T>,
}

impl<'a, T: PmuDriver> AuxOutput<'a, T> {
    /// Continues the transaction the event holds, or opens one.
    pub(super) fn begin(event: &'a Event<T>, slot: &'a AuxSlot<T>) -> Option<Self> {
        match slot.state.cmpxchg(HELD, BUSY, Acquire) {
            Ok(_) => {
                // SAFETY: `HELD` became `BUSY` here: the slot is ours, its
                // transaction open and `aux` the box perf returned for it
                // (invariant), which the open transaction's reference on the
                // area keeps alive until it ends.
                let aux = unsafe { &*(*slot.open.get()).aux };
                // INVARIANT: As just said.
                return Some(Self { slot, aux });
            }
            // The event stopped: a transaction may open, but ends with
            // this callback.
            Err(STOPPED) => {
                if slot.state.cmpxchg(STOPPED, BUSY_END, Acquire).is_err() {
                    return None;
                }
            }
            // A nested callback may have taken and ended one meanwhile:
            // only from `IDLE`.
            Err(IDLE) => {
                if slot.state.cmpxchg(IDLE, BUSY, Acquire).is_err() {
                    return None;
                }
            }
            // The callback this one is nested in is using it: perf allows
            // one transaction per event at a time.
            Err(_) => return None,
        }
        // SAFETY: `state` is `BUSY`, set by this call: `open` is ours.
        let open = unsafe { &mut *slot.open.get() };
        // SAFETY: `event` is an active event of our PMU; perf core checks
        // that an AUX area is mapped and returns its private data.
        let p = unsafe { bindings::perf_aux_output_begin(&mut open.handle, event.raw()) };
        if p.is_null() {
            slot.release();
            return None;
        }
        open.written = 0;
        open.flags = 0;
        // SAFETY: `p` is only compared, not dereferenced.
        if !unsafe { bindings::rpmu_aux_is(p, tag::<T>()) } {
            // The ring's AUX area was set up by another PMU (the event's
            // output is redirected into a ring shared with it): its private
            // data is not ours to use. End the transaction, writing nothing.
            // SAFETY: The handle was opened by the successful begin above
            // and is ended once, here.
            unsafe { end(open) };
            slot.release();
            return None;
        }
        open.aux = p.cast();
        // SAFETY: `p` is in the registry with `T`'s tag, so it is a live
        // `AuxBox<T>` made by `setup` (entries are erased before the box is
        // freed); the reference `begin` took on the AUX area keeps perf from
        // freeing it until the transaction ends.
        let aux = unsafe { &*p.cast::<AuxBox<T>>() };
        // INVARIANT: begin succeeded; the slot is `BUSY` or `BUSY_END`, set
        // here.
        Some(Self { slot, aux })
    }

    #[inline]
    fn open(&self) -> &Open<T> {
        // SAFETY: The slot is `BUSY` or `BUSY_END`, set by this value (type
        // invariant): its `open` is ours.
        unsafe { &*self.slot.open.get() }
    }

    #[inline]
    fn open_mut(&mut self) -> &mut Open<T> {
        // SAFETY: As for `open`; `&mut self` makes the access unique.
        unsafe { &mut *self.slot.open.get() }
    }

    /// The driver's state for this AUX area, for as long as the
    /// transaction is in this callback's hands: [`Self::commit`] may drop
    /// the last reference to the area.
    pub fn data(&self) -> &T::AuxData {
        &self.aux.data
    }

    /// Bytes perf granted that are still free in this transaction.
    pub fn space(&self) -> usize {
        let o = self.open();
        // `written <= handle.size` (`Open`): exact.
        o.handle.size.saturating_sub(o.written)
    }

    /// Bytes written in this transaction so far, in this callback and in
    /// the earlier ones that held it: zero for a transaction just opened.
    pub fn written(&self) -> usize {
        self.open().written
    }

    /// Whether the data written reaches the AUX area's wakeup watermark
    /// (`aux_watermark`): ending the transaction now wakes the reader.
    pub fn past_wakeup(&self) -> bool {
        let wakeup = self.open().handle.wakeup;
        // Free-running offsets, compared as perf's are, with wrapping.
        (self.position() as c_ulong).wrapping_sub(wakeup) as c_long >= 0
    }

    /// Offset from the start of the AUX session (perf's free-running
    /// `aux_head`) at which the next byte will land.
    fn position(&self) -> u64 {
        let o = self.open();
        // SAFETY: For AUX handles perf core sets `head` (not `addr`).
        let head = unsafe { o.handle.__bindgen_anon_2.head };
        // Free-running, as perf's `aux_head` is: wraps.
        (head as u64).wrapping_add(o.written as u64)
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
        let o = self.open_mut();
        // `bytes.len() <= space`, so `written` stays within `handle.size`
        // (`Open`): never saturates.
        o.written = o.written.saturating_add(bytes.len());
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
        self.open_mut().flags |= flags.0;
    }

    /// Ends the transaction, posting a `PERF_RECORD_AUX` with what was
    /// written in it (also posted, empty, when flags are set). Returns the
    /// bytes committed.
    pub fn commit(self) -> usize {
        self.written()
    }

    /// Leaves the transaction open, with what was written so far, for the
    /// event's next callback, whose [`Event::aux_output_begin`] continues
    /// it. Nothing written reaches user space until a callback commits the
    /// transaction, so a driver commits when the reader should see the data
    /// ([`Self::past_wakeup`], or an age of its choosing), when the space
    /// runs short, and to flag a loss where it happened. The abstraction
    /// commits a held transaction when `stop` or `del` returns (and after a
    /// failed `add`), as perf requires before it frees or redirects the
    /// area (`perf_pmu_output_stop()` stops the events writing to it).
    pub fn hold(self) {
        if !T::CAPABILITIES.has(Capability::Exclusive) {
            build_error!("AuxOutput::hold needs Capability::Exclusive");
        }
        let this = core::mem::ManuallyDrop::new(self);
        if this.slot.state.cmpxchg(BUSY, HELD, Release).is_err() {
            // `BUSY_END`: a `stop` nested in this callback asked for the end.
            // SAFETY: The slot is still ours (`BUSY_END`), its transaction
            // open (type invariant), and `this` is not dropped.
            unsafe { end(&mut *this.slot.open.get()) };
            this.slot.state.store(STOPPED, Release);
        }
        // INVARIANT: `HELD` with the transaction open, or ended and
        // `STOPPED`, as the nested `stop` asked.
    }
}

impl<T: PmuDriver> Drop for AuxOutput<'_, T> {
    fn drop(&mut self) {
        // SAFETY: By the type invariant the transaction is open and the slot
        // ours; it is ended once, here, and the slot released.
        unsafe { end(&mut *self.slot.open.get()) };
        self.slot.release();
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

    /// Copies the `N`-word records of `src` (its whole records, in order)
    /// from byte offset `off` on, wrapping with the buffer, for as long as
    /// `keep` accepts them: it sees each record's index in `src` and its
    /// word `KEY`, loaded as a big-endian value, before the record is
    /// copied. Stops at the first
    /// record refused, after the last one, or at the first one that would
    /// not be all within the window; does nothing unless `off` is 8-byte
    /// aligned and `KEY < N`. Returns how many were copied.
    ///
    /// This copies and checks in one pass what comes from memory another
    /// agent writes (a firmware log), each word loaded once but the key,
    /// where a `memcpy` and a second pass would load every record twice.
    #[inline]
    pub fn copy_records_while<const N: usize, const KEY: usize>(
        &mut self,
        off: usize,
        src: SharedWords<'_>,
        mut keep: impl FnMut(usize, u64) -> bool,
    ) -> usize {
        let Some(bytes) = N.checked_mul(8).filter(|_| KEY < N) else {
            return 0;
        };
        // `N > KEY >= 0`: never `None`.
        let records = src.len().checked_div(N).unwrap_or(0);
        let size = self.out.aux.buf.size;
        let base = self.out.aux.buf.base.as_ptr();
        let from = src.as_ptr();
        let mut off = off;
        let mut n: usize = 0;
        while n < records {
            let Some(at) = self.buf_offset(off) else {
                return n;
            };
            // Whole records left in the window, and before the end of the
            // buffer (`off < len`, `at < size`: exact).
            // `bytes > 0` (`N > 0`): never `None`.
            let in_window = self.len.saturating_sub(off).checked_div(bytes).unwrap_or(0);
            let before_end = size.saturating_sub(at).checked_div(bytes).unwrap_or(0);
            // `n < records`: exact.
            let left = records.saturating_sub(n);
            if in_window == 0 {
                return n;
            }
            // Record `n` of `src`, `n < records`: within it.
            let rec = from.wrapping_add(n.wrapping_mul(N));
            if before_end == 0 {
                // A record across the end of the buffer, word by word.
                // SAFETY: Word `KEY < N` of record `n < records`, within
                // `src` (invariant of `SharedWords`), which another agent
                // may write: a volatile load.
                let key = u64::from_be(unsafe { core::ptr::read_volatile(rec.wrapping_add(KEY)) });
                if !keep(n, key) {
                    return n;
                }
                let r: [u64; N] = core::array::from_fn(|w| {
                    // SAFETY: As above, word `w < N`.
                    unsafe { core::ptr::read_volatile(rec.wrapping_add(w)) }
                });
                self.write_words(off, &r);
                n = n.wrapping_add(1);
                off = off.wrapping_add(bytes);
                continue;
            }
            let run = in_window.min(before_end).min(left);
            let dst = base.wrapping_add(at).cast::<u64>();
            for k in 0..run {
                let s = rec.wrapping_add(k.wrapping_mul(N));
                // SAFETY: Word `KEY` of record `n + k < records` (`k < run
                // <= left`), within `src`: a volatile load, as above.
                let key = u64::from_be(unsafe { core::ptr::read_volatile(s.wrapping_add(KEY)) });
                let i = n.wrapping_add(k);
                if !keep(i, key) {
                    return i;
                }
                let d = dst.wrapping_add(k.wrapping_mul(N));
                for w in 0..N {
                    // SAFETY: Word `w < N` of record `n + k` of `src`, as
                    // above; its destination is word `w` of the `k`-th
                    // record from `at`, within the mapping (`k < run <=
                    // before_end`) and the window (`k < in_window`), 8-byte
                    // aligned (`at` is); perf granted this space to the
                    // transaction, and user space does not read it before
                    // commit.
                    unsafe {
                        d.wrapping_add(w)
                            .write(core::ptr::read_volatile(s.wrapping_add(w)));
                    }
                }
            }
            // At most a window of records: neither wraps.
            n = n.wrapping_add(run);
            off = off.wrapping_add(run.wrapping_mul(bytes));
        }
        n
    }

    /// The window's length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the window is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Keeps the first `n` bytes (at most the window's length) as written
    /// by the transaction; the rest is left free.
    pub fn keep(self, n: usize) {
        let len = self.len;
        let o = self.out.open_mut();
        // `len` is within the free space, so `written` stays within the
        // space perf granted (and never saturates).
        o.written = o.written.saturating_add(n.min(len));
    }
}
