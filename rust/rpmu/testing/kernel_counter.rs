// SPDX-License-Identifier: GPL-2.0

//! In-kernel perf events (`perf_event_create_kernel_counter`): an event
//! owned by kernel code rather than a file descriptor. Used to drive a PMU
//! from inside the kernel, e.g. by KUnit tests of a driver.
//!
//! C header: [`include/linux/perf_event.h`](srctree/include/linux/perf_event.h)

use crate::rpmu::{bindings, cpu::CpuId};
use core::ptr::NonNull;
use kernel::{error::from_err_ptr, prelude::*};

/// A counting event created in the kernel; released on drop.
///
/// # Invariants
///
/// `ptr` was returned by `perf_event_create_kernel_counter` and not yet
/// released.
pub struct KernelCounter {
    ptr: NonNull<bindings::perf_event>,
}

// SAFETY: The event is only used through perf core functions, which take
// the locks they need.
unsafe impl Send for KernelCounter {}
// SAFETY: As above.
unsafe impl Sync for KernelCounter {}

impl KernelCounter {
    /// Opens an enabled counting event of PMU type `pmu_type` with `config`
    /// on `cpu`. Errors are what the PMU's `event_init` (or perf core)
    /// returned.
    pub fn new(pmu_type: u32, config: u64, cpu: CpuId) -> Result<Self> {
        Self::open(pmu_type, config, Some(cpu), |_| {})
    }

    /// As [`Self::new`], with `exclude_user` set.
    pub fn new_excluding_user(pmu_type: u32, config: u64, cpu: CpuId) -> Result<Self> {
        Self::open(pmu_type, config, Some(cpu), |a| a.set_exclude_user(1))
    }

    /// As [`Self::new`], with `inherit` set (which a CPU-wide event may
    /// carry: `perf record -a` sets it).
    pub fn new_inherited(pmu_type: u32, config: u64, cpu: CpuId) -> Result<Self> {
        Self::open(pmu_type, config, Some(cpu), |a| a.set_inherit(1))
    }

    /// Opens an enabled counting event that follows the current task on any
    /// CPU, and that its children inherit if `inherit`.
    pub fn new_on_current_task(pmu_type: u32, config: u64, inherit: bool) -> Result<Self> {
        Self::open(pmu_type, config, None, |a| {
            a.set_inherit(u64::from(inherit))
        })
    }

    fn open(
        pmu_type: u32,
        config: u64,
        cpu: Option<CpuId>,
        set: impl FnOnce(&mut bindings::perf_event_attr),
    ) -> Result<Self> {
        let mut attr = bindings::perf_event_attr {
            type_: pmu_type,
            size: core::mem::size_of::<bindings::perf_event_attr>() as u32,
            config,
            ..Default::default()
        };
        set(&mut attr);
        // A CPU-wide event has no task; a per-task one is on CPU -1.
        let (cpu, task) = match cpu {
            Some(cpu) => (i32::from(cpu), core::ptr::null_mut()),
            None => (-1, kernel::task::Task::current_raw().cast()),
        };
        // SAFETY: `attr` is a valid attribute that perf copies; `task` is
        // null or the current task, which outlives this call (perf takes
        // its own reference); no overflow handler.
        let p = unsafe {
            bindings::perf_event_create_kernel_counter(
                &mut attr,
                cpu,
                task,
                None,
                core::ptr::null_mut(),
            )
        };
        let p = from_err_ptr(p)?;
        // INVARIANT: created above.
        Ok(Self {
            ptr: NonNull::new(p).ok_or(EINVAL)?,
        })
    }

    /// Disables the event (`perf_event_disable`): perf stops it (`stop`)
    /// and takes it off the PMU.
    pub fn disable(&self) {
        // SAFETY: The event is live (invariant); perf takes its own locks.
        unsafe { bindings::perf_event_disable(self.ptr.as_ptr()) }
    }

    /// Reads the event's value (`perf_event_read_value`), which asks the PMU
    /// to update it first when the event is active.
    pub fn read(&self) -> u64 {
        let (mut enabled, mut running) = (0u64, 0u64);
        // SAFETY: The event is live (invariant).
        unsafe { bindings::perf_event_read_value(self.ptr.as_ptr(), &mut enabled, &mut running) }
    }
}

impl Drop for KernelCounter {
    fn drop(&mut self) {
        // SAFETY: Created by us and released once, here.
        unsafe { bindings::perf_event_release_kernel(self.ptr.as_ptr()) };
    }
}
