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
//!   measures it.
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
//! [`amount`] over the agents its PMU's mask lets through. Every increment
//! is tallied by (PMU, event code, effective PMAMR0, effective PMAMR1).

use kernel::fmt;
use kernel::prelude::*;

/// Counters per PMU (v2/v3); v1 has one.
pub(crate) const MAX_COUNTERS: usize = 4;
/// Distinct (PMU, event, masks) keys the tally keeps.
pub(crate) const TALLY_CAP: usize = 256;

// Child PMU registers (offsets in a child's CSR window).
pub(crate) const PMEVCNTR0: usize = 0x000;
pub(crate) const PMEVTYPER0: usize = 0x400;
pub(crate) const PMAMR0: usize = 0xA00;
pub(crate) const PMAMR1: usize = 0xA04;
pub(crate) const PMCNTENSET: usize = 0xC00;
pub(crate) const PMCNTENCLR: usize = 0xC20;
pub(crate) const PMINTENSET: usize = 0xC40;
pub(crate) const PMINTENCLR: usize = 0xC60;
/// v1/v2 PMOVSR (status, write 1 to clear); v3 PMOVSCLR.
pub(crate) const PMOVSR: usize = 0xC80;
/// v3 PMOVSSET (status, write 1 to set).
pub(crate) const PMOVSSET: usize = 0xCC0;
pub(crate) const PMCR: usize = 0xE04;
pub(crate) const PMCR_E: u32 = 1 << 0;
pub(crate) const PMCR_P: u32 = 1 << 1;

// Top-level (PCP PMU) registers.
pub(crate) const INTSTATUS: usize = 0x000;
pub(crate) const INTMASK: usize = 0x004;

/// One register window: 32-bit cells at byte offsets.
pub(crate) trait Cells {
    /// Reads the cell at byte offset `off`.
    fn rd(&self, off: usize) -> u32;
    /// Stores `val` in the cell at byte offset `off`.
    fn wr(&self, off: usize, val: u32);
}

/// Child PMU types, numbered as in xgene_pmu.c.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    L3c = 0,
    Iob = 1,
    IobSlow = 2,
    Mcb = 3,
    Mc = 4,
}

impl Kind {
    /// The sysfs name prefix; the instance number follows.
    pub(crate) fn prefix(self) -> &'static str {
        match self {
            Kind::L3c => "l3c",
            Kind::Iob => "iob",
            Kind::IobSlow => "iob_slow",
            Kind::Mcb => "mcb",
            Kind::Mc => "mc",
        }
    }

    /// Agents selectable through PMAMR0 and PMAMR1 (0: no such register).
    /// These follow the widths of the `*_agentid` formats: l3c and mcb
    /// `config1:0-9`, iob `config1:0-63`; mc has no agent filter; v3 has no
    /// agent mask registers.
    pub(crate) fn agents(self, version: u32) -> (u32, u32) {
        if version >= 3 {
            return (0, 0);
        }
        match self {
            Kind::L3c | Kind::Mcb => (10, 0),
            Kind::Iob | Kind::IobSlow => (32, 32),
            Kind::Mc => (0, 0),
        }
    }

    /// This instance's INTSTATUS bits.
    fn int_bits(self, version: u32, index: u32) -> u32 {
        if version < 3 {
            return match self {
                Kind::Mc => 1 << 0,
                Kind::Mcb => 1 << 1,
                Kind::L3c => 1 << 2,
                Kind::Iob | Kind::IobSlow => 1 << 3,
            };
        }
        // v3: one bit per instance inside the type's field.
        let (shift, width) = match self {
            Kind::Mc => (0, 8),
            Kind::Mcb => (8, 2),
            Kind::Iob => (12, 1),
            Kind::IobSlow => (13, 1),
            Kind::L3c => (16, 8),
        };
        if index < width {
            1 << (shift + index)
        } else {
            0
        }
    }
}

/// Sources the top level can signal (INTSTATUS bits that exist).
fn int_sources(version: u32) -> u32 {
    if version < 3 {
        0x0000_000F
    } else {
        0x00FF_33FF
    }
}

/// Deterministic amount one agent contributes per period to an event:
/// 1..=16, a hash of (type, event code, agent).
pub(crate) fn amount(kind: Kind, code: u32, agent: u32) -> u64 {
    let mut x = ((kind as u64) << 48) | (u64::from(code) << 8) | u64::from(agent);
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^= x >> 31;
    1 + (x & 15)
}

/// What one counter counts: the tally key.
#[derive(Clone, Copy, PartialEq, Eq, Default, Debug)]
pub(crate) struct Key {
    /// Index of the child PMU.
    pub(crate) child: usize,
    /// PMEVTYPER value.
    pub(crate) code: u32,
    /// Effective PMAMR0 (`None`: the PMU has no such register).
    pub(crate) m0: Option<u32>,
    /// Effective PMAMR1.
    pub(crate) m1: Option<u32>,
}

fn bits(n: u32) -> u32 {
    if n >= 32 {
        u32::MAX
    } else {
        (1u32 << n) - 1
    }
}

/// A counter's current session: from its enable (or reprogramming) to its
/// disable (or reprogramming).
#[derive(Clone, Copy, Default)]
pub(crate) struct Session {
    pub(crate) active: bool,
    pub(crate) key: Key,
    /// Increment per period at scale 1.
    pub(crate) base: u64,
    /// Index in the tally, if it had room.
    pub(crate) tally: Option<usize>,
    pub(crate) added: u64,
    pub(crate) periods: u64,
    pub(crate) overflows: u64,
}

/// One ended session, for the log.
#[derive(Clone, Copy)]
pub(crate) struct SessionLog {
    pub(crate) name: Name,
    pub(crate) idx: usize,
    pub(crate) s: Session,
}

/// Cumulative counts of one key.
#[derive(Clone, Copy, Default)]
pub(crate) struct TallyEntry {
    pub(crate) key: Key,
    pub(crate) count: u64,
    pub(crate) periods: u64,
    pub(crate) sessions: u64,
}

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
        }
    }
}

/// Displays a child's name as the drivers register it.
#[derive(Clone, Copy)]
pub(crate) struct Name(pub(crate) Kind, pub(crate) u32);

impl core::fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.0.prefix(), self.1)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        core::fmt::Display::fmt(self, f)
    }
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
        let (a0, a1) = c.kind.agents(self.version);
        Key {
            child: ci,
            code: c.evtype[idx],
            m0: (a0 > 0).then(|| c.pmamr[0] & bits(a0)),
            m1: (a1 > 0).then(|| c.pmamr[1] & bits(a1)),
        }
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

    fn tally_slot(&mut self, key: &Key) -> Option<usize> {
        if let Some(i) = self.tally.iter().position(|t| t.key == *key) {
            return Some(i);
        }
        let entry = TallyEntry {
            key: *key,
            ..TallyEntry::default()
        };
        match self.tally.push_within_capacity(entry) {
            Ok(()) => Some(self.tally.len() - 1),
            Err(_) => {
                self.stats.tally_full += 1;
                None
            }
        }
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
        c.cells.wr(PMCNTENSET, c.cnten);
        c.cells.wr(PMCNTENCLR, c.cnten);
        c.cells.wr(PMINTENSET, c.inten);
        c.cells.wr(PMINTENCLR, c.inten);
        if self.wide() {
            c.cells.wr(PMOVSSET, c.ovs);
            c.cells.wr(PMOVSR, c.ovs);
        } else {
            c.cells.wr(PMOVSR, c.ovs);
        }
    }

    /// The derived INTSTATUS.
    pub(crate) fn intstatus(&self) -> u32 {
        let mut st = 0;
        for c in self.children.iter() {
            if c.ovs & c.inten != 0 {
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
        self.sync_child(ci);
        let edge = self.update_line();
        // Like a level line: still asserted after a clear means it fires
        // again once the handler returns.
        out.raise = edge || (self.line && status_write);
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

    /// `periods` timer periods elapsed. Returns true on a rising edge of the
    /// interrupt line.
    pub(crate) fn tick(&mut self, periods: u64, scale: u64) -> bool {
        self.stats.ticks += 1;
        self.stats.periods += periods;
        let ncnt = self.ncnt();
        let wide = self.wide();
        for ci in 0..self.children.len() {
            if !self.children[ci].e || self.children[ci].cnten == 0 {
                continue;
            }
            let mut changed = false;
            for i in 0..ncnt {
                let c = &mut self.children[ci];
                if c.cnten & (1 << i) == 0 || !c.sess[i].active {
                    continue;
                }
                let inc = c.sess[i].base.wrapping_mul(scale).wrapping_mul(periods);
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
                    changed = true;
                }
                if let Some(t) = s.tally {
                    self.tally[t].count += inc;
                    self.tally[t].periods += periods;
                }
                self.write_counter_cells(ci, i);
            }
            if changed {
                self.sync_child(ci);
            }
        }
        self.update_line()
    }

    /// Empties the tally; running sessions continue into fresh entries.
    pub(crate) fn reset_tally(&mut self) {
        self.tally.clear();
        self.stats.tally_full = 0;
        for ci in 0..self.children.len() {
            for i in 0..MAX_COUNTERS {
                if self.children[ci].sess[i].active {
                    let key = self.children[ci].sess[i].key;
                    let t = self.tally_slot(&key);
                    if let Some(t) = t {
                        self.tally[t].sessions += 1;
                    }
                    self.children[ci].sess[i].tally = t;
                }
            }
        }
    }

    /// The tally, one line per key:
    /// `pmu event pmamr0 pmamr1 count periods sessions`.
    pub(crate) fn fmt_tally(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "# pmu event pmamr0 pmamr1 count periods sessions")?;
        for t in self.tally.iter() {
            let c = &self.children[t.key.child];
            write!(f, "{} {:#x} ", Name(c.kind, c.index), t.key.code)?;
            for m in [t.key.m0, t.key.m1] {
                match m {
                    Some(m) => write!(f, "{m:#x} ")?,
                    None => write!(f, "- ")?,
                }
            }
            writeln!(f, "{} {} {}", t.count, t.periods, t.sessions)?;
        }
        Ok(())
    }

    /// The PMUs: `pmu type version counters width agents0 agents1 csr`.
    pub(crate) fn fmt_pmus(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "# pmu type version counters width agents0 agents1 csr")?;
        for c in self.children.iter() {
            let (a0, a1) = c.kind.agents(self.version);
            writeln!(
                f,
                "{} {} {} {} {} {} {} {:#x}",
                Name(c.kind, c.index),
                c.kind.prefix(),
                self.version,
                self.ncnt(),
                self.width(),
                a0,
                a1,
                c.pa
            )?;
        }
        Ok(())
    }
}

#[kunit_tests(xgene_sim_model)]
mod tests {
    use super::*;
    use core::cell::Cell;

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
        let mut m = Model::new(2, top)?;
        m.children
            .push(Child::new(Kind::L3c, 0, 0, child), GFP_KERNEL)?;
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
    fn counts_wraps_and_interrupts() -> Result {
        let (tb, cb) = (mem()?, mem()?);
        let (top, child) = (&*tb, &*cb);
        let mut m = Model::new(2, top)?;
        m.children
            .push(Child::new(Kind::Mc, 2, 0, child), GFP_KERNEL)?;
        store(&mut m, 0, PMEVTYPER0 + 4, 0x5);
        store(&mut m, 0, PMEVCNTR0 + 4, 0xFFFF_FFF0);
        store(&mut m, 0, PMCNTENSET, 0b10);
        store(&mut m, 0, PMINTENSET, 0b10);
        // Not counting without PMCR.E.
        assert!(!m.tick(1, 1));
        assert_eq!(child.rd(4), 0xFFFF_FFF0);
        store(&mut m, 0, PMCR, PMCR_E);
        let inc = amount(Kind::Mc, 5, 0);
        // Masked at the top level: no line.
        top.wr(INTMASK, 0xF);
        m.top_write(INTMASK, 0xF, &mut Outcome::default());
        assert!(!m.tick(16, 1));
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
        let mut m = Model::new(2, top)?;
        m.children
            .push(Child::new(Kind::Iob, 0, 0, child), GFP_KERNEL)?;
        store(&mut m, 0, PMCR, PMCR_E);
        store(&mut m, 0, PMEVTYPER0, 0x2);
        store(&mut m, 0, PMAMR0, 0);
        store(&mut m, 0, PMAMR1, 1 << 8);
        store(&mut m, 0, PMCNTENSET, 1);
        m.tick(1, 3);
        assert_eq!(u64::from(child.rd(0)), 3 * amount(Kind::Iob, 2, 40));
        // A new mask while counting ends the session and starts another key.
        let out = store(&mut m, 0, PMAMR0, 1);
        assert_eq!(out.nended, 1);
        m.tick(1, 1);
        assert_eq!(m.tally.len(), 2);
        assert_eq!(
            m.tally[1].count,
            amount(Kind::Iob, 2, 0) + amount(Kind::Iob, 2, 40)
        );
        assert_eq!(m.tally[1].key.m1, Some(1 << 8));
        Ok(())
    }
}
