// SPDX-License-Identifier: GPL-2.0

//! KUnit: the logic the driver runs, checked on the CPU it runs on, and the
//! pseries facilities it relies on.

use crate::logic::selftest;
use kernel::prelude::*;

fn report(r: Result<(), selftest::Failure>) -> bool {
    if let Err(what) = r {
        pr_err!("failed case: {}\n", what);
        false
    } else {
        true
    }
}

#[kunit_tests(vpa_dtl)]
mod cases {
    use super::*;

    #[test]
    fn ring_plan() {
        assert!(report(selftest::ring_plan()));
    }

    #[test]
    fn ring_torn() {
        assert!(report(selftest::ring_torn()));
    }

    #[test]
    fn ring_runs() {
        assert!(report(selftest::ring_runs()));
    }

    #[test]
    fn aux_space() {
        assert!(report(selftest::aux()));
    }

    #[test]
    fn record_layouts() {
        assert!(report(selftest::records()));
    }

    #[test]
    fn validation_table() {
        assert!(report(selftest::validation()));
    }

    #[test]
    fn boot_tb_matches_sched_clock() {
        // The estimate converts back to the scheduler clock within its bound.
        let freq = crate::pseries::timebase_frequency();
        let (boot, err) = crate::estimate_boot_tb(freq);
        let tb = crate::pseries::timebase();
        let ns = crate::pseries::local_clock_ns();
        let tb2 = crate::pseries::timebase();
        let ticks_now = crate::logic::record::ns_to_ticks(ns, freq);
        let derived = tb - boot;
        // local_clock() was read between tb and tb2.
        assert!(ticks_now + err + 1 >= derived);
        assert!(derived + (tb2 - tb) + err + 1 >= ticks_now);
        // The bound is below 1 ms.
        assert!(err < freq / 1000);
    }

    #[test]
    fn dtl_register_roundtrip() {
        // Registration resets the index and deregistration leaves the buffer
        // free; done on a CPU no event can own during the test run.
        let buf = crate::pseries::DtlBuffer::new(0).expect("alloc");
        assert!(!buf.is_registered());
        assert!(buf.register().is_ok());
        assert!(buf.is_registered());
        assert_eq!(buf.published_index(), 0);
        assert!(buf.unregister().is_ok());
        assert!(!buf.is_registered());
    }
}

/// KUnit for the `rust/pmu` abstractions, with a test PMU driven through
/// in-kernel events: registration and unregistration, typed per-event data
/// created once by `event_init` and dropped once at destroy, errno
/// propagation, and the add/start/read/stop/del callbacks.
#[kunit_tests(rpmu_pmu_abstraction)]
mod abstraction {
    use crate::pmu::{
        attrs::AttrValue, kernel_counter::KernelCounter, AttrGroup, Capabilities, Event, EventInit,
        Flags, PmuDriver, Registration, TaskContext,
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

    struct TestPmu;

    #[vtable]
    impl PmuDriver for TestPmu {
        type EventData = TestEvent;
        type AuxData = ();
        const CAPABILITIES: Capabilities = Capabilities::NO_EXCLUDE;
        const TASK_CONTEXT: TaskContext = TaskContext::Invalid;

        fn event_init(&self, e: &mut EventInit<'_>) -> Result<impl PinInit<TestEvent, Error>> {
            if e.config() == 0xbad {
                return Err(EINVAL);
            }
            CREATED.add(1, Relaxed);
            let step = e.config();
            Ok(try_pin_init!(TestEvent { step, _token: DropCount }? Error))
        }

        fn add(&self, ev: &Event<Self>, flags: Flags) -> Result {
            ADDS.add(1, Relaxed);
            ev.set_hw_state(1);
            if flags.contains(Flags::START) {
                self.start(ev, flags);
            }
            Ok(())
        }

        fn del(&self, ev: &Event<Self>, flags: Flags) {
            self.stop(ev, flags);
        }

        fn start(&self, ev: &Event<Self>, _flags: Flags) {
            ev.set_hw_state(0);
        }

        fn stop(&self, ev: &Event<Self>, _flags: Flags) {
            ev.set_hw_state(1);
        }

        fn read(&self, ev: &Event<Self>) {
            // Each read advances the count by the event's step.
            if ev.hw_state() == 0 {
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

    fn module() -> &'static ThisModule {
        &<crate::VpaDtlModule as kernel::ModuleMetadata>::THIS_MODULE
    }

    #[test]
    fn register_unregister_register() {
        let r = Registration::new(module(), c"rpmu_kunit", TestPmu, &GROUPS);
        assert!(r.is_ok());
        let r = r.unwrap();
        // Dynamic types start after the fixed PERF_TYPE_* range.
        assert!(r.pmu_type() >= 6);
        drop(r);
        // The name is free again only if the drop unregistered the PMU.
        assert!(Registration::new(module(), c"rpmu_kunit", TestPmu, &GROUPS).is_ok());
    }

    #[test]
    fn event_data_lifecycle_and_callbacks() {
        let r = Registration::new(module(), c"rpmu_kunit", TestPmu, &GROUPS).expect("register");
        let (c0, d0, x0, a0) = (
            CREATED.load(Relaxed),
            DROPPED.load(Relaxed),
            DESTROYED.load(Relaxed),
            ADDS.load(Relaxed),
        );
        let cpu = 0;
        let ev = KernelCounter::new(r.pmu_type(), 3, cpu).expect("open");
        assert_eq!(CREATED.load(Relaxed), c0 + 1);
        assert_eq!(ADDS.load(Relaxed), a0 + 1);
        let v1 = ev.read();
        let v2 = ev.read();
        // Active on its CPU: each read calls `read`, which adds the step.
        assert!(v1 >= 3 && v1 % 3 == 0);
        assert_eq!(v2, v1 + 3);
        assert_eq!(DROPPED.load(Relaxed), d0);
        drop(ev);
        assert_eq!(DESTROYED.load(Relaxed), x0 + 1);
        assert_eq!(DROPPED.load(Relaxed), d0 + 1);
    }

    #[test]
    fn event_init_errno_propagates() {
        let r = Registration::new(module(), c"rpmu_kunit", TestPmu, &GROUPS).expect("register");
        let (c0, x0) = (CREATED.load(Relaxed), DESTROYED.load(Relaxed));
        let e = KernelCounter::new(r.pmu_type(), 0xbad, 0);
        assert_eq!(e.err(), Some(EINVAL));
        // A refused event never had data, so it is never destroyed.
        assert_eq!(CREATED.load(Relaxed), c0);
        assert_eq!(DESTROYED.load(Relaxed), x0);
    }

    #[test]
    fn foreign_type_gets_enoent() {
        // A type no PMU owns makes perf core offer the event to every PMU;
        // ours must answer ENOENT without calling the driver.
        let _r = Registration::new(module(), c"rpmu_kunit", TestPmu, &GROUPS).expect("register");
        let c0 = CREATED.load(Relaxed);
        let e = KernelCounter::new(5000, 1, 0);
        assert_eq!(e.err(), Some(ENOENT));
        assert_eq!(CREATED.load(Relaxed), c0);
    }

    #[test]
    fn capability_no_exclude_enforced_by_core() {
        // Perf core refuses exclude_* for NO_EXCLUDE PMUs after event_init
        // succeeded, and then calls destroy: data created and dropped once.
        let r = Registration::new(module(), c"rpmu_kunit", TestPmu, &GROUPS).expect("register");
        let (c0, d0) = (CREATED.load(Relaxed), DROPPED.load(Relaxed));
        let e = KernelCounter::new_excluding_user(r.pmu_type(), 1, 0);
        assert_eq!(e.err(), Some(EINVAL));
        assert_eq!(CREATED.load(Relaxed), c0 + 1);
        assert_eq!(DROPPED.load(Relaxed), d0 + 1);
    }
}

/// KUnit for the CPU hotplug helpers: callbacks run for every online CPU
/// when an instance is added and removed, and for a CPU taken down and up.
#[kunit_tests(rpmu_hotplug)]
mod hotplug {
    use crate::pmu::hotplug::{cpu_down, cpu_up, HotplugCallbacks, HotplugInstance, HotplugState};
    use kernel::{
        prelude::*,
        sync::atomic::{Atomic, Relaxed},
    };

    struct Counts {
        online: Atomic<u32>,
        offline: Atomic<u32>,
        last_offline: Atomic<u32>,
    }

    impl HotplugCallbacks for Counts {
        fn online(&self, _cpu: u32) -> Result {
            self.online.add(1, Relaxed);
            Ok(())
        }

        fn offline(&self, cpu: u32) -> Result {
            self.offline.add(1, Relaxed);
            self.last_offline.store(cpu, Relaxed);
            Ok(())
        }
    }

    #[test]
    fn callbacks_follow_cpu_changes() {
        let state = HotplugState::<Counts>::new(c"rpmu/kunit:online").expect("state");
        let inst = HotplugInstance::new(
            &state,
            Counts {
                online: Atomic::new(0),
                offline: Atomic::new(0),
                last_offline: Atomic::new(u32::MAX),
            },
        )
        .expect("instance");
        // The guest has two CPUs: `online` ran for both.
        assert_eq!(inst.data().online.load(Relaxed), 2);
        assert!(cpu_down(1).is_ok());
        assert_eq!(inst.data().offline.load(Relaxed), 1);
        assert_eq!(inst.data().last_offline.load(Relaxed), 1);
        assert!(cpu_up(1).is_ok());
        assert_eq!(inst.data().online.load(Relaxed), 3);
        drop(inst);
        drop(state);
    }
}
