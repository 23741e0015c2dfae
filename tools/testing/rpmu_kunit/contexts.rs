// SPDX-License-Identifier: GPL-2.0

//! KUnit for what the abstraction guarantees at run time rather than by
//! type: the event's timer (exact or lazy, with interrupts disabled) never
//! runs once perf has stopped the event (the
//! abstraction cancels it after `stop` and `del`, and after a failed `add`;
//! the test PMU cancels nothing itself); guards of two `RawSpinLockIrq` locks may be dropped in
//! either order without interrupts coming back on under a held lock; an
//! inherited per-task event of an AUX PMU is refused before the driver sees
//! it; and `migrate_context` refuses the CPU going offline as the target.

use crate::{
    perf::add_stopped,
    rpmu::{
        cpu::{
            hotplug::{HotplugCallbacks, HotplugInstance, HotplugState, Offline},
            CpuId,
        },
        module::this_module,
        perf::{
            AttrGroup, AttrValue, AuxBuffer, Capabilities, Capability, Event, EventFlags,
            EventInit, HwState, HwStateBit, PmuDriver, Process, Reading, Registration, TaskContext,
            TimerRestart,
        },
        sync::{new_raw_spinlock, RawSpinLockIrq},
    },
    rpmu_testing::{cpu_down, cpu_up, irqs_disabled, kernel_counter::KernelCounter},
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

/// The config of a [`TimerPmu`] event whose `add` starts the timer and
/// fails.
const FAILING_ADD: u64 = 2;

/// The config of a [`TimerPmu`] event whose timer cycles through a lazy
/// wait with a deadline, one without, and an exact one.
const LAZY: u64 = 3;

/// Expiries of a [`LAZY`] event.
static LAZY_STEP: Atomic<u32> = Atomic::new(0);

/// Expiries after a lazy wait without a deadline.
static FIRED_LAZY: Atomic<u32> = Atomic::new(0);

/// Expiries seen with interrupts enabled: must stay 0.
static FIRED_IRQS_ON: Atomic<u32> = Atomic::new(0);

/// Calls of [`TimerPmu::event_init`].
static INITS: Atomic<u32> = Atomic::new(0);

/// A PMU whose started events run a 100 µs timer; it never cancels it. It
/// has an AUX area (`setup_aux`), which the events of these tests never map.
struct TimerPmu;

#[vtable]
impl PmuDriver for TimerPmu {
    /// The event's config: [`FAILING_ADD`] or any other.
    type EventData = u64;
    type AuxData = ();
    const CAPABILITIES: Capabilities = Capabilities::empty().with(Capability::NoExclude);
    const TASK_CONTEXT: TaskContext = TaskContext::Invalid;

    fn event_init(&self, e: &mut EventInit<'_>) -> Result<impl PinInit<u64, Error>> {
        INITS.add(1, Relaxed);
        Ok(Ok::<u64, Error>(e.config()))
    }

    fn add(&self, ev: &Event<Self>, flags: EventFlags) -> Result {
        if *ev.data() == FAILING_ADD {
            // Starts the timer, then fails: perf calls no `del`, so the
            // abstraction must disarm it.
            self.start(ev, flags);
            return Err(EBUSY);
        }
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
        if !irqs_disabled() {
            FIRED_IRQS_ON.add(1, Relaxed);
        }
        if *ev.data() != LAZY {
            return TimerRestart::After(Delta::from_micros(100));
        }
        match LAZY_STEP.fetch_add(1, Relaxed) % 3 {
            0 => TimerRestart::Lazy {
                after: Delta::from_millis(1),
                deadline: Some(Delta::from_millis(2)),
            },
            1 => TimerRestart::Lazy {
                after: Delta::from_millis(1),
                deadline: None,
            },
            _ => {
                FIRED_LAZY.add(1, Relaxed);
                TimerRestart::After(Delta::from_micros(100))
            }
        }
    }

    fn setup_aux(&self, _ev: &Event<Self, Process>, _buf: &AuxBuffer) -> Result<()> {
        Ok(())
    }
}

/// A [`TimerPmu`] whose events follow a designated CPU: when it goes
/// offline, the hotplug callback moves them, first trying the CPU going
/// offline itself, then CPU 0.
struct Migrator {
    reg: Registration<TimerPmu>,
    /// `migrate_context` to the CPU going offline: refused (false) or not.
    to_self: Atomic<u32>,
    /// `migrate_context` to CPU 0.
    to_zero: Atomic<u32>,
}

impl HotplugCallbacks for Migrator {
    fn online(&self, _cpu: CpuId) -> Result {
        Ok(())
    }

    fn offline(&self, cx: &Offline<'_>) -> Result {
        let zero = CpuId::from_u32(0).ok_or(EINVAL)?;
        if cx.cpu() != zero {
            let to_self = self.reg.migrate_context(cx, cx.cpu());
            self.to_self.store(u32::from(to_self), Relaxed);
            let to_zero = self.reg.migrate_context(cx, zero);
            self.to_zero.store(u32::from(to_zero), Relaxed);
        }
        Ok(())
    }
}

static GROUPS: [AttrGroup<TimerPmu>; 1] = [AttrGroup::fixed(
    c"format",
    &[(c"event", AttrValue::Fixed(c"config:0-63"))],
)];

/// Registers a [`TimerPmu`] named `name`.
fn timer_pmu(name: &'static CStr) -> Registration<TimerPmu> {
    Registration::new(this_module(), name, Ok::<_, Error>(TimerPmu), &GROUPS).expect("register")
}

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
        let r = timer_pmu(c"rpmu_kunit_timer");
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
    fn lazy_timer_runs_like_the_exact_one() {
        let r = timer_pmu(c"rpmu_kunit_lazy");
        let cpu = CpuId::from_u32(0).unwrap_or_else(CpuId::current);
        let ev = KernelCounter::new(r.pmu_type(), LAZY, cpu).expect("open");
        fsleep(Delta::from_millis(100));
        // The lazy waits ended, with a deadline and without (at a timer
        // interrupt of the CPU: its tick, or the deadline's own), always
        // with interrupts disabled.
        assert!(FIRED_LAZY.load(Relaxed) > 1);
        assert_eq!(FIRED_IRQS_ON.load(Relaxed), 0);
        ev.disable();
        let after_stop = FIRED.load(Relaxed);
        fsleep(Delta::from_millis(30));
        // No expiry once the event is stopped, lazy or not.
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

    #[test]
    fn failed_add_leaves_no_timer() {
        let r = timer_pmu(c"rpmu_kunit_failadd");
        let cpu = CpuId::from_u32(0).unwrap_or_else(CpuId::current);
        let fired = FIRED.load(Relaxed);
        // Perf creates the event; scheduling it fails at `add`, and perf
        // retries at each rotation, each time failing again.
        let ev = KernelCounter::new(r.pmu_type(), FAILING_ADD, cpu);
        fsleep(Delta::from_millis(20));
        let after = FIRED.load(Relaxed);
        drop(ev);
        drop(r);
        assert_eq!(after, fired);
    }

    // These two assert only after undoing what they did: a failed KUnit
    // assertion ends the test without running destructors, which would
    // leave a PMU registered, a hotplug state set up or CPU 1 offline.

    #[test]
    fn inherited_task_event_of_aux_pmu_refused() {
        let r = timer_pmu(c"rpmu_kunit_inherit");
        let cpu = CpuId::from_u32(0).unwrap_or_else(CpuId::current);
        let before = INITS.load(Relaxed);
        // Inherited, per task: refused by the abstraction, the driver never
        // asked.
        let inherited = KernelCounter::new_on_current_task(r.pmu_type(), 1, true).err();
        let inits_inherited = INITS.load(Relaxed);
        // Not inherited: the driver is asked (perf then refuses the task
        // event itself: the PMU has no task context).
        let per_task = KernelCounter::new_on_current_task(r.pmu_type(), 1, false).err();
        let inits_per_task = INITS.load(Relaxed);
        // Inherited and CPU-wide (`perf record -a` sets inherit): accepted.
        let cpu_wide = KernelCounter::new_inherited(r.pmu_type(), 1, cpu).map(drop);
        drop(r);
        assert_eq!(inherited, Some(EINVAL));
        assert_eq!(inits_inherited, before);
        assert_eq!(per_task, Some(EINVAL));
        assert_eq!(inits_per_task, before + 1);
        assert!(cpu_wide.is_ok());
    }

    #[test]
    fn migrate_context_refuses_the_cpu_going_offline() {
        let one = CpuId::from_u32(1).expect("cpu 1");
        let reg = timer_pmu(c"rpmu_kunit_migrate");
        let pmu_type = reg.pmu_type();
        let state = HotplugState::<Migrator>::new(c"rpmu/kunit:migrate").expect("state");
        let inst = HotplugInstance::new(
            &state,
            Migrator {
                reg,
                to_self: Atomic::new(u32::MAX),
                to_zero: Atomic::new(u32::MAX),
            },
        )
        .expect("instance");
        let ev = KernelCounter::new(pmu_type, 1, one);
        let opened = ev.is_ok();
        let down = cpu_down(one).is_ok();
        // The event's timer runs on, on CPU 0, while CPU 1 is offline.
        let fired = FIRED.load(Relaxed);
        fsleep(Delta::from_millis(20));
        let moved = FIRED.load(Relaxed) > fired;
        let to_self = inst.data().to_self.load(Relaxed);
        let to_zero = inst.data().to_zero.load(Relaxed);
        let up = down && cpu_up(one).is_ok();
        drop(ev);
        drop(inst);
        drop(state);
        assert!(opened && down && up);
        // The CPU going offline is refused as the target; CPU 0 is taken,
        // and the event runs there.
        assert_eq!(to_self, 0);
        assert_eq!(to_zero, 1);
        assert!(moved);
    }
}
