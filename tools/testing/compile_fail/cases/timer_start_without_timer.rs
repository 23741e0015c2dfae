// SPDX-License-Identifier: GPL-2.0
// The event's timer started by a PMU without a `timer` callback: the
// expiry would call a callback the driver does not have.
// EXPECT: Event::timer_start needs PmuDriver::timer

use crate::rpmu::perf::{
    Capabilities, Event, EventFlags, EventInit, PmuDriver, Reading, TaskContext,
};
use kernel::{prelude::*, time::Delta};

/// Per-event data.
#[pin_data]
pub struct Data {
    n: u64,
}

/// A PMU without a timer.
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
    fn start(&self, ev: &Event<Self>, _flags: EventFlags) {
        ev.timer_start(Delta::from_millis(1));
    }
    fn stop(&self, _ev: &Event<Self>, _flags: EventFlags) {}
    fn read(&self, _ev: &Event<Self, Reading>) {}
}

/// The start callback, called as the abstraction would.
pub fn misuse(ev: &Event<Pmu>) {
    Pmu.start(ev, EventFlags::empty());
}
