// SPDX-License-Identifier: GPL-2.0

//! The perf callbacks of a sub-block's PMU: which events it accepts, and
//! what scheduling one does to the counters.

use crate::{
    block::{Child, Counter},
    logic::{
        config::{self, ConfigError, Programming},
        counter,
        hw::{regs, MAX_COUNTERS},
    },
    rpmu::{
        compat::eopnotsupp,
        perf::{
            Capabilities, Capability, Event, EventFlag, EventFlags, EventInit, HwState, HwStateBit,
            OnEventCpu, PmuDriver, Reading, TaskContext, Txn,
        },
    },
};
use kernel::prelude::*;

/// The errno `event_init` answers a refused `config`/`config1` with
/// (Documentation/xgene-pmu.rst, "Event validation"): the logic gives the
/// reason, the driver the errno.
fn config_errno(why: ConfigError) -> Error {
    match why {
        ConfigError::EventBits | ConfigError::AgentBits | ConfigError::NoAgentFilter => EINVAL,
    }
}

/// Per-event state: the decoded attributes, fixed at `event_init`.
#[pin_data]
pub(crate) struct EventState {
    prog: Programming,
}

impl Child {
    fn event_idx<C: OnEventCpu>(event: &Event<Self, C>) -> Option<usize> {
        event.hw_idx().filter(|&i| i < MAX_COUNTERS)
    }

    fn masks_of(prog: &Programming) -> Option<(Option<u32>, Option<u32>)> {
        (prog.amr0.is_some() || prog.amr1.is_some()).then_some((prog.amr0, prog.amr1))
    }
}

#[vtable]
impl PmuDriver for Child {
    type EventData = EventState;
    type AuxData = ();

    const CAPABILITIES: Capabilities = Capabilities::empty()
        .with(Capability::NoExclude)
        .with(Capability::NoInterrupt);
    const TASK_CONTEXT: TaskContext = TaskContext::Invalid;

    fn event_init(&self, ev: &mut EventInit<'_>) -> Result<impl PinInit<EventState, Error>> {
        if ev.is_sampling() {
            pr_debug!("sampling is not supported: these are counting PMUs\n");
            return Err(eopnotsupp());
        }
        if ev.is_per_task() || ev.cpu().is_none() {
            pr_debug!("per-task events are not supported: open the event on a CPU\n");
            return Err(EINVAL);
        }
        let prog =
            config::decode(self.ty, self.version, ev.config(), ev.config1()).map_err(|e| {
                pr_debug!(
                    "config {:#x} config1 {:#x} refused: {}\n",
                    ev.config(),
                    ev.config1(),
                    e.reason()
                );
                config_errno(e)
            })?;

        // A group must be schedulable as a whole: same PMU (or software
        // events), enough counters, one agent mask per sub-block.
        let mine = Self::masks_of(&prog);
        let mut on_pmu = 1usize;
        ev.for_each_group_member(|m| {
            if !m.same_pmu() {
                if m.is_software() {
                    return Ok(());
                }
                pr_debug!("group mixes this PMU with another hardware PMU\n");
                return Err(EINVAL);
            }
            // A saturated count still does not fit.
            on_pmu = on_pmu.saturating_add(1);
            let other = config::decode(self.ty, self.version, m.config(), m.config1())
                .map_err(config_errno)?;
            if let (Some(a), Some(b)) = (mine, Self::masks_of(&other)) {
                if a != b {
                    pr_debug!("group members need different agent masks on one sub-block\n");
                    return Err(EINVAL);
                }
            }
            Ok(())
        })?;
        if !counter::group_fits(self.version, on_pmu) {
            pr_debug!(
                "group of {} events does not fit in {} counters\n",
                on_pmu,
                self.layout.counters
            );
            return Err(EINVAL);
        }

        // Uncore counters are counted on the device's owning CPU.
        ev.set_cpu(self.owner_cpu());
        Ok(try_pin_init!(EventState { prog }? Error))
    }

    fn add(&self, event: &Event<Self>, flags: EventFlags) -> Result {
        let prog = &event.data().prog;
        let mut hw = self.hw.lock();
        let want = Self::masks_of(prog);
        if let (Some(w), Some(cur)) = (want, hw.masks) {
            if hw.mask_users > 0 && w != cur {
                // The sub-block counts with another agent mask right now;
                // perf retries this event at its next rotation.
                return Err(EAGAIN);
            }
        }
        let idx = hw.alloc.alloc().ok_or(EAGAIN)?;
        event.set_hw_idx(Some(idx));
        event.set_hw_state(HwStateBit::Stopped | HwStateBit::UpToDate);

        self.regs.write32(regs::evtyper(idx), prog.evtype);
        if let Some(w) = want {
            if hw.mask_users == 0 {
                if let Some(m0) = w.0 {
                    self.regs.write32(regs::PMAMR0, m0);
                }
                if let Some(m1) = w.1 {
                    self.regs.write32(regs::PMAMR1, m1);
                }
                hw.masks = Some(w);
            }
            // At most one per allocated counter: never saturates.
            hw.mask_users = hw.mask_users.saturating_add(1);
        }
        self.rearm(&mut hw, idx);
        self.regs.write32(regs::PMINTENSET, 1 << idx);
        if hw.should_count() {
            self.set_global_enable(&mut hw, true);
        }
        drop(hw);

        if flags.contains(EventFlag::Start) {
            self.start(event, EventFlag::Reload.into());
        }
        Ok(())
    }

    fn del(&self, event: &Event<Self>, _flags: EventFlags) {
        self.stop(event, EventFlag::Update.into());
        let Some(idx) = Self::event_idx(event) else {
            return;
        };
        let mut hw = self.hw.lock();
        self.regs.write32(regs::PMINTENCLR, 1 << idx);
        if Self::masks_of(&event.data().prog).is_some() {
            hw.mask_users = hw.mask_users.saturating_sub(1);
        }
        hw.alloc.free(idx);
        if let Some(c) = hw.counters.get_mut(idx) {
            *c = Counter::default();
        }
        if hw.alloc.used() == 0 {
            self.set_global_enable(&mut hw, false);
        }
        event.set_hw_idx(None);
    }

    fn start(&self, event: &Event<Self>, _flags: EventFlags) {
        let Some(idx) = Self::event_idx(event) else {
            return;
        };
        let mut hw = self.hw.lock();
        // A counter stopped without an update still holds counts: keep them
        // for the next read, then count from a fresh start value.
        if !event.hw_state().contains(HwStateBit::UpToDate) {
            let d = self.fold(&mut hw, idx);
            if let Some(c) = hw.counters.get_mut(idx) {
                c.pending = d;
            }
        }
        self.rearm(&mut hw, idx);
        event.set_hw_state(HwState::RUNNING);
        self.regs.write32(regs::PMCNTENSET, 1 << idx);
    }

    fn stop(&self, event: &Event<Self>, flags: EventFlags) {
        let Some(idx) = Self::event_idx(event) else {
            return;
        };
        let mut hw = self.hw.lock();
        let state = event.hw_state();
        if !state.contains(HwStateBit::Stopped) {
            self.regs.write32(regs::PMCNTENCLR, 1 << idx);
            event.set_hw_state(state | HwStateBit::Stopped);
        }
        if flags.contains(EventFlag::Update) && !event.hw_state().contains(HwStateBit::UpToDate) {
            let d = self.fold(&mut hw, idx);
            event.count_add(d);
            event.set_hw_state(event.hw_state() | HwStateBit::UpToDate);
        }
    }

    /// perf schedules a group (or rotates) between this and `pmu_enable`:
    /// the sub-block stops counting, so that its counters start and stop
    /// together (PMCR.E gates them all).
    fn pmu_disable(&self) {
        let mut hw = self.hw.lock();
        // Nested sections, a few per CPU: never saturates.
        hw.gated = hw.gated.saturating_add(1);
        self.set_global_enable(&mut hw, false);
    }

    fn pmu_enable(&self) {
        let mut hw = self.hw.lock();
        hw.gated = hw.gated.saturating_sub(1);
        if hw.should_count() {
            self.set_global_enable(&mut hw, true);
        }
    }

    /// A group is added, or read, with the sub-block stopped: its members
    /// start together, and their counts are of one instant (the sub-block
    /// does not count for the few register accesses a group read takes).
    fn start_txn(&self, _txn: Txn) {
        self.pmu_disable();
    }

    fn commit_txn(&self) -> Result {
        self.pmu_enable();
        Ok(())
    }

    fn cancel_txn(&self) {
        self.pmu_enable();
    }

    fn read(&self, event: &Event<Self, Reading>) {
        let Some(idx) = Self::event_idx(event) else {
            return;
        };
        if event.hw_state().contains(HwStateBit::UpToDate) {
            return;
        }
        let mut hw = self.hw.lock();
        let d = self.fold(&mut hw, idx);
        event.count_add(d);
    }
}
