// SPDX-License-Identifier: GPL-2.0

//! KUnit for what the abstraction guarantees at run time rather than by
//! type: the event's timer never runs once perf has stopped the event (the
//! abstraction cancels it after `stop` and `del`; the test PMU cancels
//! nothing itself), and guards of two `RawSpinLockIrq` locks may be dropped
//! in either order without interrupts coming back on under a held lock.

use crate::{
    perf::add_stopped,
    rpmu::{
        cpu::CpuId,
        module::this_module,
        perf::{
            AttrGroup, AttrValue, Capabilities, Capability, Event, EventFlags, EventInit, HwState,
            HwStateBit, PmuDriver, Reading, Registration, TaskContext, TimerRestart,
        },
        sync::{new_raw_spinlock, RawSpinLockIrq},
    },
    rpmu_testing::{irqs_disabled, kernel_counter::KernelCounter},
};
use kernel::{
    prelude::*,
    sync::atomic::{Atomic, Relaxed},
    time::{delay::fsleep, Delta},
};

/// Timer expiries seen by [`TimerPmu`].
static FIRED: Atomic<u32> = Atomic::new(0);

/// Expiries seen while the event was not started: must stay 0.
static FIRED_STOPPED: Atomic<u32> = Atomic::new(0);

/// A PMU whose started events run a 100 µs timer; it never cancels it.
struct TimerPmu;

#[vtable]
impl PmuDriver for TimerPmu {
    type EventData = ();
    type AuxData = ();
    const CAPABILITIES: Capabilities = Capabilities::empty().with(Capability::NoExclude);
    const TASK_CONTEXT: TaskContext = TaskContext::Invalid;

    fn event_init(&self, _e: &mut EventInit<'_>) -> Result<impl PinInit<(), Error>> {
        Ok(Ok::<(), Error>(()))
    }

    fn add(&self, ev: &Event<Self>, flags: EventFlags) -> Result {
        add_stopped(self, ev, flags)
    }

    fn del(&self, ev: &Event<Self>, flags: EventFlags) {
        self.stop(ev, flags);
    }

    fn start(&self, ev: &Event<Self>, _flags: EventFlags) {
        ev.set_hw_state(HwState::RUNNING);
        ev.timer_start(Delta::from_micros(100));
    }

    fn stop(&self, ev: &Event<Self>, _flags: EventFlags) {
        // No cancel here: the abstraction's job.
        ev.set_hw_state(HwStateBit::Stopped.into());
    }

    fn read(&self, _ev: &Event<Self, Reading>) {}

    fn timer(&self, ev: &Event<Self>) -> TimerRestart {
        FIRED.add(1, Relaxed);
        if ev.hw_state().contains(HwStateBit::Stopped) {
            FIRED_STOPPED.add(1, Relaxed);
        }
        TimerRestart::After(Delta::from_micros(100))
    }
}

static GROUPS: [AttrGroup<TimerPmu>; 1] = [AttrGroup::fixed(
    c"format",
    &[(c"event", AttrValue::Fixed(c"config:0-63"))],
)];

#[pin_data]
struct TwoLocks {
    #[pin]
    a: RawSpinLockIrq<u32>,
    #[pin]
    b: RawSpinLockIrq<u32>,
}

#[kunit_tests(rpmu_contexts)]
mod cases {
    use super::*;

    #[test]
    fn timer_stops_with_the_event() {
        let r = Registration::new(
            this_module(),
            c"rpmu_kunit_timer",
            Ok::<_, Error>(TimerPmu),
            &GROUPS,
        )
        .expect("register");
        let cpu = CpuId::from_u32(0).unwrap_or_else(CpuId::current);
        let ev = KernelCounter::new(r.pmu_type(), 1, cpu).expect("open");
        fsleep(Delta::from_millis(20));
        // Started: the timer runs.
        assert!(FIRED.load(Relaxed) > 0);
        ev.disable();
        let after_stop = FIRED.load(Relaxed);
        fsleep(Delta::from_millis(20));
        // Stopped and removed: not one more expiry, none while stopped.
        assert_eq!(FIRED.load(Relaxed), after_stop);
        assert_eq!(FIRED_STOPPED.load(Relaxed), 0);
        drop(ev);
    }

    #[test]
    fn raw_spinlock_irq_guards_drop_in_any_order() {
        let locks = KBox::pin_init(
            pin_init!(TwoLocks {
                a <- new_raw_spinlock!(0, "rpmu_kunit_a"),
                b <- new_raw_spinlock!(0, "rpmu_kunit_b"),
            }),
            GFP_KERNEL,
        )
        .expect("alloc");
        assert!(!irqs_disabled());
        let ga = locks.a.lock();
        let gb = locks.b.lock();
        drop(ga);
        // `b` is still held: an interrupt handler taking it here would
        // deadlock, so interrupts must still be off.
        assert!(irqs_disabled());
        drop(gb);
        assert!(!irqs_disabled());
    }
}
