// SPDX-License-Identifier: GPL-2.0

//! The overflow interrupt: the top-level status names the sub-block types
//! with an overflow; each of their sub-blocks folds its overflowed counters.
//! A source that stays asserted with nothing to fold (a stuck status bit, or
//! a sub-block without a PMU) is masked rather than left to hold the line
//! high, which would make the kernel disable the interrupt and end overflow
//! handling for every PMU of the device without a word.

use crate::{
    device::Shared,
    logic::hw::regs,
    rpmu::irq::{Handler, IrqReturn},
};
use kernel::{
    pr_warn_once,
    sync::{atomic::Relaxed, Arc},
};

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
