// SPDX-License-Identifier: GPL-2.0

//! Entry counts: an event's, and the PMU's totals since the module was
//! loaded, kept per CPU.
//!
//! A poll runs on its event's CPU and adds to the event's counts and to that
//! CPU's totals only, so no cache line of the poll path is written by two
//! CPUs; `stats/` sums the CPUs' totals when it is read.

use crate::poll::Outcome;
use kernel::{
    cpu::CpuId,
    prelude::*,
    sync::atomic::{Atomic, Relaxed},
};

/// Cumulative entry counts.
pub(crate) struct Stats {
    pub(crate) captured: Atomic<u64>,
    pub(crate) lost_overrun: Atomic<u64>,
    pub(crate) lost_aux_full: Atomic<u64>,
    /// Logged while another DTL user held the CPU's log (an upper bound:
    /// that user's kinds may differ).
    pub(crate) lost_foreign: Atomic<u64>,
    /// Entries of kinds only the kernel's own reader asked for (shared
    /// ring): not the event's, so neither captured nor lost.
    pub(crate) filtered: Atomic<u64>,
    /// Events that lost the CPU's log to another DTL user.
    pub(crate) displaced: Atomic<u64>,
    /// Of `lost_overrun`: entries overwritten while a poll copied them.
    pub(crate) torn: Atomic<u64>,
}

impl Stats {
    /// All counts zero.
    pub(crate) const fn new() -> Self {
        Self {
            captured: Atomic::new(0),
            lost_overrun: Atomic::new(0),
            lost_aux_full: Atomic::new(0),
            lost_foreign: Atomic::new(0),
            filtered: Atomic::new(0),
            displaced: Atomic::new(0),
            torn: Atomic::new(0),
        }
    }

    /// Adds what a poll found (an atomic operation only for the figures
    /// that are not zero: a poll usually loses nothing).
    #[inline]
    pub(crate) fn record(&self, o: &Outcome) {
        add(&self.captured, o.captured);
        add(&self.lost_overrun, o.lost_overrun);
        add(&self.lost_aux_full, o.lost_aux_full);
        add(&self.lost_foreign, o.lost_foreign);
        add(&self.filtered, o.filtered);
        add(&self.torn, o.torn);
        add(&self.displaced, u64::from(o.displaced));
    }

    /// Entries lost so far, for whatever reason (an event's value).
    pub(crate) fn lost(&self) -> u64 {
        self.lost_overrun
            .load(Relaxed)
            .wrapping_add(self.lost_aux_full.load(Relaxed))
            .wrapping_add(self.lost_foreign.load(Relaxed))
    }
}

/// Adds `n` to `count` unless it is zero.
#[inline]
fn add(count: &Atomic<u64>, n: u64) {
    if n > 0 {
        count.add(n, Relaxed);
    }
}

/// One CPU's totals, alone in its cache line (128 bytes on POWER).
#[repr(C, align(128))]
struct CpuTotals(Stats);

/// The PMU's totals since the module was loaded: one [`Stats`] per CPU.
pub(crate) struct Totals(KVec<CpuTotals>);

impl Totals {
    /// Zero totals for every CPU number (`nr_cpu_ids`).
    pub(crate) fn new() -> Result<Self> {
        let n = kernel::cpu::nr_cpu_ids() as usize;
        let mut v = KVec::with_capacity(n, GFP_KERNEL)?;
        for _ in 0..n {
            v.push(CpuTotals(Stats::new()), GFP_KERNEL)?;
        }
        Ok(Self(v))
    }

    /// Adds what a poll on `cpu` found to that CPU's totals.
    pub(crate) fn record(&self, cpu: CpuId, o: &Outcome) {
        // One slot per CPU number below `nr_cpu_ids` (`CpuId` invariant).
        if let Some(t) = self.0.get(u32::from(cpu) as usize) {
            t.0.record(o);
        }
    }

    /// The sum over the CPUs of the count `field` picks.
    pub(crate) fn sum(&self, field: impl Fn(&Stats) -> &Atomic<u64>) -> u64 {
        self.0
            .iter()
            .fold(0u64, |n, t| n.wrapping_add(field(&t.0).load(Relaxed)))
    }
}
