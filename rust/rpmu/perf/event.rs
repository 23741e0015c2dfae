// SPDX-License-Identifier: GPL-2.0

//! An event of a registered PMU, as the callbacks see it, and the contexts
//! the callbacks run in.

use super::{aux_output::AuxSlot, registration::Inner, AuxOutput, HwState, PmuDriver};
use crate::rpmu::bindings;
use core::{marker::PhantomData, ptr::NonNull};
use kernel::{
    cpu::CpuId,
    prelude::*,
    sync::atomic::{Atomic, Relaxed},
    time::Delta,
    types::Opaque,
};

/// The shortest period [`Event::timer_start`] arms the event's timer for:
/// a shorter one is raised to it, so that a driver cannot keep its CPU in
/// the timer interrupt.
pub const MIN_TIMER_PERIOD: Delta = Delta::from_micros(10);

mod sealed {
    pub trait Sealed {}
}

/// What perf guarantees while a callback runs; the second parameter of
/// [`Event`]. Only the types of this module implement it.
pub trait Context: sealed::Sealed {}

/// The scheduling callbacks (`add`, `del`, `start`, `stop`, `read`) and the
/// event's timer.
///
/// Perf calls the callbacks on the CPU the event is scheduled on, with
/// interrupts disabled (and, but for the cases below, its context lock
/// held); the timer is pinned to that CPU, runs in hard-interrupt context
/// and is stopped by the abstraction after `stop` and `del`. So they never
/// run on two CPUs at once for one event, and the state they share
/// (`hw.state`, `hw.idx`, the count, the CPU, the AUX transaction) is only
/// touched from that CPU. They may nest there: perf's throttling calls
/// `stop` from another group member's interrupt, and
/// `perf_event_read_local()` (BPF, possibly in NMI) calls `read` inside any
/// of them. Everything this view offers is a single load or store of a
/// field of the C event, a `local64_t` operation, or perf core's own
/// function, so nesting changes values, never validity; a driver lock taken
/// in `read` must allow for it (see the soundness table in
/// `Documentation/rust-pmu.rst`).
pub struct Scheduled;

/// `read`: on the event's CPU with interrupts disabled, like [`Scheduled`],
/// but perhaps nested inside another callback of the same event or in NMI
/// context (`perf_event_read_local()`, from BPF). So it reads the state and
/// adds to the count, and nothing else: no timer (`hrtimer_start()` is not
/// NMI-safe) and no AUX output (a transaction may already be open on this
/// CPU). A scheduling callback gets this view of its event with
/// [`Event::as_read`], to call its own `read`.
pub struct Reading;

/// The contexts on the event's CPU: [`Scheduled`] and [`Reading`]. Only the
/// types of this module implement it.
pub trait OnEventCpu: Context {}

/// `setup_aux` and `check_period`: process context, on any CPU,
/// concurrently with the scheduling callbacks and the timer of the same
/// event (`perf_mmap()` holds the event's `mmap_mutex`, the
/// `PERF_EVENT_IOC_PERIOD` ioctl its context mutex, neither the context
/// lock). Only what is fixed after `event_init` is readable.
pub struct Process;

impl sealed::Sealed for Scheduled {}
impl Context for Scheduled {}
impl OnEventCpu for Scheduled {}
impl sealed::Sealed for Reading {}
impl Context for Reading {}
impl OnEventCpu for Reading {}
impl sealed::Sealed for Process {}
impl Context for Process {}

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
    /// Set by `Event::timer_start`, cleared after `stop` and `del`: whether
    /// the timer callback may call the driver and re-arm.
    pub(super) armed: Atomic<bool>,
    pub(super) event: NonNull<bindings::perf_event>,
    /// The event's AUX transaction, open or held ([`AuxOutput::hold`]).
    pub(super) aux: AuxSlot<T>,
    #[pin]
    pub(super) data: T::EventData,
}

/// A perf event of a [`PmuDriver`]'s PMU, as seen from a callback that runs
/// in context `C` ([`Scheduled`] unless said otherwise).
///
/// What every context may read is available for any `C`; what needs the
/// serialisation of the scheduling callbacks (the hardware state, the count,
/// the CPU, the timer, the AUX output) only for `Event<T, Scheduled>`, so
/// calling it from `setup_aux` does not compile. A reference to an `Event`
/// lives only as long as the callback that received it, and is neither
/// `Send` nor `Sync`: it cannot leave the callback's CPU.
///
/// # Invariants
///
/// The wrapped `perf_event` belongs to a PMU registered by a
/// [`Registration<T>`](super::Registration), `event_init` succeeded for it,
/// its `pmu_private` points at a live `EventBox<T>`, and perf gives the
/// guarantees of `C` for as long as the reference lives.
#[repr(transparent)]
pub struct Event<T: PmuDriver, C: Context = Scheduled> {
    inner: Opaque<bindings::perf_event>,
    _p: PhantomData<(T, C)>,
}

impl<T: PmuDriver, C: Context> Event<T, C> {
    /// # Safety
    ///
    /// `ptr` must satisfy the type invariants for `'a`.
    pub(super) unsafe fn from_raw<'a>(ptr: *mut bindings::perf_event) -> &'a Self {
        // SAFETY: `Event<T, C>` is a transparent wrapper of `perf_event`; the
        // caller guarantees validity for `'a`.
        unsafe { &*ptr.cast::<Self>() }
    }

    pub(super) fn raw(&self) -> *mut bindings::perf_event {
        self.inner.get()
    }

    /// The event's timer, for the abstraction's own cancel.
    pub(super) fn event_box_timer(&self) -> *mut bindings::hrtimer {
        self.event_box().timer.get()
    }

    /// The event's AUX transaction, for the abstraction's end of a held one.
    pub(super) fn event_box_aux(&self) -> &AuxSlot<T> {
        &self.event_box().aux
    }

    /// Whether the event's timer may call the driver and re-arm.
    pub(super) fn event_box_armed(&self) -> &Atomic<bool> {
        &self.event_box().armed
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
        // `Inner<T>`: perf calls no callback of an event after
        // `perf_pmu_unregister` has detached it, and the registration frees
        // `Inner<T>` only after that.
        unsafe { &Inner::<T>::from_pmu((*self.raw()).pmu).driver }
    }

    /// `attr.config`.
    pub fn config(&self) -> u64 {
        // SAFETY: The event is valid (type invariant); `attr.config` is not
        // written after `event_init` (PERF_EVENT_IOC_MODIFY_ATTRIBUTES only
        // changes breakpoint events).
        unsafe { (*self.raw()).attr.config }
    }

    /// `attr.config1`.
    pub fn config1(&self) -> u64 {
        // SAFETY: As for `config`; `config1` is a `u64` in every variant of
        // the union.
        unsafe { (*self.raw()).attr.__bindgen_anon_3.config1 }
    }
}

impl<T: PmuDriver, C: OnEventCpu> Event<T, C> {
    /// The CPU the event is scheduled on (`None` for a per-task event that
    /// is not). Perf changes it only with the event descheduled
    /// (`perf_pmu_migrate_context`).
    pub fn cpu(&self) -> Option<CpuId> {
        // SAFETY: The event is valid; `cpu` is written by perf core only
        // while the event is out of its context, never during `Scheduled`
        // callbacks.
        CpuId::from_i32(unsafe { (*self.raw()).cpu })
    }

    /// `hw.sample_period`: the period set at `event_init`, or the one
    /// `PERF_EVENT_IOC_PERIOD` set since (perf then calls `stop` and
    /// `start` with `RELOAD`).
    pub fn sample_period(&self) -> u64 {
        // SAFETY: The event is valid; perf core writes `hw.sample_period`
        // at `event_init` and, for `PERF_EVENT_IOC_PERIOD`
        // (`__perf_event_period()`), on the event's CPU with interrupts off
        // and the context lock held, so never on another CPU than a
        // `Scheduled` callback.
        unsafe { (*self.raw()).hw.sample_period }
    }

    /// Whether perf currently has the event scheduled on the PMU.
    pub fn is_active(&self) -> bool {
        // SAFETY: The event is valid; `state` is an aligned `int` that perf
        // core writes with the context lock held; a volatile read of it, as
        // C's `READ_ONCE`, is a whole value whichever write it sees.
        let state = unsafe { core::ptr::read_volatile(&raw const (*self.raw()).state) };
        state == bindings::perf_event_state_PERF_EVENT_STATE_ACTIVE
    }

    /// `hw.state`: the driver's `PERF_HES_*` bits.
    pub fn hw_state(&self) -> HwState {
        // SAFETY: The event is valid; `hw.state` is written only by the
        // driver, in `Scheduled` callbacks, which never run on two CPUs at
        // once for one event. A nested callback on the same CPU (a `read` in
        // NMI) sees a whole value: `hw.state` is an aligned `int`, accessed
        // with single volatile loads and stores.
        HwState::from_raw(unsafe { core::ptr::read_volatile(&raw const (*self.raw()).hw.state) })
    }

    /// Adds `delta` to the event's count (`local64_add(&event->count)`).
    pub fn count_add(&self, delta: u64) {
        // SAFETY: The event is valid; `count` is a `local64_t`, which
        // `local64_add` updates safely against interrupts and NMIs on this
        // CPU, the event's; perf core reads it with `local64_read`.
        unsafe { bindings::rpmu_local64_add(&raw mut (*self.raw()).count, delta) }
    }

    /// Adds `n` to the event's lost samples (`event->lost_samples`), which
    /// `read(2)` returns with `PERF_FORMAT_LOST` and which `perf record`
    /// reads when it ends and writes into `perf.data` as a
    /// `PERF_RECORD_LOST_SAMPLES` of the event (so of its CPU). Perf core
    /// adds to it when its ring buffer has no room for a record; an AUX
    /// PMU adds the samples its hardware or firmware lost.
    pub fn lost_samples_add(&self, n: u64) {
        // SAFETY: The event is valid; `lost_samples` is an `atomic64_t`,
        // whose `counter` perf core accesses with atomic operations only
        // (`atomic64_inc`, `atomic64_read`).
        let lost = unsafe { Atomic::<i64>::from_ptr(&raw mut (*self.raw()).lost_samples.counter) };
        lost.add(i64::try_from(n).unwrap_or(i64::MAX), Relaxed);
    }

    /// The event's count.
    pub fn count(&self) -> u64 {
        // SAFETY: As for `count_add`.
        unsafe { bindings::rpmu_local64_read(&raw mut (*self.raw()).count) }
    }

    /// `hw.idx`: the hardware counter the driver assigned, if any.
    pub fn hw_idx(&self) -> Option<usize> {
        // SAFETY: The event is valid; `hw.idx` is an aligned `int` written
        // only by the driver, in `Scheduled` callbacks, which never run on
        // two CPUs at once for one event; single volatile accesses, as for
        // `hw_state`.
        usize::try_from(unsafe { core::ptr::read_volatile(self.hw_idx_ptr()) }).ok()
    }

    /// The address of `hw.idx` (C's `&event->hw.idx`: a member of the
    /// first struct of `hw`'s first union).
    fn hw_idx_ptr(&self) -> *mut c_int {
        // SAFETY: The event is valid; this computes a field's address and
        // reads nothing.
        unsafe { &raw mut (*self.raw()).hw.__bindgen_anon_1.__bindgen_anon_1.idx }
    }
}

impl<T: PmuDriver> Event<T, Scheduled> {
    /// This event as `read` sees it, for a scheduling callback to call the
    /// driver's own `read`.
    pub fn as_read(&self) -> &Event<T, Reading> {
        // SAFETY: `Event<T, Reading>` has the layout of `Event<T, Scheduled>`
        // (both wrap `perf_event`), and `Reading` guarantees less than
        // `Scheduled`, which holds here.
        unsafe { Event::from_raw(self.raw()) }
    }

    /// Sets `hw.state`.
    pub fn set_hw_state(&self, state: HwState) {
        // SAFETY: As for `hw_state`.
        unsafe { core::ptr::write_volatile(&raw mut (*self.raw()).hw.state, state.raw()) }
    }

    /// Sets `hw.idx` (`None`: no counter).
    pub fn set_hw_idx(&self, idx: Option<usize>) {
        let raw = idx.and_then(|i| i32::try_from(i).ok()).unwrap_or(-1);
        // SAFETY: As for `hw_idx`.
        unsafe { core::ptr::write_volatile(self.hw_idx_ptr(), raw) }
    }

    /// Arms the event's timer to call [`PmuDriver::timer`] after `after` (at
    /// least [`MIN_TIMER_PERIOD`]), exactly, on this CPU, in hard-interrupt
    /// context (the callback may re-arm it lazily, see
    /// [`TimerRestart::Lazy`](super::TimerRestart::Lazy)).
    /// Re-arming a pending timer moves its expiry. After `stop` and `del`
    /// return, the abstraction disarms the timer (and cancels it unless
    /// `stop` ran nested in its expiry): the driver's `timer` is not called
    /// again until the next `timer_start`, so a driver has no cancel to
    /// call.
    pub fn timer_start(&self, after: Delta) {
        const { assert!(T::HAS_TIMER, "Event::timer_start needs PmuDriver::timer") };
        let ns = after.as_nanos().max(MIN_TIMER_PERIOD.as_nanos());
        self.event_box().armed.store(true, Relaxed);
        let t = self.event_box().timer.get();
        // SAFETY: By the `EventBox` invariant the timer was set up; it lives
        // as long as the box, and `destroy` cancels it before freeing. Pinned
        // to this CPU, the event's (`Scheduled`).
        unsafe { bindings::rpmu_hrtimer_start(t.cast(), ns as u64, true) }
    }

    /// Continues the AUX transaction this event holds
    /// ([`AuxOutput::hold`]), or opens one: `None` if the event has no AUX
    /// area mapped, perf found it full (in which case perf core has disabled
    /// the event), or a callback this one is nested in has the transaction.
    pub fn aux_output_begin(&self) -> Option<AuxOutput<'_, T>> {
        AuxOutput::begin(self, &self.event_box().aux)
    }

    /// Whether the event holds an AUX transaction open
    /// ([`AuxOutput::hold`]).
    pub fn aux_is_held(&self) -> bool {
        self.event_box().aux.is_held()
    }
}
