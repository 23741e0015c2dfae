// SPDX-License-Identifier: GPL-2.0

//! The CPU that counts for a device: all its sub-blocks count on one CPU
//! (their `cpumask`), which CPU hotplug (`hotplug.rs`) moves, with the perf
//! contexts and the overflow interrupt.

use crate::rpmu::cpu::{self, CpuId};
use kernel::sync::atomic::{Atomic, Relaxed};

/// The CPU that counts for all sub-blocks of one device, shown in each PMU's
/// `cpumask`; moved by CPU hotplug.
pub(crate) struct Owner {
    cpu: Atomic<u32>,
}

impl Owner {
    /// An owner that starts on `cpu`.
    pub(crate) fn new(cpu: CpuId) -> Self {
        Self {
            cpu: Atomic::new(u32::from(cpu)),
        }
    }

    /// The owning CPU.
    pub(crate) fn cpu(&self) -> CpuId {
        // Only ever stored from a `CpuId`.
        CpuId::from_u32(self.cpu.load(Relaxed)).unwrap_or_else(cpu::first_online)
    }

    /// Makes `cpu` the owning CPU.
    pub(crate) fn set(&self, cpu: CpuId) {
        self.cpu.store(u32::from(cpu), Relaxed);
    }
}
