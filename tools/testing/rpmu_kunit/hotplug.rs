// SPDX-License-Identifier: GPL-2.0

//! KUnit for `rpmu::cpu::hotplug`: callbacks run for every online CPU when
//! an instance is added and removed, and for a CPU taken down and up; an
//! instance keeps its state alive after the owner's reference is gone.

use crate::{
    rpmu::cpu::{
        hotplug::{HotplugCallbacks, HotplugInstance, HotplugState, Offline},
        CpuId,
    },
    rpmu_testing::{cpu_down, cpu_up},
};
use kernel::{
    prelude::*,
    sync::atomic::{Atomic, Relaxed},
};

struct Counts {
    online: Atomic<u32>,
    offline: Atomic<u32>,
    last_offline: Atomic<u32>,
}

impl Counts {
    fn new() -> Self {
        Self {
            online: Atomic::new(0),
            offline: Atomic::new(0),
            last_offline: Atomic::new(u32::MAX),
        }
    }
}

impl HotplugCallbacks for Counts {
    fn online(&self, _cpu: CpuId) -> Result {
        self.online.add(1, Relaxed);
        Ok(())
    }

    fn offline(&self, cx: &Offline<'_>) -> Result {
        self.offline.add(1, Relaxed);
        self.last_offline.store(u32::from(cx.cpu()), Relaxed);
        Ok(())
    }
}

fn online_cpus() -> u32 {
    (0..kernel::cpu::nr_cpu_ids())
        .filter_map(CpuId::from_u32)
        .filter(|&c| crate::rpmu::cpu::is_online(c))
        .count() as u32
}

#[kunit_tests(rpmu_hotplug)]
mod cases {
    use super::*;

    #[test]
    fn callbacks_follow_cpu_changes() {
        let n = online_cpus();
        assert!(n >= 2);
        let one = CpuId::from_u32(1).expect("cpu 1");
        let state = HotplugState::<Counts>::new(c"rpmu/kunit:online").expect("state");
        let inst = HotplugInstance::new(&state, Counts::new()).expect("instance");
        // `online` ran for every online CPU.
        assert_eq!(inst.data().online.load(Relaxed), n);
        assert!(cpu_down(one).is_ok());
        assert_eq!(inst.data().offline.load(Relaxed), 1);
        assert_eq!(inst.data().last_offline.load(Relaxed), 1);
        assert!(cpu_up(one).is_ok());
        assert_eq!(inst.data().online.load(Relaxed), n + 1);
        drop(inst);
        drop(state);
    }

    #[test]
    fn instance_keeps_its_state() {
        let one = CpuId::from_u32(1).expect("cpu 1");
        let state = HotplugState::<Counts>::new(c"rpmu/kunit:keep").expect("state");
        let inst = HotplugInstance::new(&state, Counts::new()).expect("instance");
        // The owner's reference goes first: the state must stay set up
        // (removing it with an instance left would WARN and leave the
        // instance's callbacks dangling).
        drop(state);
        assert!(cpu_down(one).is_ok());
        assert!(cpu_up(one).is_ok());
        assert_eq!(inst.data().offline.load(Relaxed), 1);
        // Dropping the instance removes it, then the state.
        drop(inst);
    }
}
