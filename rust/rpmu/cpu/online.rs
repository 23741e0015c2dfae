// SPDX-License-Identifier: GPL-2.0

//! The online and possible CPU masks, read one CPU at a time.
//!
//! C header: [`include/linux/cpumask.h`](srctree/include/linux/cpumask.h)

use crate::rpmu::bindings;
use kernel::cpu::CpuId;

/// Whether `cpu` is online.
pub fn is_online(cpu: CpuId) -> bool {
    // SAFETY: `cpu` is below `nr_cpu_ids` (`CpuId` invariant), so the mask
    // lookup stays in bounds.
    unsafe { bindings::rpmu_cpu_online(i32::from(cpu)) }
}

/// Whether `cpu` is possible: it has per-CPU data (a `paca`, an `lppaca`
/// on pseries) for the kernel's lifetime. Numbers below `nr_cpu_ids` need
/// not all be possible.
pub fn is_possible(cpu: CpuId) -> bool {
    // SAFETY: `cpu` is below `nr_cpu_ids` (`CpuId` invariant), so the mask
    // lookup stays in bounds.
    unsafe { bindings::rpmu_cpu_possible(i32::from(cpu)) }
}

/// An online CPU other than `cpu`, if any.
pub fn other_online(cpu: CpuId) -> Option<CpuId> {
    // SAFETY: Reads the online mask; `cpu` is a valid CPU number.
    let other = unsafe { bindings::rpmu_first_online_cpu_except(u32::from(cpu)) };
    CpuId::from_u32(other)
}

/// The lowest-numbered online CPU.
pub fn first_online() -> CpuId {
    // SAFETY: Reads the online mask; no preconditions.
    let first = unsafe { bindings::rpmu_first_online_cpu() };
    // The CPU running this is online, so the mask is never empty.
    CpuId::from_u32(first).unwrap_or_else(CpuId::current)
}
