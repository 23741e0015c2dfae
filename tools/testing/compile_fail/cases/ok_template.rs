// SPDX-License-Identifier: GPL-2.0
// The correct uses the other cases get wrong: a timer, the AUX output
// within its transaction, `setup_aux` reading the event's config, an owned
// interrupt handler, migration from the hotplug callback. Must build.

use crate::rpmu::{
    cpu::{
        hotplug::{HotplugCallbacks, Offline},
        CpuId,
    },
    irq,
    perf::{
        AuxBuffer, Capabilities, Event, EventFlags, EventInit, PmuDriver, Process, Reading,
        Registration, TaskContext, TimerRestart,
    },
};
use kernel::{irq::Flags, prelude::*, sync::Arc, time::Delta};

/// Per-event data.
#[pin_data]
pub struct Data {
    step: u64,
}

/// A PMU with a timer and an AUX area.
pub struct Pmu;

#[vtable]
impl PmuDriver for Pmu {
    type EventData = Data;
    type AuxData = u64;
    const CAPABILITIES: Capabilities = Capabilities::empty();
    const TASK_CONTEXT: TaskContext = TaskContext::Invalid;

    fn event_init(&self, e: &mut EventInit<'_>) -> Result<impl PinInit<Data, Error>> {
        let step = e.config();
        Ok(try_pin_init!(Data { step }? Error))
    }
    fn add(&self, _ev: &Event<Self>, _flags: EventFlags) -> Result {
        Ok(())
    }
    fn del(&self, _ev: &Event<Self>, _flags: EventFlags) {}
    fn start(&self, ev: &Event<Self>, _flags: EventFlags) {
        ev.timer_start(Delta::from_millis(1));
    }
    fn stop(&self, _ev: &Event<Self>, _flags: EventFlags) {}
    fn read(&self, ev: &Event<Self, Reading>) {
        ev.count_add(ev.data().step);
    }
    fn timer(&self, ev: &Event<Self>) -> TimerRestart {
        if let Some(mut out) = ev.aux_output_begin() {
            let d = *out.data();
            let _ = out.write(&d.to_ne_bytes());
            out.commit();
        }
        TimerRestart::After(Delta::from_millis(1))
    }
    fn setup_aux(&self, ev: &Event<Self, Process>, _buf: &AuxBuffer) -> Result<u64> {
        Ok(ev.config())
    }
}

struct Owned(Arc<u32>);

impl irq::Handler for Owned {
    fn handle(&self) -> irq::IrqReturn {
        if *self.0 == 0 {
            irq::IrqReturn::None
        } else {
            irq::IrqReturn::Handled
        }
    }
}

/// Requests an interrupt for a handler that owns its data.
pub fn request(req: kernel::irq::IrqRequest<'_>, v: Arc<u32>) -> Result {
    let _reg = irq::register(req, Flags::SHARED, c"cf", Ok::<_, Error>(Owned(v)))?;
    Ok(())
}

/// Moves the PMU's events off a CPU going offline.
pub struct Hp(Arc<Registration<Pmu>>, CpuId);

impl HotplugCallbacks for Hp {
    fn offline(&self, cx: &Offline<'_>) -> Result {
        let _ = self.0.migrate_context(cx, self.1);
        Ok(())
    }
}
