// SPDX-License-Identifier: GPL-2.0

//! The overflow interrupt: the top-level status names the sub-block types
//! with an overflow; each of their sub-blocks folds its overflowed counters.
//! A source that stays asserted with nothing to fold (a stuck status bit, or
//! a sub-block without a PMU) is masked rather than left to hold the line
//! high, which would make the kernel disable the interrupt and end overflow
//! handling for every PMU of the device without a word.

use crate::{
    block::Child,
    logic::hw::regs,
    probe::Shared,
    rpmu::irq::{Handler, IrqReturn},
};
use kernel::{
    pr_warn_once,
    sync::{atomic::Relaxed, Arc},
};

/// What one sub-block's overflow handler found.
#[derive(Clone, Copy, Default)]
pub(crate) struct Serviced {
    /// The overflow status bits found set, and cleared.
    pub(crate) found: u32,
    /// Those still set after the clear, with counting stopped: stuck. Their
    /// interrupt is disabled (PMINTENCLR).
    pub(crate) stuck: u32,
}

impl Child {
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

/// The top-level interrupt: dispatches to the sub-blocks of each signalled
/// type.
pub(crate) struct Isr(pub(crate) Arc<Shared>);

impl Handler for Isr {
    fn handle(&self) -> IrqReturn {
        let s = &self.0;
        let unmasked = s.unmasked.load(Relaxed);
        let status = s.pcp.read32(regs::INTSTATUS) & unmasked;
        if status == 0 {
            return IrqReturn::None;
        }
        // The sources for which a sub-block had an overflow to fold.
        let mut live = 0;
        for reg in s.pmus.iter() {
            let c = reg.driver();
            let source = s.version.int_source_mask(c.ty);
            if status & source == 0 {
                continue;
            }
            let o = c.handle_overflow();
            if o.stuck != 0 {
                pr_warn_once!(
                    "{} at {:#x}: overflow status {:#x} stays set when cleared; its interrupt is disabled\n",
                    c.ty.prefix(),
                    c.regs.window().start,
                    o.stuck
                );
            }
            if o.found & !o.stuck != 0 {
                live |= source;
            }
        }
        // A source still asserted although nothing of it was left to fold,
        // in two interrupts in a row (a new overflow right after a spurious
        // interrupt is not taken for a stuck source), is masked.
        let left = s.pcp.read32(regs::INTSTATUS) & status & !live;
        let stuck = left & s.suspect.load(Relaxed);
        s.suspect.store(left, Relaxed);
        if stuck != 0 {
            let now = unmasked & !stuck;
            s.unmasked.store(now, Relaxed);
            s.pcp.write32(regs::INTMASK, !now);
            pr_warn_once!(
                "interrupt sources {:#x} stay asserted with no overflow to handle; masked\n",
                stuck
            );
        }
        IrqReturn::Handled
    }
}
