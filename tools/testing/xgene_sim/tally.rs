// SPDX-License-Identifier: GPL-2.0

//! The tally: what each counter session counted, cumulated per (PMU, event
//! code, effective agent masks), and the debugfs views of the model.

use crate::{
    kind::{Cells, Name},
    model::{Model, MAX_COUNTERS},
};
use kernel::fmt;

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
    /// Added since the last tick by `Step::Continuous`.
    pub(crate) partial: u64,
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

impl<C: Cells> Model<C> {
    pub(crate) fn tally_slot(&mut self, key: &Key) -> Option<usize> {
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
            let (a0, a1) = self.agents(c.kind);
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
