// SPDX-License-Identifier: GPL-2.0

//! An event of a registered PMU, as the callbacks see it.

use super::{registration::Inner, AuxOutput, HwState, PmuDriver};
use crate::rpmu::bindings;
use core::{marker::PhantomData, ptr::NonNull};
use kernel::{cpu::CpuId, prelude::*, time::Delta, types::Opaque};

/// Everything the abstraction keeps per event; pointed to by
/// `perf_event::pmu_private`.
///
/// # Invariants
///
/// - `event` is the event this box belongs to, valid until perf calls the
///   event's `destroy` callback, which frees the box.
/// - If `T::HAS_TIMER`, `timer` has been set up with the timer callback of
///   `Registration<T>`.
#[pin_data]
pub(super) struct EventBox<T: PmuDriver> {
    pub(super) timer: Opaque<bindings::hrtimer>,
    pub(super) event: NonNull<bindings::perf_event>,
    #[pin]
    pub(super) data: T::EventData,
}

/// A perf event of a [`PmuDriver`]'s PMU, as seen from the PMU callbacks.
///
/// # Invariants
///
/// The wrapped `perf_event` belongs to a PMU registered by a
/// [`Registration<T>`](super::Registration), `event_init` succeeded for it,
/// and its `pmu_private` points at a live `EventBox<T>`.
#[repr(transparent)]
pub struct Event<T: PmuDriver> {
    inner: Opaque<bindings::perf_event>,
    _p: PhantomData<T>,
}

// SAFETY: Perf core serialises the PMU callbacks of an event; what `Event`
// exposes is either read-only after `event_init`, updated through perf core's
// own local atomics (`count`, `hw.prev_count`), owned by the serialised
// callbacks (`hw.state`, `hw.idx`), or `T::EventData`, which is `Sync`.
unsafe impl<T: PmuDriver> Sync for Event<T> {}

impl<T: PmuDriver> Event<T> {
    /// # Safety
    ///
    /// `ptr` must satisfy the type invariants for `'a`.
    pub(super) unsafe fn from_raw<'a>(ptr: *mut bindings::perf_event) -> &'a Self {
        // SAFETY: `Event<T>` is a transparent wrapper of `perf_event`; the
        // caller guarantees validity for `'a`.
        unsafe { &*ptr.cast::<Self>() }
    }

    pub(super) fn raw(&self) -> *mut bindings::perf_event {
        self.inner.get()
    }

    fn event_box(&self) -> &EventBox<T> {
        // SAFETY: By the type invariant `pmu_private` points at a live
        // `EventBox<T>`, which outlives `&self` (it is freed by `destroy`,
        // after which perf never hands the event to a callback again).
        unsafe { &*(*self.raw()).pmu_private.cast::<EventBox<T>>() }
    }

    /// The driver's state for this event.
    pub fn data(&self) -> &T::EventData {
        &self.event_box().data
    }

    /// The driver that owns the event's PMU.
    pub fn driver(&self) -> &T {
        // SAFETY: By the type invariant `pmu` is the `pmu` field of a live
        // `Inner<T>`; the registration outlives its events (perf detaches all
        // events before `perf_pmu_unregister` returns).
        unsafe { &Inner::<T>::from_pmu((*self.raw()).pmu).driver }
    }

    /// The CPU the event is bound to (`None` for per-task events).
    pub fn cpu(&self) -> Option<CpuId> {
        // SAFETY: By the type invariant the event is valid; `cpu` is fixed
        // after creation.
        CpuId::from_i32(unsafe { (*self.raw()).cpu })
    }

    /// `attr.config`.
    pub fn config(&self) -> u64 {
        // SAFETY: `attr.config` is fixed after `event_init`
        // (PERF_EVENT_IOC_MODIFY_ATTRIBUTES only changes breakpoints).
        unsafe { (*self.raw()).attr.config }
    }

    /// `attr.config1`.
    pub fn config1(&self) -> u64 {
        // SAFETY: As for `config`; `config1` is a `u64` in every variant of
        // the union.
        unsafe { (*self.raw()).attr.__bindgen_anon_3.config1 }
    }

    /// `hw.sample_period`: the period set at `event_init`, or the one
    /// `PERF_EVENT_IOC_PERIOD` set since (perf changes it with the event
    /// stopped, then calls `start` with `RELOAD`).
    pub fn sample_period(&self) -> u64 {
        // SAFETY: Only written by `event_init` or by perf core between `stop`
        // and `start` on the event's CPU, never concurrently with callbacks.
        unsafe { core::ptr::read_volatile(&raw const (*self.raw()).hw.sample_period) }
    }

    /// Whether perf currently has the event scheduled on the PMU.
    pub fn is_active(&self) -> bool {
        // SAFETY: `state` is an `int` updated by perf core; a racy read is
        // what the C drivers do too (READ_ONCE semantics).
        let state = unsafe { core::ptr::read_volatile(&raw const (*self.raw()).state) };
        state == bindings::perf_event_state_PERF_EVENT_STATE_ACTIVE
    }

    /// `hw.state`: the driver's `PERF_HES_*` bits.
    pub fn hw_state(&self) -> HwState {
        // SAFETY: `hw.state` belongs to the driver and is only touched from
        // callbacks, which perf serialises.
        HwState::from_raw(unsafe { core::ptr::read_volatile(&raw const (*self.raw()).hw.state) })
    }

    /// Sets `hw.state`.
    pub fn set_hw_state(&self, state: HwState) {
        // SAFETY: As for `hw_state`.
        unsafe { core::ptr::write_volatile(&raw mut (*self.raw()).hw.state, state.raw()) }
    }

    /// Adds `delta` to the event's count (`local64_add(&event->count)`).
    pub fn count_add(&self, delta: u64) {
        // SAFETY: `count` is a `local64_t` perf core reads with `local64_read`.
        unsafe { bindings::rpmu_local64_add(&raw mut (*self.raw()).count, delta) }
    }

    /// The event's count.
    pub fn count(&self) -> u64 {
        // SAFETY: As for `count_add`.
        unsafe { bindings::rpmu_local64_read(&raw mut (*self.raw()).count) }
    }

    /// `hw.idx`: the hardware counter the driver assigned, if any.
    pub fn hw_idx(&self) -> Option<usize> {
        // SAFETY: `hw.idx` belongs to the driver; callbacks are serialised.
        usize::try_from(unsafe { *bindings::rpmu_event_hw_idx(self.raw()) }).ok()
    }

    /// Sets `hw.idx` (`None`: no counter).
    pub fn set_hw_idx(&self, idx: Option<usize>) {
        let raw = idx.and_then(|i| i32::try_from(i).ok()).unwrap_or(-1);
        // SAFETY: As for `hw_idx`.
        unsafe { *bindings::rpmu_event_hw_idx(self.raw()) = raw }
    }

    /// Publishes the event's state to the user page of its ring buffer.
    pub fn update_userpage(&self) {
        // SAFETY: The event is valid; perf allows this from any callback.
        unsafe { bindings::perf_event_update_userpage(self.raw()) }
    }

    /// Arms the event's high-resolution timer to call
    /// [`PmuDriver::timer`] after `after`, on this CPU if `pinned`.
    /// Re-arming a pending timer moves its expiry.
    pub fn timer_start(&self, after: Delta, pinned: bool) {
        if !T::HAS_TIMER {
            build_error!("Event::timer_start needs PmuDriver::timer");
        }
        let t = self.event_box().timer.get();
        // SAFETY: By the `EventBox` invariant the timer was set up; it lives
        // as long as the box, and `destroy` cancels it before freeing.
        unsafe { bindings::rpmu_hrtimer_start(t.cast(), after.as_nanos().max(0) as u64, pinned) }
    }

    /// Cancels the event's timer and waits for a running callback to finish.
    /// Must not be called from the timer callback itself.
    pub fn timer_cancel(&self) {
        if !T::HAS_TIMER {
            build_error!("Event::timer_cancel needs PmuDriver::timer");
        }
        let t = self.event_box().timer.get();
        // SAFETY: The timer was set up (`EventBox` invariant). Callers are
        // PMU callbacks, not the timer callback, so this cannot wait on
        // itself; a callback running on another CPU is waited for.
        unsafe { bindings::hrtimer_cancel(t) };
    }

    /// Opens an AUX transaction: `None` if the event has no AUX area mapped,
    /// or perf found it full (in which case perf core has disabled the event).
    pub fn aux_output_begin(&self) -> Option<AuxOutput<'_, T>> {
        AuxOutput::begin(self)
    }
}
