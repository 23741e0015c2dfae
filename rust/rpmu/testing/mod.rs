// SPDX-License-Identifier: GPL-2.0

//! Test support: in-kernel perf events and CPU hotplug control, for the
//! project's KUnit and simulator modules. Never included by a driver; a test
//! module includes it next to the library:
//!
//! ```ignore
//! #[path = "../../rust/rpmu/mod.rs"]
//! pub mod rpmu;
//! #[path = "../../rust/rpmu/testing/mod.rs"]
//! pub mod rpmu_testing;
//! ```
//!
//! and sets `rpmu-testing := y` in its Kbuild (see `rust/rpmu.mk`).

pub mod kernel_counter;

use crate::rpmu::{bindings, cpu::CpuId};
use kernel::prelude::*;

/// Takes `cpu` offline (`remove_cpu`), running every state's teardown.
pub fn cpu_down(cpu: CpuId) -> Result {
    // SAFETY: `cpu` is a valid CPU number; `remove_cpu` takes the hotplug
    // lock itself.
    kernel::error::to_result(unsafe { bindings::remove_cpu(u32::from(cpu)) })
}

/// Brings `cpu` online (`add_cpu`).
pub fn cpu_up(cpu: CpuId) -> Result {
    // SAFETY: As for `cpu_down`.
    kernel::error::to_result(unsafe { bindings::add_cpu(u32::from(cpu)) })
}

/// Whether interrupts are disabled on this CPU (`irqs_disabled()`).
pub fn irqs_disabled() -> bool {
    // SAFETY: Reads this CPU's interrupt state; no preconditions.
    unsafe { bindings::rpmu_irqs_disabled() }
}
