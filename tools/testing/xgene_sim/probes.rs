// SPDX-License-Identifier: GPL-2.0

//! What makes the RAM behave like the silicon: the probes on the MMIO
//! tracepoints (a driver's store, seen before and after it is made), the
//! vmalloc-free probe that keeps the address cache right, and the counting
//! tick. Each finds the [`Sim`] through its data pointer (probes) or the
//! timer embedded in it.

use crate::{
    model::{self, Outcome},
    rpmu::bindings as b,
    sim::{Sim, Target},
};
use kernel::{
    pr_err_once, pr_warn_once,
    prelude::*,
    sync::atomic::{Acquire, Relaxed, Release},
    types::Opaque,
};

/// The data pointer the probes are registered with.
pub(crate) fn probe_data(s: &Sim) -> *mut c_void {
    core::ptr::from_ref(s).cast_mut().cast()
}

/// The simulator behind a probe's data pointer.
///
/// # Safety
///
/// `data` must come from [`probe_data`] of a `Sim` that outlives the call:
/// the module unregisters every probe, and waits for running ones, before
/// it drops the `Sim`.
unsafe fn sim<'a>(data: *mut c_void) -> &'a Sim {
    // SAFETY: Guaranteed by the caller.
    unsafe { &*data.cast::<Sim>() }
}

/// The CPU running this.
fn this_cpu() -> usize {
    // SAFETY: No preconditions; reads this CPU's id.
    unsafe { b::rpmu_smp_processor_id() as usize }
}

/// `rwmmio_write` probe: before a driver's store.
///
/// # Safety
///
/// Called by the tracepoint with the store's arguments and the data pointer
/// it was registered with ([`probe_data`]).
pub(crate) unsafe extern "C" fn on_write(
    data: *mut c_void,
    _caller: usize,
    _caller0: usize,
    _val: u64,
    _width: u8,
    addr: *mut c_void,
) {
    // SAFETY: Registered with `probe_data` (caller).
    let s = unsafe { sim(data) };
    let Some(target) = s.lookup(addr as usize) else {
        return;
    };
    if let Target::Syscon(_) = target.0 {
        // The discovery syscons are plain memory.
        return;
    }
    // Released by `on_post_write` right after the store, on this CPU
    // (interrupts stay off in between).
    let flags = s.lock();
    match s.held.get(this_cpu()) {
        Some(h) => {
            // SAFETY: Our CPU's slot, written with the lock held and
            // interrupts off; read back by `on_post_write` on this CPU.
            unsafe { *h.data.get() = (flags, target.0, target.1) };
            h.addr.store(addr as usize, Release);
        }
        None => {
            // Checked against nr_cpu_ids at load; never reached.
            // SAFETY: Taken above.
            unsafe { s.unlock(flags) };
        }
    }
}

/// `rwmmio_post_write` probe: after a driver's store.
///
/// # Safety
///
/// As for [`on_write`].
pub(crate) unsafe extern "C" fn on_post_write(
    data: *mut c_void,
    _caller: usize,
    _caller0: usize,
    val: u64,
    width: u8,
    addr: *mut c_void,
) {
    // SAFETY: Registered with `probe_data` (caller).
    let s = unsafe { sim(data) };
    // If this store is a model store, its `on_write` disabled interrupts,
    // so this is the CPU that took the lock. Otherwise the id may be stale,
    // which the address check below absorbs.
    let Some(h) = s.held.get(this_cpu()) else {
        return;
    };
    if h.addr.load(Acquire) != addr as usize || addr.is_null() {
        // Not a store `on_write` took the lock for (the common case: any
        // other MMIO in the system).
        return;
    }
    // SAFETY: Our slot, written by our `on_write`; interrupts are still off.
    let (flags, target, off) = unsafe { *h.data.get() };
    h.addr.store(0, Relaxed);
    let mut out = Outcome::default();
    let mut odd = false;
    if s.ready.load(Relaxed) {
        // SAFETY: This CPU holds the model lock (taken in `on_write`).
        let m = unsafe { &mut *s.model.get() };
        match (target, width) {
            (Target::Child(ci), 32) => m.child_write(ci, off, val as u32, &mut out),
            (Target::Top, 32) => m.top_write(off, val as u32, &mut out),
            _ => odd = true,
        }
    }
    // SAFETY: Taken in `on_write` on this CPU with these flags.
    unsafe { s.unlock(flags) };
    if odd {
        s.odd_writes.fetch_add(1, Relaxed);
        pr_warn_once!(
            "{}-bit store at {:p}: the model only handles 32-bit accesses; left as plain memory\n",
            width,
            addr
        );
    }
    if out.raise {
        s.raise();
    }
    s.log(&out);
}

/// `rwmmio_read` probe: before a driver's load. Only reads of an MCB that
/// CSWCR says is not in use matter (the silicon may fault or stall there):
/// each is counted (`unused_mcb_reads` in debugfs `status`) and the first
/// is logged as an error.
///
/// # Safety
///
/// As for [`on_write`].
pub(crate) unsafe extern "C" fn on_read(
    data: *mut c_void,
    _caller: usize,
    _caller0: usize,
    _width: u8,
    addr: *const c_void,
) {
    // SAFETY: Registered with `probe_data` (caller).
    let s = unsafe { sim(data) };
    let (i, off) = match s.lookup(addr as usize) {
        Some((Target::Syscon(i), off)) => (i, off),
        Some((Target::Child(ci), off)) => {
            // `step continuous`: the read sees the count of this moment.
            if s.continuous.load(Relaxed) && model::advances_on_read(off) {
                let now = s.now_ns();
                let scale = s.scale.load(Relaxed);
                if s.with_model(|m| m.advance(ci, scale, now)) {
                    s.raise();
                }
            }
            return;
        }
        _ => return,
    };
    if s.unused_mcb(i) {
        s.unused_mcb_reads.fetch_add(1, Relaxed);
        pr_err_once!(
            "read at {:#x} of MCB B, which CSWCR says is not in use (the silicon may fault here)\n",
            off
        );
    }
}

/// `free_vmap_area_noflush` probe: a vmalloc/ioremap area is going away.
///
/// # Safety
///
/// As for [`on_write`].
pub(crate) unsafe extern "C" fn on_vfree(data: *mut c_void, _va: usize, _nr: usize, _max: usize) {
    // SAFETY: Registered with `probe_data` (caller).
    unsafe { sim(data) }.invalidate();
}

/// The counting tick.
///
/// # Safety
///
/// Called by the hrtimer core for the `timer` of a live `Sim` (the module
/// cancels it before dropping the `Sim`).
pub(crate) unsafe extern "C" fn tick(t: *mut b::hrtimer) -> b::hrtimer_restart {
    // SAFETY: `t` is the `timer` field of a live `Sim` (caller).
    let s = unsafe { &*kernel::container_of!(t.cast::<Opaque<b::hrtimer>>(), Sim, timer) };
    // SAFETY: Called from the timer's own callback.
    let periods = unsafe { b::rpmu_hrtimer_forward_now(t, s.period_ns) }.max(1);
    let scale = s.scale.load(Relaxed);
    let now = s.now_ns();
    let (edge, line) = s.with_model(|m| (m.tick(periods, scale, now), m.line));
    if edge {
        s.raise();
    } else if line {
        // Level semantics: re-raise if the line is still asserted while the
        // interrupt is neither pending nor active. The line is checked again
        // after the controller: a handler may have run and cleared the status
        // since the tick looked (then it is not a level still held high).
        let mut busy = true;
        // SAFETY: `virq` is the PMU's mapped interrupt.
        let rc = unsafe { b::xgsim_irq_busy(s.virq, &mut busy) };
        if rc == 0 && !busy && s.with_model(|m| m.line) {
            s.relevel.fetch_add(1, Relaxed);
            s.raise();
        }
    }
    b::hrtimer_restart::HRTIMER_RESTART
}
