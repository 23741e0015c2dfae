// SPDX-License-Identifier: GPL-2.0

//! A second AUX PMU, `rpmu_aux_test`, registered while `rpmu_kunit` is
//! loaded with `aux_pmu=1`, for `tools/testing/guest/pmu_edge.c aux-foreign`.
//!
//! Perf refuses `PERF_EVENT_IOC_SET_OUTPUT` between events of two AUX PMUs
//! only pairwise: both may redirect into one software event, whose ring then
//! carries the AUX area of whichever set it up. Each expiry of an event's
//! 1 ms timer opens an AUX transaction: when the area is its own it writes
//! its `config` (8 bytes); when the abstraction finds another PMU's there,
//! `aux_output_begin` gives `None` and the event's count goes up by one. Its
//! count is so the number of foreign areas refused.

use crate::{
    perf::add_stopped,
    rpmu::{
        module::this_module,
        perf::{
            AttrGroup, AttrValue, AuxBuffer, Capabilities, Capability, Event, EventFlags,
            EventInit, HwState, HwStateBit, PmuDriver, Process, Reading, Registration, TaskContext,
            TimerRestart,
        },
    },
};
use kernel::{prelude::*, time::Delta};

/// The test AUX PMU.
pub(crate) struct AuxTest;

#[vtable]
impl PmuDriver for AuxTest {
    type EventData = ();
    /// What its own AUX areas carry, to tell them from another PMU's.
    type AuxData = u64;
    const CAPABILITIES: Capabilities = Capabilities::empty().with(Capability::NoExclude);
    const TASK_CONTEXT: TaskContext = TaskContext::Invalid;

    fn event_init(&self, e: &mut EventInit<'_>) -> Result<impl PinInit<(), Error>> {
        if e.cpu().is_none() {
            return Err(EINVAL);
        }
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
        ev.timer_start(Delta::from_millis(1));
    }

    fn stop(&self, ev: &Event<Self>, _flags: EventFlags) {
        ev.set_hw_state(HwStateBit::Stopped.into());
    }

    fn read(&self, _ev: &Event<Self, Reading>) {}

    fn timer(&self, ev: &Event<Self>) -> TimerRestart {
        match ev.aux_output_begin() {
            Some(mut out) => {
                let tag = *out.data();
                let _ = out.write(&tag.to_ne_bytes());
                out.commit();
            }
            None => ev.count_add(1),
        }
        TimerRestart::After(Delta::from_millis(1))
    }

    fn setup_aux(&self, _ev: &Event<Self, Process>, _buf: &AuxBuffer) -> Result<u64> {
        Ok(0x7275_7374_5f61_7578)
    }
}

static GROUPS: [AttrGroup<AuxTest>; 1] = [AttrGroup::fixed(
    c"format",
    &[(c"event", AttrValue::Fixed(c"config:0-63"))],
)];

/// Registers `rpmu_aux_test`.
pub(crate) fn register() -> Result<Registration<AuxTest>> {
    Registration::new(
        this_module(),
        c"rpmu_aux_test",
        Ok::<_, Error>(AuxTest),
        &GROUPS,
    )
}
