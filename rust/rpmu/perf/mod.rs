// SPDX-License-Identifier: GPL-2.0

//! Performance monitoring units (`struct pmu`).
//!
//! C header: [`include/linux/perf_event.h`](srctree/include/linux/perf_event.h)
//!
//! A driver implements [`PmuDriver`] and creates a [`Registration`], which
//! registers the PMU with perf on creation and unregisters it on drop. Perf
//! calls into the driver through [`PmuDriver`]'s associated functions, which
//! receive an [`Event`] and never a raw pointer.
//!
//! # Event lifecycle
//!
//! ```text
//!                 perf_event_open()
//!                        |
//!                        v
//!                   event_init ----(Err)----> refused; nothing to drop
//!                        | Ok: EventData created
//!                        v
//!        +------------> add -----(Err)------> perf retries at the next
//!        |               | (START: start)      rotation of the context
//!        |               v
//!        |     +----> start <----------+
//!        |     |         |             |       timer() may run between
//!        |     |         v             |       start and stop, on the
//!        |     +------ stop -----------+       event's CPU (hard IRQ)
//!        |               |
//!        +-------------- del  (stop first, with UPDATE)
//!                        |
//!                        v
//!                  event_destroy ----> EventData dropped
//!
//!   setup_aux: when user space maps the AUX area (process context), at any
//!              point after event_init; AuxData created.
//!   free_aux:  when the last mapping of the AUX area goes, which may be after
//!              the event was destroyed and after the Registration was
//!              dropped: AuxData dropped. The module stays loaded until then.
//!   pmu_enable/pmu_disable: around perf's scheduling of a group (CPU of the
//!              context, interrupts off).
//!   start_txn .. commit_txn (or cancel_txn): around adding or reading a
//!              group as one (CPU of the context, interrupts off).
//! ```
//!
//! `add`, `del`, `start`, `stop`, `read`, the
//! `pmu_enable`/`pmu_disable` pair and the transaction callbacks run with
//! interrupts disabled and perf's raw context lock held: a lock they take
//! must be a raw spinlock, and one taken only there, in interrupt handlers
//! and in hard-mode timer callbacks need not disable interrupts itself
//! ([`crate::rpmu::sync::RawSpinLock`]).

pub mod attrs;
crate::no_panic! {
    pub mod aux;
    mod aux_output;
    mod aux_window;
    mod callbacks;
}
mod driver;
crate::no_panic! {
    mod event;
}
mod event_init;
mod flags;
mod module_pin;
mod registration;

pub use attrs::{AttrGroup, AttrValue, SysfsWriter};
pub use aux::{AuxBuffer, AuxFlags};
pub use aux_output::AuxOutput;
pub use aux_window::AuxWindow;
pub use driver::{PmuDriver, TimerRestart, Txn};
pub use event::{Context, Event, OnEventCpu, Process, Reading, Scheduled, MIN_TIMER_PERIOD};
pub use event_init::{EventInit, GroupMember};
pub use flags::{
    Capabilities, Capability, EventFlag, EventFlags, HwState, HwStateBit, TaskContext,
};
pub use registration::Registration;
