// SPDX-License-Identifier: GPL-2.0

//! KUnit cases of the register model, over plain memory.

use kernel::prelude::*;

#[kunit_tests(xgene_sim_model)]
mod tests {
    use crate::{
        kind::{amount, Cells, Kind},
        model::{Child, Choice, Fault, Model, Outcome, PmamrWidth, Readback, Step},
        regs::{INTMASK, INTSTATUS, PMAMR0, PMAMR1, PMCNTENCLR, PMCNTENSET, PMCR, PMCR_E},
        regs::{PMEVCNTR0, PMEVTYPER0, PMINTENCLR, PMINTENSET, PMOVSR},
    };
    use core::cell::Cell;
    use kernel::prelude::*;

    struct Mem([Cell<u32>; 0x1000 / 4]);

    impl Cells for &Mem {
        fn rd(&self, off: usize) -> u32 {
            self.0[off / 4].get()
        }
        fn wr(&self, off: usize, val: u32) {
            self.0[off / 4].set(val)
        }
    }

    fn mem() -> Result<KBox<Mem>> {
        let b = KBox::<Mem>::new_uninit(GFP_KERNEL | __GFP_ZERO)?;
        // SAFETY: Zeroed by `__GFP_ZERO`; a zero `Cell<u32>` is valid.
        Ok(unsafe { b.assume_init() })
    }

    /// A model of `version` over `top` with one child over `child`.
    fn model<'a>(
        version: u32,
        top: &'a Mem,
        kind: Kind,
        index: u32,
        child: &'a Mem,
    ) -> Result<Model<&'a Mem>> {
        let mut m = Model::new(version, top)?;
        m.children
            .push(Child::new(kind, index, 0, child), GFP_KERNEL)?;
        Ok(m)
    }

    /// A driver's store: into the cell first, then the model sees it.
    fn store<'a>(m: &mut Model<&'a Mem>, ci: usize, off: usize, val: u32) -> Outcome {
        let mut out = Outcome::default();
        m.children[ci].cells.wr(off, val);
        m.child_write(ci, off, val, &mut out);
        out
    }

    #[test]
    fn set_clear_read_back_the_enable_mask() -> Result {
        let (tb, cb) = (mem()?, mem()?);
        let (top, child) = (&*tb, &*cb);
        let mut m = model(2, top, Kind::L3c, 0, child)?;
        store(&mut m, 0, PMCNTENSET, 0b0101);
        assert_eq!(child.rd(PMCNTENSET), 0b0101);
        assert_eq!(child.rd(PMCNTENCLR), 0b0101);
        // Write 1 to clear: only bit 0 goes.
        let out = store(&mut m, 0, PMCNTENCLR, 0b0001);
        assert_eq!(m.children[0].cnten, 0b0100);
        assert_eq!(out.nended, 1);
        // A read-modify-write of CLR to clear bit 2 clears everything read.
        store(&mut m, 0, PMCNTENSET, 0b0001);
        let rmw = child.rd(PMCNTENCLR) | 0b0100;
        store(&mut m, 0, PMCNTENCLR, rmw);
        assert_eq!(m.children[0].cnten, 0);
        Ok(())
    }

    #[test]
    fn set_clear_read_zero_in_the_other_reading() -> Result {
        let (tb, cb) = (mem()?, mem()?);
        let (top, child) = (&*tb, &*cb);
        let mut m = model(2, top, Kind::L3c, 0, child)?;
        store(&mut m, 0, PMCNTENSET, 0b0101);
        m.set_readback(Readback::Zero);
        assert_eq!((child.rd(PMCNTENSET), child.rd(PMCNTENCLR)), (0, 0));
        // The same read-modify-write now clears only the bit it adds.
        let rmw = child.rd(PMCNTENCLR) | 0b0100;
        store(&mut m, 0, PMCNTENCLR, rmw);
        assert_eq!(m.children[0].cnten, 0b0001);
        m.set_readback(Readback::Mask);
        assert_eq!(child.rd(PMCNTENCLR), 0b0001);
        Ok(())
    }

    #[test]
    fn counts_wraps_and_interrupts() -> Result {
        let (tb, cb) = (mem()?, mem()?);
        let (top, child) = (&*tb, &*cb);
        let mut m = model(2, top, Kind::Mc, 2, child)?;
        store(&mut m, 0, PMEVTYPER0 + 4, 0x5);
        store(&mut m, 0, PMEVCNTR0 + 4, 0xFFFF_FFF0);
        store(&mut m, 0, PMCNTENSET, 0b10);
        store(&mut m, 0, PMINTENSET, 0b10);
        // Not counting without PMCR.E.
        assert!(!m.tick(1, 1, 0));
        assert_eq!(child.rd(4), 0xFFFF_FFF0);
        store(&mut m, 0, PMCR, PMCR_E);
        let inc = amount(Kind::Mc, 5, 0);
        // Masked at the top level: no line.
        top.wr(INTMASK, 0xF);
        m.top_write(INTMASK, 0xF, &mut Outcome::default());
        assert!(!m.tick(16, 1, 0));
        assert_eq!(
            u64::from(child.rd(4)),
            (0xFFFF_FFF0 + 16 * inc) & 0xFFFF_FFFF
        );
        assert_eq!(child.rd(PMOVSR), 0b10);
        assert_eq!(top.rd(INTSTATUS), 1 << 0);
        let mut out = Outcome::default();
        top.wr(INTMASK, 0xFFFF_FFF0);
        m.top_write(INTMASK, 0xFFFF_FFF0, &mut out);
        assert!(out.raise && m.line);
        // Write 1 to clear drops the line.
        store(&mut m, 0, PMOVSR, 0b10);
        assert!(!m.line);
        assert_eq!(top.rd(INTSTATUS), 0);
        assert_eq!(m.tally[0].count, 16 * inc);
        Ok(())
    }

    #[test]
    fn agent_masks_select_and_rekey() -> Result {
        let (tb, cb) = (mem()?, mem()?);
        let (top, child) = (&*tb, &*cb);
        let mut m = model(2, top, Kind::Iob, 0, child)?;
        store(&mut m, 0, PMCR, PMCR_E);
        store(&mut m, 0, PMEVTYPER0, 0x2);
        store(&mut m, 0, PMAMR0, 0);
        store(&mut m, 0, PMAMR1, 1 << 8);
        store(&mut m, 0, PMCNTENSET, 1);
        m.tick(1, 3, 0);
        assert_eq!(u64::from(child.rd(0)), 3 * amount(Kind::Iob, 2, 40));
        // A new mask while counting ends the session and starts another key.
        let out = store(&mut m, 0, PMAMR0, 1);
        assert_eq!(out.nended, 1);
        m.tick(1, 1, 0);
        assert_eq!(m.tally.len(), 2);
        assert_eq!(
            m.tally[1].count,
            amount(Kind::Iob, 2, 0) + amount(Kind::Iob, 2, 40)
        );
        assert_eq!(m.tally[1].key.m1, Some(1 << 8));
        Ok(())
    }

    #[test]
    fn injected_faults() -> Result {
        let (tb, cb) = (mem()?, mem()?);
        let (top, child) = (&*tb, &*cb);
        // X-Gene 1: one counter, a four-bit status register.
        let mut m = model(1, top, Kind::Mcb, 0, child)?;
        assert_eq!(m.child_by_name("mcb0"), Some(0));
        assert_eq!(m.child_by_name("mc0"), None);
        assert_eq!(Fault::parse("set", Some("0x2")), Some(Fault::Set(2)));
        assert_eq!(Fault::parse("hold", Some("16")), None);
        assert_eq!(Fault::parse("line", Some("1")), None);
        // A status bit past the counter asserts the source with no enable;
        // X-Gene 1's clear (write 0) clears it.
        assert!(m.inject(0, Fault::Set(0b10)));
        assert_eq!((child.rd(PMOVSR), top.rd(INTSTATUS)), (0b10, 1 << 1));
        store(&mut m, 0, PMOVSR, 0);
        assert!(!m.line);
        // A held bit survives the clear; within the counter, disabling its
        // interrupt quiets it.
        store(&mut m, 0, PMINTENSET, 1);
        m.inject(0, Fault::Hold(1));
        assert!(m.line);
        store(&mut m, 0, PMOVSR, 0);
        assert!(m.line && child.rd(PMOVSR) == 1);
        store(&mut m, 0, PMINTENCLR, 1);
        assert!(!m.line);
        // A held line: only INTMASK quiets it.
        m.inject(0, Fault::Line);
        assert!(m.line);
        top.wr(INTMASK, 1 << 1);
        m.top_write(INTMASK, 1 << 1, &mut Outcome::default());
        assert!(!m.line);
        m.inject(0, Fault::Off);
        assert_eq!(top.rd(INTSTATUS), 0);
        Ok(())
    }

    #[test]
    fn continuous_step_advances_on_read() -> Result {
        let (tb, cb) = (mem()?, mem()?);
        let (top, child) = (&*tb, &*cb);
        let mut m = model(2, top, Kind::Mc, 0, child)?;
        m.period_ns = 1000;
        store(&mut m, 0, PMCR, PMCR_E);
        store(&mut m, 0, PMEVTYPER0, 0x7);
        store(&mut m, 0, PMCNTENSET, 1);
        store(&mut m, 0, PMINTENSET, 1);
        let full = 1000 * amount(Kind::Mc, 7, 0);
        m.tick(1, 1000, 0);
        assert_eq!(u64::from(child.rd(0)), full);
        // `tick`: a read between ticks changes nothing.
        assert!(!m.advance(0, 1000, 400));
        assert_eq!(u64::from(child.rd(0)), full);
        // `continuous`: 40% of the period, then 100% (capped), then the tick
        // adds only what is left of the period.
        m.step = Step::Continuous;
        m.advance(0, 1000, 400);
        assert_eq!(u64::from(child.rd(0)), full + full * 4 / 10);
        m.advance(0, 1000, 5000);
        assert_eq!(u64::from(child.rd(0)), 2 * full);
        m.tick(1, 1000, 1000);
        assert_eq!(u64::from(child.rd(0)), 2 * full);
        assert_eq!((m.tally[0].count, m.tally[0].periods), (2 * full, 2));
        // A wrap inside a period, seen by a read: status and line at once.
        store(&mut m, 0, PMEVCNTR0, 0xFFFF_FFFF - (full / 2) as u32);
        assert!(m.advance(0, 1000, 1600));
        assert_eq!(child.rd(PMOVSR), 1);
        assert_eq!(Step::parse("continuous"), Some(Step::Continuous));
        Ok(())
    }

    #[test]
    fn pmamr_width_full_counts_agents_past_the_field() -> Result {
        let (tb, cb) = (mem()?, mem()?);
        let (top, child) = (&*tb, &*cb);
        let mut m = model(2, top, Kind::L3c, 0, child)?;
        store(&mut m, 0, PMCR, PMCR_E);
        store(&mut m, 0, PMEVTYPER0, 0x3);
        store(&mut m, 0, PMAMR0, 1 | 1 << 20);
        store(&mut m, 0, PMCNTENSET, 1);
        m.tick(1, 1, 0);
        assert_eq!(u64::from(child.rd(0)), amount(Kind::L3c, 3, 0));
        assert_eq!(m.tally[0].key.m0, Some(1));
        // The other reading: agent 20 exists; the session is rekeyed.
        let mut out = Outcome::default();
        m.set_pmamr(PmamrWidth::Full, &mut out);
        assert_eq!(out.nended, 1);
        m.tick(1, 1, 0);
        assert_eq!(m.tally[1].key.m0, Some(1 | 1 << 20));
        assert_eq!(
            m.tally[1].count,
            amount(Kind::L3c, 3, 0) + amount(Kind::L3c, 3, 20)
        );
        assert_eq!(PmamrWidth::Full.name(), "full");
        Ok(())
    }
}
