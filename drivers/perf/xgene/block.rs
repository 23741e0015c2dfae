// SPDX-License-Identifier: GPL-2.0

//! One sub-block (L3C, IOB, IOB-slow, MCB or MC instance): its registers and
//! the software state of its counters, and its share of the overflow
//! interrupt (`overflow.rs` dispatches to it). Each sub-block is a perf PMU
//! of its own (`pmu.rs`).

use crate::{
    logic::{
        counter::{self, Allocator},
        events::Identifier,
        hw::{
            regs::{self, pmcr},
            Layout, OvsClear, PmuType, Version, MAX_COUNTERS,
        },
    },
    owner::Owner,
    rpmu::{
        cpu::CpuId,
        io::Mmio,
        sync::{new_raw_spinlock, RawSpinLock},
    },
};
use kernel::{prelude::*, sync::Arc};

/// Software state of one hardware counter.
#[derive(Clone, Copy, Default)]
pub(crate) struct Counter {
    /// Counter value at the last fold into perf's count.
    pub(crate) prev: u64,
    /// Counts folded by the overflow handler, not yet given to perf.
    pub(crate) pending: u64,
}

/// What the sub-block's counters are programmed with; protected by
/// [`Child::hw`].
pub(crate) struct Programmed {
    pub(crate) alloc: Allocator,
    pub(crate) counters: [Counter; MAX_COUNTERS],
    /// The agent masks in force (PMAMR0/1 are shared by all counters of a
    /// sub-block) and how many allocated counters rely on them.
    pub(crate) masks: Option<(Option<u32>, Option<u32>)>,
    pub(crate) mask_users: u32,
    /// Open `pmu_disable` sections (perf counts them per CPU; an uncore PMU
    /// may see more than one CPU's): the sub-block does not count while
    /// any is open.
    pub(crate) gated: u32,
    /// PMCR as last written: its other bits (P clear), and whether E is
    /// set. Only the driver writes PMCR, so it is never read back.
    pub(crate) pmcr: u32,
}

impl Programmed {
    /// Whether the sub-block should count: a counter in use and no
    /// `pmu_disable` section open.
    pub(crate) fn should_count(&self) -> bool {
        self.alloc.used() != 0 && self.gated == 0
    }
}

/// What one sub-block's overflow handler found.
#[derive(Clone, Copy, Default)]
pub(crate) struct Serviced {
    /// The overflow status bits found set, and cleared.
    pub(crate) found: u32,
    /// Those still set after the clear, with counting stopped: stuck. Their
    /// interrupt is disabled (PMINTENCLR).
    pub(crate) stuck: u32,
}

/// One sub-block: a perf PMU.
#[pin_data]
pub(crate) struct Child {
    pub(crate) ty: PmuType,
    pub(crate) version: Version,
    pub(crate) layout: &'static Layout,
    pub(crate) regs: Mmio,
    pub(crate) owner: Arc<Owner>,
    /// Taken by the PMU callbacks and the overflow handler (requested
    /// `NO_THREAD`), which all run with interrupts disabled.
    #[pin]
    pub(crate) hw: RawSpinLock<Programmed>,
}

impl Child {
    pub(crate) fn new(
        ty: PmuType,
        version: Version,
        regs: Mmio,
        owner: Arc<Owner>,
    ) -> impl PinInit<Self, Error> {
        let layout = version.layout();
        // `reset_block` left E clear; the other bits are kept as they are.
        let pmcr = pmcr::P.set(pmcr::E.set(regs.read32(regs::PMCR), false), false);
        try_pin_init!(Self {
            ty,
            version,
            layout,
            regs,
            owner,
            hw <- new_raw_spinlock!(
                Programmed {
                    alloc: Allocator::new(layout.counters),
                    counters: [Counter::default(); MAX_COUNTERS],
                    masks: None,
                    mask_users: 0,
                    gated: 0,
                    pmcr,
                },
                "xgene_pmu_hw"
            ),
        }? Error)
    }

    /// Its sysfs `identifier`.
    pub(crate) fn identifier(&self) -> Identifier {
        Identifier(self.version, self.ty)
    }

    /// The CPU this sub-block counts on (its `cpumask`).
    pub(crate) fn owner_cpu(&self) -> CpuId {
        self.owner.cpu()
    }

    /// Sets or clears PMCR.E, which gates every counter of the sub-block;
    /// writes only on a change.
    pub(crate) fn set_global_enable(&self, hw: &mut Programmed, on: bool) {
        let new = pmcr::E.set(hw.pmcr, on);
        if new != hw.pmcr {
            self.regs.write32(regs::PMCR, new);
            hw.pmcr = new;
        }
    }

    /// The overflow status, as wide as the register ([`regs::OVS_STATUS_MASK`]).
    pub(crate) fn overflow_status(&self) -> u32 {
        self.regs.read32(self.layout.ovs_status) & regs::OVS_STATUS_MASK
    }

    /// Stops overflow status `bits` from raising the interrupt.
    pub(crate) fn disable_overflow_interrupts(&self, bits: u32) {
        self.regs.write32(regs::PMINTENCLR, bits);
    }

    pub(crate) fn clear_overflow(&self, bits: u32) {
        clear_overflow(&self.regs, self.layout, bits)
    }

    fn read_counter(&self, idx: usize) -> u64 {
        if self.layout.wide_counters {
            return self.read_wide_counter(idx);
        }
        u64::from(self.regs.read32(regs::counter_lo(self.version, idx)))
    }

    /// A 64-bit counter (v3), read as two halves: re-read until the high
    /// half did not change across the low read. Out of line, so that the
    /// 32-bit read of v1 and v2 keeps a small frame.
    #[inline(never)]
    fn read_wide_counter(&self, idx: usize) -> u64 {
        let lo = regs::counter_lo(self.version, idx);
        let Some(hi) = regs::counter_hi(self.version, idx) else {
            return u64::from(self.regs.read32(lo));
        };
        loop {
            let h1 = self.regs.read32(hi);
            let l = self.regs.read32(lo);
            let h2 = self.regs.read32(hi);
            if h1 == h2 {
                break (u64::from(h1) << 32) | u64::from(l);
            }
        }
    }

    fn write_counter(&self, idx: usize, value: u64) {
        self.regs
            .write32(regs::counter_lo(self.version, idx), value as u32);
        if let Some(hi) = regs::counter_hi(self.version, idx) {
            self.regs.write32(hi, (value >> 32) as u32);
        }
    }

    /// Folds what counter `idx` counted since the last fold; returns it.
    pub(crate) fn fold(&self, hw: &mut Programmed, idx: usize) -> u64 {
        let Some(c) = hw.counters.get_mut(idx) else {
            return 0;
        };
        let now = self.read_counter(idx);
        // Wraps as the event's count does: a counter that reads below its
        // previous value must not stop the kernel.
        let delta = counter::delta(c.prev, now, self.layout.counter_mask).wrapping_add(c.pending);
        c.prev = now;
        c.pending = 0;
        delta
    }

    /// Restarts counter `idx` from the start value, so the next overflow is
    /// a known distance away.
    pub(crate) fn rearm(&self, hw: &mut Programmed, idx: usize) {
        let start = counter::start_value(self.version);
        self.write_counter(idx, start);
        if let Some(c) = hw.counters.get_mut(idx) {
            c.prev = start;
        }
    }

    /// Overflow interrupt of this sub-block: folds every overflowed counter
    /// into its pending count and restarts it. A sub-block with nothing
    /// pending keeps counting. Otherwise it is stopped and its status read
    /// again, so no counter overflows between the read and the clear (on v1
    /// the clear resets every status bit), and nothing is counted between a
    /// counter's read and its rewrite. A bit that survives the clear while
    /// counting is stopped is not an overflow: its interrupt is disabled.
    pub(crate) fn handle_overflow(&self) -> Serviced {
        let mut hw = self.hw.lock();
        if self.overflow_status() == 0 {
            return Serviced::default();
        }
        self.set_global_enable(&mut hw, false);
        // Status bits stay set until cleared: this is a superset of the first read.
        let status = self.overflow_status();
        self.clear_overflow(status);
        for idx in 0..self.layout.counters {
            if status & (1 << idx) == 0 || hw.alloc.used() & (1 << idx) == 0 {
                continue;
            }
            let d = self.fold(&mut hw, idx);
            if let Some(c) = hw.counters.get_mut(idx) {
                c.pending = d;
            }
            self.rearm(&mut hw, idx);
        }
        let stuck = self.overflow_status();
        if stuck != 0 {
            self.disable_overflow_interrupts(stuck);
        }
        if hw.should_count() {
            self.set_global_enable(&mut hw, true);
        }
        Serviced {
            found: status,
            stuck,
        }
    }
}

/// Clears overflow status `bits` of a sub-block.
fn clear_overflow(regs: &Mmio, layout: &Layout, bits: u32) {
    match layout.ovs_clear_kind {
        // v1: the status register is cleared by writing zero.
        OvsClear::WriteZero => regs.write32(layout.ovs_clear, 0),
        // v2 (write 1 to clear at PMOVSR), v3 (PMOVSCLR).
        OvsClear::WriteStatus | OvsClear::WriteStatusToClr => regs.write32(layout.ovs_clear, bits),
    }
}

/// Stops and clears a sub-block, as it must be before its PMU is registered:
/// global enable off, counters reset, no counter or interrupt enabled, no
/// overflow pending (every status bit, not only the counters').
pub(crate) fn reset_block(r: &Mmio, layout: &Layout) {
    // `(1 << counters) - 1` for the 1 or 4 counters of every layout,
    // without a shift or subtraction that could overflow.
    let all = layout.status_bits();
    let old = r.read32(regs::PMCR);
    r.write32(regs::PMCR, pmcr::P.set(pmcr::E.set(old, false), true));
    r.write32(regs::PMCNTENCLR, all);
    r.write32(regs::PMINTENCLR, regs::OVS_STATUS_MASK);
    let pending = r.read32(layout.ovs_status) & regs::OVS_STATUS_MASK;
    if pending != 0 {
        clear_overflow(r, layout, pending);
    }
}
