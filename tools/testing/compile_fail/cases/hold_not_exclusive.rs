// SPDX-License-Identifier: GPL-2.0
// An AUX transaction held by a PMU that perf does not make exclusive: the
// nesting count a held transaction keeps open (`rb->aux_nest`) belongs to
// the ring, so another PMU's event writing to the same AUX area would find
// it taken, or end the transaction this one still holds.
// EXPECT: AuxOutput::hold needs Capability::Exclusive

use crate::rpmu::perf::{
    AuxBuffer, Capabilities, Event, EventFlags, EventInit, PmuDriver, Process, Reading,
    TaskContext, TimerRestart,
};
use kernel::prelude::*;

/// Per-event data.
#[pin_data]
pub struct Data {
    n: u64,
}

/// A PMU with an AUX area and no `Capability::Exclusive`.
pub struct Pmu;

#[vtable]
impl PmuDriver for Pmu {
    type EventData = Data;
    type AuxData = ();
    const CAPABILITIES: Capabilities = Capabilities::empty();
    const TASK_CONTEXT: TaskContext = TaskContext::Invalid;

    fn event_init(&self, _e: &mut EventInit<'_>) -> Result<impl PinInit<Data, Error>> {
        Ok(try_pin_init!(Data { n: 0 }? Error))
    }
    fn add(&self, _ev: &Event<Self>, _flags: EventFlags) -> Result {
        Ok(())
    }
    fn del(&self, _ev: &Event<Self>, _flags: EventFlags) {}
    fn start(&self, _ev: &Event<Self>, _flags: EventFlags) {}
    fn stop(&self, _ev: &Event<Self>, _flags: EventFlags) {}
    fn read(&self, _ev: &Event<Self, Reading>) {}
    fn timer(&self, ev: &Event<Self>) -> TimerRestart {
        if let Some(out) = ev.aux_output_begin() {
            out.hold();
        }
        TimerRestart::Stop
    }
    fn setup_aux(&self, _ev: &Event<Self, Process>, _buf: &AuxBuffer) -> Result<()> {
        Ok(())
    }
}

/// The timer callback, called as the abstraction would.
pub fn misuse(ev: &Event<Pmu>) {
    let _ = Pmu.timer(ev);
}
