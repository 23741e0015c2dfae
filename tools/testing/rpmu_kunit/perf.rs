// SPDX-License-Identifier: GPL-2.0

//! KUnit for `rpmu::perf`: registration and unregistration, the const
//! `struct pmu`, typed per-event data created once by `event_init` and
//! dropped once at destroy, errno propagation, `set_cpu` with a `CpuId`,
//! and the add/start/read/stop/del callbacks under a raw spinlock.

use crate::{
    rpmu::{
        cpu::CpuId,
        module::this_module,
        perf::{
            AttrGroup, AttrValue, Capabilities, Capability, Event, EventFlag, EventFlags,
            EventInit, HwState, HwStateBit, PmuDriver, Reading, Registration, TaskContext,
        },
        sync::{new_raw_spinlock, RawSpinLockIrq},
    },
    rpmu_testing::kernel_counter::KernelCounter,
};
use kernel::{
    prelude::*,
    sync::atomic::{Atomic, Relaxed},
};

static CREATED: Atomic<u32> = Atomic::new(0);
static DROPPED: Atomic<u32> = Atomic::new(0);
static DESTROYED: Atomic<u32> = Atomic::new(0);
static ADDS: Atomic<u32> = Atomic::new(0);

struct DropCount;

impl Drop for DropCount {
    fn drop(&mut self) {
        DROPPED.add(1, Relaxed);
    }
}

#[pin_data]
struct TestEvent {
    step: u64,
    _token: DropCount,
}

/// A PMU whose events count their reads, in steps of `config & 0xff`;
/// `config >> 8`, when non-zero, is `1 + the CPU` to move the event to.
#[pin_data]
struct TestPmu {
    /// Reads seen, under a raw lock as perf's callbacks require.
    #[pin]
    reads: RawSpinLockIrq<u64>,
}

fn test_pmu() -> impl PinInit<TestPmu, Error> {
    try_pin_init!(TestPmu {
        reads <- new_raw_spinlock!(0, "rpmu_kunit_reads"),
    }? Error)
}

/// The test PMUs' `add`: the event is added stopped, and started if perf
/// asks for it.
pub(crate) fn add_stopped<T: PmuDriver>(drv: &T, ev: &Event<T>, flags: EventFlags) -> Result {
    ev.set_hw_state(HwStateBit::Stopped.into());
    if flags.contains(EventFlag::Start) {
        drv.start(ev, flags);
    }
    Ok(())
}

#[vtable]
impl PmuDriver for TestPmu {
    type EventData = TestEvent;
    type AuxData = ();
    const CAPABILITIES: Capabilities = Capabilities::empty().with(Capability::NoExclude);
    const TASK_CONTEXT: TaskContext = TaskContext::Invalid;

    fn event_init(&self, e: &mut EventInit<'_>) -> Result<impl PinInit<TestEvent, Error>> {
        if e.config() == 0xbad {
            return Err(EINVAL);
        }
        let target = e.config() >> 8;
        if target != 0 {
            let cpu = u32::try_from(target - 1).map_err(|_| EINVAL)?;
            // Only a CPU number below nr_cpu_ids makes a CpuId.
            e.set_cpu(CpuId::from_u32(cpu).ok_or(EINVAL)?);
        }
        CREATED.add(1, Relaxed);
        let step = e.config() & 0xff;
        Ok(try_pin_init!(TestEvent { step, _token: DropCount }? Error))
    }

    fn add(&self, ev: &Event<Self>, flags: EventFlags) -> Result {
        ADDS.add(1, Relaxed);
        add_stopped(self, ev, flags)
    }

    fn del(&self, ev: &Event<Self>, flags: EventFlags) {
        self.stop(ev, flags);
    }

    fn start(&self, ev: &Event<Self>, _flags: EventFlags) {
        ev.set_hw_state(HwState::RUNNING);
    }

    fn stop(&self, ev: &Event<Self>, _flags: EventFlags) {
        ev.set_hw_state(HwStateBit::Stopped.into());
    }

    fn read(&self, ev: &Event<Self, Reading>) {
        // Each read advances the count by the event's step.
        if ev.hw_state() == HwState::RUNNING {
            *self.reads.lock() += 1;
            ev.count_add(ev.data().step);
        }
    }

    fn event_destroy(&self, _d: &TestEvent) {
        DESTROYED.add(1, Relaxed);
    }
}

static GROUPS: [AttrGroup<TestPmu>; 1] = [AttrGroup::fixed(
    c"format",
    &[(c"event", AttrValue::Fixed(c"config:0-63"))],
)];

fn register() -> Result<Registration<TestPmu>> {
    Registration::new(this_module(), c"rpmu_kunit", test_pmu(), &GROUPS)
}

fn cpu(n: u32) -> CpuId {
    CpuId::from_u32(n).unwrap_or_else(CpuId::current)
}

#[kunit_tests(rpmu_perf)]
mod cases {
    use super::*;

    #[test]
    fn register_unregister_register() {
        let r = register();
        assert!(r.is_ok());
        let r = r.unwrap();
        // Dynamic types start after the fixed PERF_TYPE_* range.
        assert!(r.pmu_type() >= 6);
        drop(r);
        // The name is free again only if the drop unregistered the PMU.
        assert!(register().is_ok());
    }

    #[test]
    fn vtable_is_constant() {
        // Everything but the name, module and groups comes from the
        // constant; optional callbacks the driver lacks stay NULL.
        let v = Registration::<TestPmu>::VTABLE;
        assert!(v.event_init.is_some() && v.read.is_some());
        assert!(v.setup_aux.is_none() && v.free_aux.is_none());
        assert!(v.check_period.is_none() && v.pmu_enable.is_none());
        assert!(v.start_txn.is_none() && v.commit_txn.is_none() && v.cancel_txn.is_none());
        assert!(v.name.is_null() && v.module.is_null());
        assert_eq!(v.task_ctx_nr, -1);
    }

    #[test]
    fn event_data_lifecycle_and_callbacks() {
        let r = register().expect("register");
        let (c0, d0, x0, a0) = (
            CREATED.load(Relaxed),
            DROPPED.load(Relaxed),
            DESTROYED.load(Relaxed),
            ADDS.load(Relaxed),
        );
        let ev = KernelCounter::new(r.pmu_type(), 3, cpu(0)).expect("open");
        assert_eq!(CREATED.load(Relaxed), c0 + 1);
        assert_eq!(ADDS.load(Relaxed), a0 + 1);
        let v1 = ev.read();
        let v2 = ev.read();
        // Active on its CPU: each read calls `read`, which adds the step.
        assert!(v1 >= 3 && v1 % 3 == 0);
        assert_eq!(v2, v1 + 3);
        assert!(*r.driver().reads.lock() >= 2);
        assert_eq!(DROPPED.load(Relaxed), d0);
        drop(ev);
        assert_eq!(DESTROYED.load(Relaxed), x0 + 1);
        assert_eq!(DROPPED.load(Relaxed), d0 + 1);
    }

    #[test]
    fn set_cpu_takes_only_valid_cpus() {
        let r = register().expect("register");
        // Moved to the last possible CPU: accepted and counting there.
        let last = kernel::cpu::nr_cpu_ids() - 1;
        let ev = KernelCounter::new(r.pmu_type(), ((u64::from(last) + 1) << 8) | 2, cpu(0));
        assert!(ev.is_ok());
        drop(ev);
        // One past the last: no CpuId exists, so the driver refuses.
        let c0 = CREATED.load(Relaxed);
        let bad = KernelCounter::new(r.pmu_type(), ((u64::from(last) + 2) << 8) | 2, cpu(0));
        assert_eq!(bad.err(), Some(EINVAL));
        assert_eq!(CREATED.load(Relaxed), c0);
    }

    #[test]
    fn event_init_errno_propagates() {
        let r = register().expect("register");
        let (c0, x0) = (CREATED.load(Relaxed), DESTROYED.load(Relaxed));
        let e = KernelCounter::new(r.pmu_type(), 0xbad, cpu(0));
        assert_eq!(e.err(), Some(EINVAL));
        // A refused event never had data, so it is never destroyed.
        assert_eq!(CREATED.load(Relaxed), c0);
        assert_eq!(DESTROYED.load(Relaxed), x0);
    }

    #[test]
    fn foreign_type_gets_enoent() {
        // A type no PMU owns makes perf core offer the event to every PMU;
        // ours must answer ENOENT without calling the driver.
        let _r = register().expect("register");
        let c0 = CREATED.load(Relaxed);
        let e = KernelCounter::new(5000, 1, cpu(0));
        assert_eq!(e.err(), Some(ENOENT));
        assert_eq!(CREATED.load(Relaxed), c0);
    }

    #[test]
    fn no_exclude_refused_before_the_driver() {
        // Perf core would refuse exclude_* for NO_EXCLUDE PMUs only after
        // event_init (whose claims would then answer first, say EBUSY);
        // the layer refuses them before the driver runs: nothing created.
        let r = register().expect("register");
        let (c0, d0) = (CREATED.load(Relaxed), DROPPED.load(Relaxed));
        let e = KernelCounter::new_excluding_user(r.pmu_type(), 1, cpu(0));
        assert_eq!(e.err(), Some(EINVAL));
        assert_eq!(CREATED.load(Relaxed), c0);
        assert_eq!(DROPPED.load(Relaxed), d0);
    }
}
