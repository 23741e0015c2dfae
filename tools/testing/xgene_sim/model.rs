// SPDX-License-Identifier: GPL-2.0

//! The register model of the simulated X-Gene PMU silicon: plain logic over a
//! register file ([`Cells`]), with no knowledge of where the registers live
//! or of any driver. `xgene_sim_main.rs` feeds it the stores it sees through
//! the MMIO tracepoints and the ticks of its timer, under one lock.
//!
//! Register semantics (drivers/perf/xgene/NOTES.md, sections 3 and 4):
//!
//! * PMCR: `E` (bit 0) enables counting; `P` (bit 1) zeroes every counter and
//!   reads back as 0 (self-clearing).
//! * PMCNTENSET/PMCNTENCLR and PMINTENSET/PMINTENCLR: write 1 to set / write 1
//!   to clear; *both registers of a pair read back the current enable mask*,
//!   as the ARM PMU's PMCNTENSET_EL0/PMCNTENCLR_EL0 do. Consequence: a driver
//!   that clears bit `i` by read-modify-write of a CLR register (the upstream
//!   C driver does, xgene_pmu.c `xgene_pmu_disable_counter{,_int}`) writes
//!   back every enabled bit and so disables *every* counter (interrupt) of
//!   that PMU, not just `i`. The model does not hide that; the e2e harness
//!   measures it. The documentation does not settle this read-back, so it is
//!   a model parameter ([`Readback`]): the other reading has the SET/CLR
//!   registers read 0, under which the read-modify-write is harmless.
//! * PMEVTYPERn: event code. PMAMR0/PMAMR1: agent masks, a set bit means the
//!   agent is counted; PMAMR1 exists on IOB only; v3 has no agent masks.
//! * PMEVCNTRn: 32 bits on v1/v2 (v1 has one counter, v2 four); on v3 64 bits
//!   as a low word at `8n` and a high word at `8n + 4`.
//! * Overflow status: PMOVSR at 0xC80, v2 write 1 to clear, v1 a plain
//!   register (its driver writes 0 to clear); v3 PMOVSCLR at
//!   0xC80 (write 1 to clear) and PMOVSSET at 0xCC0 (reads the status, write 1
//!   to set).
//! * Top level: INTSTATUS is derived (per source type on v1/v2, per instance
//!   on v3) from every child's `overflow status & interrupt enable`; writes
//!   to it are ignored. INTMASK: a set bit masks the source. The interrupt
//!   line is `INTSTATUS & ~INTMASK != 0`.
//!
//! Counting: on each tick, while PMCR.E and the counter's enable bit are set,
//! a counter advances by `scale * periods * base`, where `base` is the sum of
//! [`amount`] over the agents its PMU's mask lets through. Under
//! `Step::Continuous` a read of a counter or status register also advances
//! it by the part of that amount elapsed since the tick ([`Model::advance`]),
//! and the tick adds the rest. Every increment
//! is tallied by (PMU, event code, effective PMAMR0, effective PMAMR1)
//! (`tally.rs`). The sub-block types are in `kind.rs`, the register offsets
//! in `regs.rs` (the simulator's own table).

pub(crate) use crate::readings::{Choice, PmamrWidth, Readback, Step};
use crate::{
    kind::{amount, bits, int_sources, Cells, Kind, Name},
    regs::{
        INTMASK, INTSTATUS, PMAMR0, PMAMR1, PMCNTENCLR, PMCNTENSET, PMCR, PMCR_E, PMCR_P,
        PMEVTYPER0, PMINTENCLR, PMINTENSET, PMOVSR, PMOVSSET,
    },
    tally::{Key, Session, SessionLog, TallyEntry},
};
use kernel::prelude::*;

/// Counters per PMU (v2/v3); v1 has one.
pub(crate) const MAX_COUNTERS: usize = 4;
/// Distinct (PMU, event, masks) keys the tally keeps.
pub(crate) const TALLY_CAP: usize = 256;

/// One child PMU (l3c0, iob0, mcb1, mc2, ...).
pub(crate) struct Child<C: Cells> {
    pub(crate) kind: Kind,
    /// `enable-bit-index` (the instance number).
    pub(crate) index: u32,
    pub(crate) pa: u64,
    pub(crate) cells: C,
    pub(crate) e: bool,
    pub(crate) cnten: u32,
    pub(crate) inten: u32,
    pub(crate) ovs: u32,
    pub(crate) evtype: [u32; MAX_COUNTERS],
    pub(crate) pmamr: [u32; 2],
    pub(crate) cnt: [u64; MAX_COUNTERS],
    pub(crate) sess: [Session; MAX_COUNTERS],
    /// Injected: overflow status bits no write clears.
    pub(crate) hold: u32,
    /// Injected: the sub-block's interrupt source asserted whatever its
    /// registers say.
    pub(crate) hold_line: bool,
}

/// The overflow status register's bits (four on every version, also where
/// there is one counter): a bit past the counters has no interrupt enable.
pub(crate) const OVS_BITS: u32 = 0xF;

/// A fault injected into a child (debugfs `inject`), for the drivers'
/// interrupt handling.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Fault {
    /// Sets overflow status bits once (a clear clears them).
    Set(u32),
    /// Holds overflow status bits set.
    Hold(u32),
    /// Holds the interrupt source asserted.
    Line,
    /// Ends `Hold` and `Line`.
    Off,
}

impl Fault {
    /// Parses `set BITS`, `hold BITS`, `line` or `off` (BITS hex or decimal).
    pub(crate) fn parse(op: &str, arg: Option<&str>) -> Option<Fault> {
        let bits = || {
            let a = arg?;
            match a.strip_prefix("0x") {
                Some(h) => u32::from_str_radix(h, 16).ok(),
                None => a.parse().ok(),
            }
            .filter(|b| *b != 0 && b & !OVS_BITS == 0)
        };
        match (op, arg) {
            ("set", _) => bits().map(Fault::Set),
            ("hold", _) => bits().map(Fault::Hold),
            ("line", None) => Some(Fault::Line),
            ("off", None) => Some(Fault::Off),
            _ => None,
        }
    }
}

impl<C: Cells> Child<C> {
    pub(crate) fn new(kind: Kind, index: u32, pa: u64, cells: C) -> Self {
        Child {
            kind,
            index,
            pa,
            cells,
            e: false,
            cnten: 0,
            inten: 0,
            ovs: 0,
            evtype: [0; MAX_COUNTERS],
            pmamr: [0; 2],
            cnt: [0; MAX_COUNTERS],
            sess: [Session::default(); MAX_COUNTERS],
            hold: 0,
            hold_line: false,
        }
    }
}

/// Whether a read at `off` of a child's window advances its counters under
/// `Step::Continuous`: the counters and the overflow status.
pub(crate) fn advances_on_read(off: usize) -> bool {
    off < PMEVTYPER0 || off == PMOVSR || off == PMOVSSET
}

/// Model-wide event counts.
#[derive(Default)]
pub(crate) struct Stats {
    pub(crate) ticks: u64,
    pub(crate) periods: u64,
    pub(crate) overflows: u64,
    pub(crate) writes: u64,
    pub(crate) tally_full: u64,
}

/// What a store or a tick asks of the caller once the lock is dropped.
#[derive(Default)]
pub(crate) struct Outcome {
    /// Set the interrupt pending now.
    pub(crate) raise: bool,
    pub(crate) ended: [Option<SessionLog>; MAX_COUNTERS],
    pub(crate) nended: usize,
}

/// The whole simulated PMU: the top level and its children.
pub(crate) struct Model<C: Cells> {
    pub(crate) version: u32,
    /// What the enable SET/CLR registers read back.
    pub(crate) readback: Readback,
    /// When counters advance.
    pub(crate) step: Step,
    /// How many agents an L3C/MCB PMAMR0 selects.
    pub(crate) pmamr: PmamrWidth,
    /// The tick period, and when the last tick ran (`Step::Continuous`).
    pub(crate) period_ns: u64,
    pub(crate) last_tick_ns: u64,
    pub(crate) top: C,
    pub(crate) intmask: u32,
    pub(crate) children: KVec<Child<C>>,
    pub(crate) tally: KVec<TallyEntry>,
    /// The interrupt line (`INTSTATUS & ~INTMASK != 0`).
    pub(crate) line: bool,
    pub(crate) stats: Stats,
}

impl<C: Cells> Model<C> {
    pub(crate) fn new(version: u32, top: C) -> Result<Self> {
        Ok(Model {
            version,
            readback: Readback::Mask,
            step: Step::Tick,
            pmamr: PmamrWidth::Field,
            period_ns: 1_000_000,
            last_tick_ns: 0,
            top,
            intmask: 0,
            children: KVec::new(),
            tally: KVec::with_capacity(TALLY_CAP, GFP_KERNEL)?,
            line: false,
            stats: Stats::default(),
        })
    }

    /// Counters per child.
    pub(crate) fn ncnt(&self) -> usize {
        if self.version == 1 {
            1
        } else {
            MAX_COUNTERS
        }
    }

    /// Counter width in bits.
    pub(crate) fn width(&self) -> u32 {
        if self.version >= 3 {
            64
        } else {
            32
        }
    }

    fn cmask(&self) -> u32 {
        bits(self.ncnt() as u32)
    }

    fn wide(&self) -> bool {
        self.version >= 3
    }

    /// Takes over whatever the registers hold now (a driver may have
    /// programmed them before the model was loaded, e.g. a built-in driver at
    /// boot): enables as `SET & !CLR`, a pending `P` applied, sessions opened
    /// for enabled counters. Then writes back the model's view.
    pub(crate) fn adopt(&mut self) {
        self.intmask = self.top.rd(INTMASK);
        let wide = self.wide();
        let cm = self.cmask();
        for ci in 0..self.children.len() {
            let c = &mut self.children[ci];
            let pmcr = c.cells.rd(PMCR);
            c.e = pmcr & PMCR_E != 0;
            c.cnten = c.cells.rd(PMCNTENSET) & !c.cells.rd(PMCNTENCLR) & cm;
            c.inten = c.cells.rd(PMINTENSET) & !c.cells.rd(PMINTENCLR) & cm;
            c.ovs = c.cells.rd(if wide { PMOVSSET } else { PMOVSR }) & cm;
            c.pmamr = [c.cells.rd(PMAMR0), c.cells.rd(PMAMR1)];
            for i in 0..MAX_COUNTERS {
                c.evtype[i] = c.cells.rd(PMEVTYPER0 + 4 * i);
                c.cnt[i] = if wide {
                    u64::from(c.cells.rd(8 * i)) | (u64::from(c.cells.rd(8 * i + 4)) << 32)
                } else {
                    u64::from(c.cells.rd(4 * i))
                };
            }
            if pmcr & PMCR_P != 0 {
                c.cnt = [0; MAX_COUNTERS];
            }
            c.cells.wr(PMCR, pmcr & !PMCR_P);
            for i in 0..self.ncnt() {
                self.write_counter_cells(ci, i);
                if self.children[ci].cnten & (1 << i) != 0 {
                    self.start_session(ci, i);
                }
            }
            self.sync_child(ci);
        }
        self.update_line();
    }

    /// The effective key of counter `idx` of child `ci` right now.
    fn key(&self, ci: usize, idx: usize) -> Key {
        let c = &self.children[ci];
        let (a0, a1) = self.agents(c.kind);
        Key {
            child: ci,
            code: c.evtype[idx],
            m0: (a0 > 0).then(|| c.pmamr[0] & bits(a0)),
            m1: (a1 > 0).then(|| c.pmamr[1] & bits(a1)),
        }
    }

    /// Agents selectable through PMAMR0 and PMAMR1 of a `kind` PMU.
    pub(crate) fn agents(&self, kind: Kind) -> (u32, u32) {
        kind.agents(self.version, self.pmamr == PmamrWidth::Full)
    }

    /// Increment per period at scale 1 for `key`.
    fn base(&self, key: &Key) -> u64 {
        let kind = self.children[key.child].kind;
        let mut sum = 0;
        match (key.m0, key.m1) {
            (None, None) => sum = amount(kind, key.code, 0),
            (m0, m1) => {
                for (first, m) in [(0, m0), (32, m1)] {
                    let mut m = m.unwrap_or(0);
                    while m != 0 {
                        let a = m.trailing_zeros();
                        sum += amount(kind, key.code, first + a);
                        m &= m - 1;
                    }
                }
            }
        }
        sum
    }

    fn start_session(&mut self, ci: usize, idx: usize) {
        let key = self.key(ci, idx);
        let base = self.base(&key);
        let tally = self.tally_slot(&key);
        if let Some(t) = tally {
            self.tally[t].sessions += 1;
        }
        self.children[ci].sess[idx] = Session {
            active: true,
            key,
            base,
            tally,
            ..Session::default()
        };
    }

    fn end_session(&mut self, ci: usize, idx: usize, out: &mut Outcome) {
        let c = &mut self.children[ci];
        let name = Name(c.kind, c.index);
        let s = &mut c.sess[idx];
        if !s.active {
            return;
        }
        s.active = false;
        if out.nended < out.ended.len() {
            out.ended[out.nended] = Some(SessionLog { name, idx, s: *s });
            out.nended += 1;
        }
    }

    /// After a reprogramming store: counters whose key changed end their
    /// session and start a new one.
    fn rekey(&mut self, ci: usize, out: &mut Outcome) {
        for i in 0..self.ncnt() {
            let c = &self.children[ci];
            if c.cnten & (1 << i) == 0 || !c.sess[i].active {
                continue;
            }
            if self.key(ci, i) != c.sess[i].key {
                self.end_session(ci, i, out);
                self.start_session(ci, i);
            }
        }
    }

    fn write_counter_cells(&self, ci: usize, idx: usize) {
        let c = &self.children[ci];
        if self.wide() {
            c.cells.wr(8 * idx, c.cnt[idx] as u32);
            c.cells.wr(8 * idx + 4, (c.cnt[idx] >> 32) as u32);
        } else {
            c.cells.wr(4 * idx, c.cnt[idx] as u32);
        }
    }

    /// Writes the registers that read back model state.
    fn sync_child(&self, ci: usize) {
        let c = &self.children[ci];
        let (cnten, inten) = match self.readback {
            Readback::Mask => (c.cnten, c.inten),
            Readback::Zero => (0, 0),
        };
        c.cells.wr(PMCNTENSET, cnten);
        c.cells.wr(PMCNTENCLR, cnten);
        c.cells.wr(PMINTENSET, inten);
        c.cells.wr(PMINTENCLR, inten);
        if self.wide() {
            c.cells.wr(PMOVSSET, c.ovs);
            c.cells.wr(PMOVSR, c.ovs);
        } else {
            c.cells.wr(PMOVSR, c.ovs);
        }
    }

    /// The derived INTSTATUS: a child's source is asserted by an enabled
    /// overflow, a status bit past the counters (which has no enable), or
    /// an injected `Line` fault.
    pub(crate) fn intstatus(&self) -> u32 {
        let mut st = 0;
        let no_enable = OVS_BITS & !self.cmask();
        for c in self.children.iter() {
            if c.ovs & (c.inten | no_enable) != 0 || c.hold_line {
                st |= c.kind.int_bits(self.version, c.index);
            }
        }
        st
    }

    /// Recomputes INTSTATUS and the line; true on a rising edge.
    fn update_line(&mut self) -> bool {
        let st = self.intstatus();
        self.top.wr(INTSTATUS, st);
        let was = self.line;
        self.line = st & !self.intmask & int_sources(self.version) != 0;
        self.line && !was
    }

    /// A 32-bit store of `val` at `off` in child `ci` (already in the cell).
    pub(crate) fn child_write(&mut self, ci: usize, off: usize, val: u32, out: &mut Outcome) {
        self.stats.writes += 1;
        let ncnt = self.ncnt();
        let cm = self.cmask();
        let wide = self.wide();
        let mut status_write = false;
        match off {
            o if o < PMEVTYPER0 => {
                let (idx, hi) = if wide {
                    (o / 8, o % 8 == 4)
                } else {
                    (o / 4, false)
                };
                if idx < ncnt && o % 4 == 0 {
                    let c = &mut self.children[ci];
                    c.cnt[idx] = match (wide, hi) {
                        (false, _) => u64::from(val),
                        (true, false) => (c.cnt[idx] & !0xFFFF_FFFF) | u64::from(val),
                        (true, true) => (c.cnt[idx] & 0xFFFF_FFFF) | (u64::from(val) << 32),
                    };
                }
            }
            o if (PMEVTYPER0..PMEVTYPER0 + 4 * ncnt).contains(&o) && o % 4 == 0 => {
                self.children[ci].evtype[(o - PMEVTYPER0) / 4] = val;
                self.rekey(ci, out);
            }
            PMAMR0 | PMAMR1 => {
                self.children[ci].pmamr[(off - PMAMR0) / 4] = val;
                self.rekey(ci, out);
            }
            PMCNTENSET => {
                let new = val & cm & !self.children[ci].cnten;
                self.children[ci].cnten |= new;
                for i in 0..ncnt {
                    if new & (1 << i) != 0 {
                        self.start_session(ci, i);
                    }
                }
            }
            PMCNTENCLR => {
                let gone = val & cm & self.children[ci].cnten;
                self.children[ci].cnten &= !gone;
                for i in 0..ncnt {
                    if gone & (1 << i) != 0 {
                        self.end_session(ci, i, out);
                    }
                }
            }
            PMINTENSET => self.children[ci].inten |= val & cm,
            PMINTENCLR => self.children[ci].inten &= !(val & cm),
            // v2 PMOVSR and v3 PMOVSCLR: write 1 to clear. X-Gene 1's
            // PMOVSR is a plain status register: its vendor driver clears it
            // by writing 0, so it takes the value written.
            PMOVSR => {
                if self.version == 1 {
                    self.children[ci].ovs = val & cm;
                } else {
                    self.children[ci].ovs &= !(val & cm);
                }
                status_write = true;
            }
            PMOVSSET if wide => self.children[ci].ovs |= val & cm,
            PMCR => {
                let c = &mut self.children[ci];
                c.e = val & PMCR_E != 0;
                if val & PMCR_P != 0 {
                    c.cnt = [0; MAX_COUNTERS];
                    for i in 0..ncnt {
                        self.write_counter_cells(ci, i);
                    }
                }
                self.children[ci].cells.wr(PMCR, val & !PMCR_P);
            }
            // Anything else behaves as plain memory.
            _ => {}
        }
        self.children[ci].ovs |= self.children[ci].hold;
        self.sync_child(ci);
        let edge = self.update_line();
        // Like a level line: still asserted after a clear means it fires
        // again once the handler returns.
        out.raise = edge || (self.line && status_write);
    }

    /// Switches the PMAMR width: counting sessions whose effective masks
    /// change end, and new ones start.
    pub(crate) fn set_pmamr(&mut self, w: PmamrWidth, out: &mut Outcome) {
        self.pmamr = w;
        for ci in 0..self.children.len() {
            self.rekey(ci, out);
        }
    }

    /// Switches what the enable SET/CLR registers read back.
    pub(crate) fn set_readback(&mut self, r: Readback) {
        self.readback = r;
        for ci in 0..self.children.len() {
            self.sync_child(ci);
        }
    }

    /// The child named `name` (`l3c0`, `mcb1`, ...).
    pub(crate) fn child_by_name(&self, name: &str) -> Option<usize> {
        self.children.iter().position(|c| {
            name.strip_prefix(c.kind.prefix())
                .and_then(|i| i.parse::<u32>().ok())
                == Some(c.index)
        })
    }

    /// Injects `f` into child `ci`. Returns true on a rising edge of the
    /// interrupt line.
    pub(crate) fn inject(&mut self, ci: usize, f: Fault) -> bool {
        let c = &mut self.children[ci];
        match f {
            Fault::Set(b) => c.ovs |= b,
            Fault::Hold(b) => {
                c.hold = b;
                c.ovs |= b;
            }
            Fault::Line => c.hold_line = true,
            Fault::Off => {
                c.hold = 0;
                c.hold_line = false;
            }
        }
        self.sync_child(ci);
        self.update_line()
    }

    /// A 32-bit store at `off` in the top-level window.
    pub(crate) fn top_write(&mut self, off: usize, val: u32, out: &mut Outcome) {
        self.stats.writes += 1;
        let mut mask_write = false;
        if off == INTMASK {
            self.intmask = val;
            mask_write = true;
        }
        // INTSTATUS is read-only: update_line() rewrites it.
        let edge = self.update_line();
        out.raise = edge || (self.line && mask_write);
    }

    /// Adds `inc` to counter `i` of child `ci`, `periods` whole periods.
    /// Returns whether it wrapped (its overflow status bit is then set).
    fn add(&mut self, ci: usize, i: usize, inc: u64, periods: u64) -> bool {
        let wide = self.wide();
        let c = &mut self.children[ci];
        let old = c.cnt[i];
        let (new, overflow) = if wide {
            old.overflowing_add(inc)
        } else {
            let sum = u128::from(old) + u128::from(inc);
            ((sum as u64) & 0xFFFF_FFFF, sum > 0xFFFF_FFFF)
        };
        c.cnt[i] = new;
        let s = &mut c.sess[i];
        s.added += inc;
        s.periods += periods;
        if overflow {
            c.ovs |= 1 << i;
            s.overflows += 1;
            self.stats.overflows += 1;
        }
        if let Some(t) = s.tally {
            self.tally[t].count += inc;
            self.tally[t].periods += periods;
        }
        self.write_counter_cells(ci, i);
        overflow
    }

    /// Whether counter `i` of child `ci` counts now.
    fn counting(&self, ci: usize, i: usize) -> bool {
        let c = &self.children[ci];
        c.e && c.cnten & (1 << i) != 0 && c.sess[i].active
    }

    /// `periods` timer periods elapsed, the last ending at `now_ns`.
    /// Returns true on a rising edge of the interrupt line.
    pub(crate) fn tick(&mut self, periods: u64, scale: u64, now_ns: u64) -> bool {
        self.stats.ticks += 1;
        self.stats.periods += periods;
        self.last_tick_ns = now_ns;
        for ci in 0..self.children.len() {
            let mut changed = false;
            for i in 0..self.ncnt() {
                // What `Step::Continuous` added since the last tick is part
                // of this period's amount.
                let partial = core::mem::take(&mut self.children[ci].sess[i].partial);
                if !self.counting(ci, i) {
                    continue;
                }
                let full = self.children[ci].sess[i]
                    .base
                    .wrapping_mul(scale)
                    .wrapping_mul(periods);
                changed |= self.add(ci, i, full.saturating_sub(partial), periods);
            }
            if changed {
                self.sync_child(ci);
            }
        }
        self.update_line()
    }

    /// `Step::Continuous`: brings the counters of child `ci` to `now_ns`,
    /// each by the part of its period's amount elapsed since the last tick
    /// (at most one period's). Returns true on a rising edge of the line.
    pub(crate) fn advance(&mut self, ci: usize, scale: u64, now_ns: u64) -> bool {
        if self.step != Step::Continuous || ci >= self.children.len() {
            return false;
        }
        let since = now_ns.saturating_sub(self.last_tick_ns).min(self.period_ns);
        let mut changed = false;
        for i in 0..self.ncnt() {
            if !self.counting(ci, i) {
                continue;
            }
            let s = &self.children[ci].sess[i];
            // `full * since / period` without overflow (`since <= period`).
            let full = s.base.wrapping_mul(scale);
            let period = self.period_ns.max(1);
            let due = full / period * since + full % period * since / period;
            if due > s.partial {
                let inc = due - s.partial;
                self.children[ci].sess[i].partial = due;
                changed |= self.add(ci, i, inc, 0);
            }
        }
        if changed {
            self.sync_child(ci);
        }
        self.update_line()
    }
}
