// SPDX-License-Identifier: GPL-2.0

//! The overflow interrupt: the top-level status names the sub-block types
//! with an overflow; each of their sub-blocks folds its overflowed counters.

use crate::{block::Child, logic::hw::regs, probe::Shared};
use kernel::{
    irq::{Handler, IrqReturn},
    sync::Arc,
};

impl Child {
    /// Overflow interrupt of this sub-block: folds every overflowed counter
    /// into its pending count and restarts it. A sub-block with nothing
    /// pending keeps counting. Otherwise it is stopped and its status read
    /// again, so no counter overflows between the read and the clear (on v1
    /// the clear resets every status bit), and nothing is counted between a
    /// counter's read and its rewrite.
    pub(crate) fn handle_overflow(&self) -> bool {
        let mut hw = self.hw.lock();
        if self.overflow_status() == 0 {
            return false;
        }
        self.set_global_enable(false);
        // Status bits stay set until cleared: this is a superset of the first read.
        let status = self.overflow_status();
        self.clear_overflow(status);
        for idx in 0..self.layout.counters {
            if status & (1 << idx) == 0 || hw.alloc.used() & (1 << idx) == 0 {
                continue;
            }
            let d = self.fold(&mut hw, idx);
            hw.counters[idx].pending = d;
            self.rearm(&mut hw, idx);
        }
        if hw.alloc.used() != 0 {
            self.set_global_enable(true);
        }
        true
    }
}

/// The top-level interrupt: dispatches to the sub-blocks of each signalled
/// type.
pub(crate) struct Isr(pub(crate) Arc<Shared>);

impl Handler for Isr {
    fn handle(&self) -> IrqReturn {
        let s = &self.0;
        let status = s.pcp.read32(regs::INTSTATUS);
        let mut handled = false;
        for reg in s.pmus.iter() {
            let c = reg.driver();
            if status & s.version.int_source_mask(c.ty) != 0 {
                handled |= c.handle_overflow();
            }
        }
        if handled {
            IrqReturn::Handled
        } else {
            IrqReturn::None
        }
    }
}
