// SPDX-License-Identifier: GPL-2.0

//! The per-module, per-CPU claim on a CPU's DTL: a CPU has one log, so one
//! [`super::DtlBuffer`] of a module at a time; and the claim that keeps a
//! buffer's registration and deregistration apart.

use kernel::{
    cpu::CpuId,
    prelude::*,
    sync::atomic::{Acquire, Atomic, Release},
};

/// Upper bound of `nr_cpu_ids` on powerpc (its largest `CONFIG_NR_CPUS`).
pub const MAX_CPUS: usize = 8192;

/// `CLAIMED[cpu]`: a [`super::DtlBuffer`] of this module exists for that
/// CPU.
static CLAIMED: [Atomic<bool>; MAX_CPUS] = [const { Atomic::new(false) }; MAX_CPUS];

/// The exclusive claim of one CPU's DTL within this module; released when
/// dropped.
///
/// # Invariants
///
/// `CLAIMED[cpu]` was set by [`Claim::take`] and is cleared only by `drop`.
pub(super) struct Claim(usize);

impl Claim {
    /// Claims `cpu`, or fails with `EBUSY` if this module has it already.
    pub(super) fn take(cpu: CpuId) -> Result<Self> {
        let i = u32::from(cpu) as usize;
        let slot = CLAIMED.get(i).ok_or(EINVAL)?;
        slot.cmpxchg(false, true, kernel::sync::atomic::Full)
            .map_err(|_| EBUSY)?;
        // INVARIANT: set above.
        Ok(Claim(i))
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        if let Some(slot) = CLAIMED.get(self.0) {
            slot.store(false, Release);
        }
    }
}

/// A claim on a buffer's `changing` flag (`register` and `unregister`
/// exclude each other), released on drop.
pub(super) struct Changing<'a>(&'a Atomic<bool>);

impl<'a> Changing<'a> {
    /// Sets the flag; `None` if it was set already.
    pub(super) fn claim(flag: &'a Atomic<bool>) -> Option<Self> {
        (!flag.xchg(true, Acquire)).then_some(Self(flag))
    }
}

impl Drop for Changing<'_> {
    fn drop(&mut self) {
        self.0.store(false, Release);
    }
}
