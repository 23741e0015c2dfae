// SPDX-License-Identifier: GPL-2.0

//! An AUX transaction: [`AuxOutput`], between `perf_aux_output_begin` and
//! `perf_aux_output_end`, and the event's [`AuxSlot`] that keeps its handle,
//! from one callback to the next when the driver holds it open.
//!
//! C header: [`include/linux/perf_event.h`](srctree/include/linux/perf_event.h)

use super::{
    aux::{tag, AuxBox, AuxBuffer, AuxFlags},
    Capability, Event, PmuDriver,
};
use crate::rpmu::bindings;
use core::cell::UnsafeCell;
use kernel::{
    prelude::*,
    sync::atomic::{Acquire, Atomic, Relaxed, Release},
};

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
/// `slot` is the event's `AuxSlot`, in state `BUSY` or `BUSY_END`, set so
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
    pub(super) fn position(&self) -> u64 {
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

    /// The AUX area's mapping, for [`AuxWindow`](super::AuxWindow).
    pub(super) fn buffer(&self) -> &AuxBuffer {
        &self.aux.buf
    }

    /// Counts `n` more bytes as written: at most [`Self::space`], which
    /// the caller checked (an [`AuxWindow`](super::AuxWindow) is never
    /// longer).
    pub(super) fn add_written(&mut self, n: usize) {
        let n = n.min(self.space());
        let o = self.open_mut();
        // `n <= space`: `written` stays within `handle.size` (`Open`).
        o.written = o.written.saturating_add(n);
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
        const {
            assert!(
                T::CAPABILITIES.has(Capability::Exclusive),
                "AuxOutput::hold needs Capability::Exclusive"
            )
        };
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
