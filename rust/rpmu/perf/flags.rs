// SPDX-License-Identifier: GPL-2.0

//! Flag vocabularies of the perf interface: PMU capabilities
//! (`PERF_PMU_CAP_*`), the flags perf passes to `add`, `del`, `start` and
//! `stop` (`PERF_EF_*`), the driver's per-event hardware state
//! (`PERF_HES_*`), and the context a PMU's events live in.
//!
//! C header: [`include/linux/perf_event.h`](srctree/include/linux/perf_event.h)

use crate::rpmu::bindings;
use kernel::{ffi::c_int, impl_flags};

impl_flags!(
    /// PMU capabilities (`pmu::capabilities`).
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    pub struct Capabilities(u32);

    /// One PMU capability (`PERF_PMU_CAP_*`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Capability {
        /// The PMU raises no interrupt; sampling is driven by the driver.
        NoInterrupt = bindings::PERF_PMU_CAP_NO_INTERRUPT,
        /// The PMU cannot honour any `exclude_*` attribute; perf core
        /// refuses events that set one with `-EINVAL`.
        NoExclude = bindings::PERF_PMU_CAP_NO_EXCLUDE,
        /// At most one event of the PMU per context; perf core refuses a
        /// second with `-EBUSY`.
        Exclusive = bindings::PERF_PMU_CAP_EXCLUSIVE,
        /// The PMU writes an AUX area (instruction-trace style).
        Itrace = bindings::PERF_PMU_CAP_ITRACE,
    }
);

impl Capabilities {
    /// These capabilities and `cap`; usable in constants.
    pub const fn with(self, cap: Capability) -> Self {
        Self(self.0 | cap as u32)
    }

    /// Whether `cap` is among these; usable in constants.
    pub const fn has(self, cap: Capability) -> bool {
        self.0 & cap as u32 != 0
    }

    /// The raw `PERF_PMU_CAP_*` bits.
    pub(in crate::rpmu) const fn bits(self) -> u32 {
        self.0
    }
}

impl_flags!(
    /// Flags of `add`, `del`, `start` and `stop` (`PERF_EF_*`).
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    pub struct EventFlags(u32);

    /// One `PERF_EF_*` flag.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum EventFlag {
        /// `add`: start the event once added.
        Start = bindings::PERF_EF_START,
        /// `start`: reload the counter (the period may have changed).
        Reload = bindings::PERF_EF_RELOAD,
        /// `stop`: bring the count up to date.
        Update = bindings::PERF_EF_UPDATE,
    }
);

impl EventFlags {
    /// Keeps the `PERF_EF_*` bits perf passed that this type knows.
    pub(in crate::rpmu) fn from_raw(raw: c_int) -> Self {
        Self(raw as u32 & Self::all_bits())
    }
}

impl_flags!(
    /// The driver's state of an event on the hardware (`hw_perf_event::state`).
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    pub struct HwState(u32);

    /// One `PERF_HES_*` bit.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum HwStateBit {
        /// The event is not counting (`PERF_HES_STOPPED`).
        Stopped = bindings::PERF_HES_STOPPED,
        /// The event's count is current (`PERF_HES_UPTODATE`).
        UpToDate = bindings::PERF_HES_UPTODATE,
    }
);

impl HwState {
    /// Running and not yet read: no bit set.
    pub const RUNNING: Self = Self(0);

    /// Keeps the bits this type knows.
    pub(in crate::rpmu) fn from_raw(raw: c_int) -> Self {
        Self(raw as u32 & Self::all_bits())
    }

    /// The raw bits.
    pub(in crate::rpmu) fn raw(self) -> c_int {
        self.0 as c_int
    }
}

/// The perf event context a PMU's events live in (`pmu::task_ctx_nr`).
///
/// The software context (`perf_sw_context`) is not offered: perf calls
/// `event_init` of such a PMU without the group leader's context lock, so
/// [`EventInit::for_each_group_member`](super::EventInit::for_each_group_member)
/// could not walk the group safely.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TaskContext {
    /// CPU-wide only (`perf_invalid_context`): perf refuses per-task events
    /// before the driver sees them.
    Invalid,
    /// The hardware context (`perf_hw_context`): per-task events too.
    Hardware,
}

impl TaskContext {
    pub(in crate::rpmu) const fn raw(self) -> c_int {
        match self {
            TaskContext::Invalid => -1,
            TaskContext::Hardware => 0,
        }
    }
}
