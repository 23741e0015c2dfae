// SPDX-License-Identifier: GPL-2.0

//! The C callbacks of [`Registration::VTABLE`]: each turns perf's raw
//! pointers into the typed views of the driver's callback.

use super::{
    aux,
    aux_output::AuxSlot,
    event::EventBox,
    event_init::EventInit,
    registration::{Inner, Registration},
    Capability, Event, EventFlags, PmuDriver, Process, Reading, TimerRestart, Txn,
};
use crate::rpmu::bindings;
use core::{
    ffi::{c_int, c_uint, c_void},
    ptr::NonNull,
};
use kernel::{
    error::from_result,
    prelude::*,
    sync::atomic::{Atomic, Relaxed},
    time::Delta,
    types::Opaque,
};

impl<T: PmuDriver> Registration<T> {
    /// `pmu::event_init`.
    ///
    /// # Safety
    ///
    /// Called by perf core with an event being initialised for our PMU.
    pub(super) unsafe extern "C" fn event_init_callback(event: *mut bindings::perf_event) -> c_int {
        from_result(|| {
            let ptr = NonNull::new(event).ok_or(EINVAL)?;
            // SAFETY: perf core passes a valid event whose `pmu` is ours.
            let (pmu, attr_type) = unsafe { ((*event).pmu, (*event).attr.type_) };
            // SAFETY: `pmu` is the `pmu` field of our live `Inner<T>`.
            let inner = unsafe { Inner::<T>::from_pmu(pmu) };
            // SAFETY: `type` is written by `perf_pmu_register`.
            if attr_type != unsafe { (*pmu).type_ } as u32 {
                return Err(ENOENT);
            }
            // SAFETY: perf core is initialising the event and has not
            // installed it; it stays valid during this call.
            let mut init = unsafe { EventInit::new(ptr) };
            // perf core refuses exclude bits for `NoExclude` PMUs only after
            // `event_init` has run; refuse them first, so that an invalid
            // request gets `EINVAL` whatever the PMU's state (not, say, the
            // `EBUSY` of a resource `event_init` would claim).
            if T::CAPABILITIES.contains(Capability::NoExclude) && init.has_exclude() {
                return Err(EINVAL);
            }
            // An inherited per-task event of an AUX PMU: its children write
            // the parent's AUX area, and perf stops only the parent's
            // transactions (`perf_pmu_output_stop()`) before freeing the
            // area, so a child's could end in hard IRQ with the last
            // reference, and `free_aux` (`vunmap`) would run there. (CPU-wide
            // events have no children: `perf record -a` sets `inherit`.)
            if T::HAS_SETUP_AUX && init.is_per_task() && init.is_inherited() {
                return Err(EINVAL);
            }
            let data = inner.driver.event_init(&mut init)?;
            let b = KBox::try_pin_init(
                try_pin_init!(EventBox::<T> {
                    timer: Opaque::zeroed(),
                    armed: Atomic::new(false),
                    event: ptr,
                    aux: AuxSlot::new(),
                    data <- data,
                }? Error),
                GFP_KERNEL,
            )?;
            // SAFETY: The box is never moved out of: it is turned back into a
            // `Pin<KBox<_>>` by `destroy_callback` and dropped there.
            let b = KBox::into_raw(unsafe { Pin::into_inner_unchecked(b) });
            // SAFETY: `b` is a valid, exclusively owned allocation; the timer
            // is set up before any reference to it escapes. Setting `destroy`
            // and `pmu_private` hands ownership to the event: perf calls
            // `destroy` exactly once, when the event is freed (or if a later
            // check in perf_try_init_event fails).
            unsafe {
                if T::HAS_TIMER {
                    bindings::rpmu_hrtimer_setup_event(
                        (*b).timer.get().cast(),
                        Some(Self::timer_callback),
                    );
                }
                (*event).pmu_private = b.cast();
                (*event).destroy = Some(Self::destroy_callback);
            }
            Ok(0)
        })
    }

    /// `perf_event::destroy`, installed by `event_init_callback`.
    ///
    /// # Safety
    ///
    /// Called by perf core once, when an event whose `event_init` succeeded
    /// is freed, after it left the PMU.
    pub(super) unsafe extern "C" fn destroy_callback(event: *mut bindings::perf_event) {
        // SAFETY: perf core calls `destroy` once per event whose `event_init`
        // succeeded, with the event still allocated; `pmu_private` is then the
        // box `event_init_callback` leaked (nothing else writes it).
        let b = unsafe { (*event).pmu_private.cast::<EventBox<T>>() };
        if T::HAS_TIMER {
            // SAFETY: The timer was set up at `event_init` (`EventBox`
            // invariant). `destroy` runs in process context after the event
            // left its PMU (`del` cancelled the timer), so this waits at most
            // for nothing; afterwards the timer cannot run again.
            unsafe { bindings::hrtimer_cancel((*b).timer.get()) };
        }
        // SAFETY: `pmu` is our PMU, whose `Inner<T>` is alive: the event holds
        // a reference on the module, and `Registration` frees `Inner<T>` only
        // after `perf_pmu_unregister()`, which destroys the PMU's events
        // first.
        let inner = unsafe { Inner::<T>::from_pmu((*event).pmu) };
        // SAFETY: `b` is live (above) and not otherwise referenced now: perf
        // calls no callback of the event during or after `destroy`.
        inner.driver.event_destroy(unsafe { &(*b).data });
        // SAFETY: The event is still allocated (above); clearing the pointer
        // leaves nothing dangling in it.
        unsafe { (*event).pmu_private = core::ptr::null_mut() };
        // SAFETY: `b` came from `KBox::into_raw` in `event_init_callback` and
        // is freed exactly once, here.
        drop(unsafe { KBox::from_raw(b) });
    }

    /// The per-event hrtimer callback.
    ///
    /// # Safety
    ///
    /// `timer` must be the `timer` field of a live `EventBox<T>`.
    pub(super) unsafe extern "C" fn timer_callback(
        timer: *mut bindings::hrtimer,
    ) -> bindings::hrtimer_restart {
        // SAFETY: The timer is a field of a live `EventBox<T>` (`destroy`
        // cancels it, waiting, before the box is freed), so `container_of`
        // yields the box, and its `event` is valid while the box lives. The
        // timer is armed only by `Event::timer_start`, pinned to the CPU the
        // event is scheduled on, and runs there in hard-interrupt context:
        // never on another CPU than the scheduling callbacks, which is what
        // `Scheduled` states (they may nest, see its documentation). The
        // `armed` checks below keep the driver from being called, and the
        // timer from re-arming, once `stop` or `del` ran.
        let ev = unsafe {
            let b = kernel::container_of!(
                timer.cast::<Opaque<bindings::hrtimer>>(),
                EventBox<T>,
                timer
            );
            Event::<T>::from_raw((*b).event.as_ptr())
        };
        // Stopped (`stop` or `del` ran, maybe nested in this very call):
        // the driver is not called, and the timer not re-armed.
        if !ev.event_box_armed().load(Relaxed) {
            return bindings::hrtimer_restart::HRTIMER_NORESTART;
        }
        let restart = ev.driver().timer(ev);
        if !ev.event_box_armed().load(Relaxed) {
            return bindings::hrtimer_restart::HRTIMER_NORESTART;
        }
        match restart {
            TimerRestart::Stop => bindings::hrtimer_restart::HRTIMER_NORESTART,
            TimerRestart::After(d) => {
                // SAFETY: Called from the timer's own callback, as
                // hrtimer_forward_now() requires.
                unsafe { bindings::rpmu_hrtimer_forward_now(timer.cast(), timer_ns(d)) };
                bindings::hrtimer_restart::HRTIMER_RESTART
            }
            TimerRestart::Lazy { after, deadline } => {
                let after = timer_ns(after);
                let slack = deadline.map_or(u64::MAX, |d| timer_ns(d).saturating_sub(after));
                // SAFETY: Called from the timer's own callback, which may
                // set the expiry of the timer it restarts.
                unsafe { bindings::rpmu_hrtimer_set_lazy(timer.cast(), after, slack) };
                bindings::hrtimer_restart::HRTIMER_RESTART
            }
        }
    }

    /// `pmu::add`.
    ///
    /// # Safety
    ///
    /// Called by perf core for an initialised event of our PMU.
    pub(super) unsafe extern "C" fn add_callback(
        e: *mut bindings::perf_event,
        flags: c_int,
    ) -> c_int {
        // SAFETY: perf calls `add` only for initialised events of our PMU.
        let ev = unsafe { Event::<T>::from_raw(e) };
        Self::aux_start(ev);
        from_result(|| {
            if let Err(e) = ev.driver().add(ev, EventFlags::from_raw(flags)) {
                // Perf does not call `del` after a failed `add`: a timer the
                // driver started must not outlive it.
                // SAFETY: `ev` is valid (above), on the CPU `add` ran on.
                unsafe { Self::timer_stop(ev) };
                Self::aux_stop(ev);
                return Err(e);
            }
            Ok(0)
        })
    }

    /// `pmu::del`.
    ///
    /// # Safety
    ///
    /// As for `add_callback`.
    pub(super) unsafe extern "C" fn del_callback(e: *mut bindings::perf_event, flags: c_int) {
        // SAFETY: As for `add_callback`.
        let ev = unsafe { Event::<T>::from_raw(e) };
        ev.driver().del(ev, EventFlags::from_raw(flags));
        // SAFETY: `ev` is valid (above).
        unsafe { Self::timer_stop(ev) };
        Self::aux_stop(ev);
    }

    /// `pmu::start`.
    ///
    /// # Safety
    ///
    /// As for `add_callback`.
    pub(super) unsafe extern "C" fn start_callback(e: *mut bindings::perf_event, flags: c_int) {
        // SAFETY: As for `add_callback`.
        let ev = unsafe { Event::<T>::from_raw(e) };
        Self::aux_start(ev);
        ev.driver().start(ev, EventFlags::from_raw(flags));
    }

    /// `pmu::stop`.
    ///
    /// # Safety
    ///
    /// As for `add_callback`.
    pub(super) unsafe extern "C" fn stop_callback(e: *mut bindings::perf_event, flags: c_int) {
        // SAFETY: As for `add_callback`.
        let ev = unsafe { Event::<T>::from_raw(e) };
        ev.driver().stop(ev, EventFlags::from_raw(flags));
        // SAFETY: `ev` is valid (above).
        unsafe { Self::timer_stop(ev) };
        Self::aux_stop(ev);
    }

    /// Ends the AUX transaction the driver held ([`AuxOutput::hold`]) after
    /// `stop`, `del` or a failed `add`: perf frees or redirects an AUX area
    /// only after stopping the events that write to it
    /// (`perf_pmu_output_stop()`, `ring_buffer_attach()`), and an event
    /// leaves its CPU only through `del`.
    ///
    /// [`AuxOutput::hold`]: super::AuxOutput::hold
    fn aux_stop(ev: &Event<T>) {
        if T::HAS_SETUP_AUX {
            ev.event_box_aux().stop();
        }
    }

    /// Lets the event open AUX transactions again, before `add` and
    /// `start`.
    fn aux_start(ev: &Event<T>) {
        if T::HAS_SETUP_AUX {
            ev.event_box_aux().start();
        }
    }

    /// Cancels the event's timer after `stop` or `del`, so that it never
    /// runs for a stopped event, nor after the event left this CPU.
    ///
    /// # Safety
    ///
    /// Called from `stop_callback`, `del_callback` or a failed
    /// `add_callback` for `ev`.
    unsafe fn timer_stop(ev: &Event<T>) {
        if !T::HAS_TIMER {
            return;
        }
        // From here on the timer callback calls nothing and does not re-arm.
        ev.event_box_armed().store(false, Relaxed);
        // Not in NMI (perf's throttling can stop a group from the overflow
        // of a member that samples there), where the hrtimer base's lock
        // must not be taken: the timer then expires once more and does
        // nothing.
        // SAFETY: No precondition.
        if unsafe { bindings::rpmu_in_nmi() } {
            return;
        }
        // SAFETY: The timer was set up at `event_init` (`EventBox`
        // invariant) and lives until `destroy`. It is pinned to the CPU
        // `start` ran on, which is this one (perf calls `add`, `stop` and
        // `del` of an event on the CPU it is scheduled on), so its callback
        // runs on no other CPU; if it is running here, this call is nested
        // in it (a `stop` from perf's throttling, say), so waiting would
        // never end: only try. The callback then sees `armed` false and
        // does not re-arm.
        unsafe { bindings::hrtimer_try_to_cancel(ev.event_box_timer()) };
    }

    /// `pmu::read`.
    ///
    /// # Safety
    ///
    /// As for `add_callback`.
    pub(super) unsafe extern "C" fn read_callback(e: *mut bindings::perf_event) {
        // SAFETY: As for `add_callback`.
        // (`Reading`: perf calls `read` on the event's CPU with interrupts off,
        // possibly nested in another callback or in NMI.)
        let ev = unsafe { Event::<T, Reading>::from_raw(e) };
        ev.driver().read(ev);
    }

    /// `pmu::check_period`.
    ///
    /// # Safety
    ///
    /// Called by perf core for an initialised event of our PMU, from the
    /// `PERF_EVENT_IOC_PERIOD` ioctl.
    pub(super) unsafe extern "C" fn check_period_callback(
        e: *mut bindings::perf_event,
        period: u64,
    ) -> c_int {
        // SAFETY: perf calls `check_period` for an initialised event of our
        // PMU from the `PERF_EVENT_IOC_PERIOD` ioctl (`_perf_event_period()`),
        // in process context with the event's context mutex held: the
        // guarantees of `Process`.
        let ev = unsafe { Event::<T, Process>::from_raw(e) };
        from_result(|| {
            ev.driver().check_period(ev, period)?;
            Ok(0)
        })
    }

    /// `pmu::pmu_enable`.
    ///
    /// # Safety
    ///
    /// `pmu` must be the `pmu` field of a live `Inner<T>`, as perf passes.
    pub(super) unsafe extern "C" fn pmu_enable_callback(pmu: *mut bindings::pmu) {
        // SAFETY: Guaranteed by the caller.
        unsafe { Inner::<T>::from_pmu(pmu) }.driver.pmu_enable();
    }

    /// `pmu::pmu_disable`.
    ///
    /// # Safety
    ///
    /// As for `pmu_enable_callback`.
    pub(super) unsafe extern "C" fn pmu_disable_callback(pmu: *mut bindings::pmu) {
        // SAFETY: Guaranteed by the caller.
        unsafe { Inner::<T>::from_pmu(pmu) }.driver.pmu_disable();
    }

    /// `pmu::start_txn`.
    ///
    /// # Safety
    ///
    /// As for `pmu_enable_callback`.
    pub(super) unsafe extern "C" fn start_txn_callback(pmu: *mut bindings::pmu, flags: c_uint) {
        let txn = if flags & bindings::PERF_PMU_TXN_READ != 0 {
            Txn::Read
        } else {
            Txn::Add
        };
        // SAFETY: Guaranteed by the caller.
        unsafe { Inner::<T>::from_pmu(pmu) }.driver.start_txn(txn);
    }

    /// `pmu::commit_txn`.
    ///
    /// # Safety
    ///
    /// As for `pmu_enable_callback`.
    pub(super) unsafe extern "C" fn commit_txn_callback(pmu: *mut bindings::pmu) -> c_int {
        // SAFETY: Guaranteed by the caller.
        let inner = unsafe { Inner::<T>::from_pmu(pmu) };
        from_result(|| {
            inner.driver.commit_txn()?;
            Ok(0)
        })
    }

    /// `pmu::cancel_txn`.
    ///
    /// # Safety
    ///
    /// As for `pmu_enable_callback`.
    pub(super) unsafe extern "C" fn cancel_txn_callback(pmu: *mut bindings::pmu) {
        // SAFETY: Guaranteed by the caller.
        unsafe { Inner::<T>::from_pmu(pmu) }.driver.cancel_txn();
    }

    /// `pmu::setup_aux`.
    ///
    /// # Safety
    ///
    /// Called by perf core for an initialised event of our PMU with
    /// `nr_pages` page addresses at `pages`.
    pub(super) unsafe extern "C" fn setup_aux_callback(
        e: *mut bindings::perf_event,
        pages: *mut *mut c_void,
        nr_pages: c_int,
        overwrite: bool,
    ) -> *mut c_void {
        // SAFETY: perf calls `setup_aux` for an initialised event of our PMU,
        // in process context (`perf_mmap`), with `nr_pages` page addresses
        // at `pages`: the guarantees of `Process`.
        unsafe { aux::setup::<T>(Event::<T, Process>::from_raw(e), pages, nr_pages, overwrite) }
    }

    /// `pmu::free_aux`. Perf may call it after the event was destroyed and
    /// the PMU unregistered: it touches nothing but the AUX box, and the
    /// module stays loaded until it has returned (see `aux::setup`).
    ///
    /// # Safety
    ///
    /// `priv_` must be what `setup_aux_callback` returned, not yet freed.
    pub(super) unsafe extern "C" fn free_aux_callback(priv_: *mut c_void) {
        // SAFETY: `priv_` is what `setup_aux_callback` returned; perf frees
        // it once.
        unsafe { aux::free::<T>(priv_) }
    }
}

/// A timer period in ns, at least [`super::MIN_TIMER_PERIOD`].
fn timer_ns(d: Delta) -> u64 {
    d.as_nanos().max(super::MIN_TIMER_PERIOD.as_nanos()) as u64
}
