// SPDX-License-Identifier: GPL-2.0

//! Taking a poll's span of DTL entries: copying them out of the ring and
//! checking them (torn by a concurrent write, fresh, of the kinds the event
//! asked for), straight into the AUX window when that is safe, through a
//! scratch buffer otherwise.

use crate::{
    logic::{
        entries::{self, Words},
        ring,
    },
    rpmu::{
        perf::{AuxWindow, PmuDriver},
        pseries::dtl::DtlBuffer,
    },
};
use kernel::pr_notice_once;

/// The state the checks of a poll's entries read and update.
pub(crate) struct Cursor {
    /// Timebase no later than the next entry's: the last one taken, or when
    /// reading started.
    pub(crate) floor: u64,
    /// The last entry taken: a slot no longer written repeats it.
    pub(crate) last_entry: Words,
    /// The log was seen written while this CPU ran a poll without being
    /// preempted: a writer concurrent with the reader, which PAPR's
    /// dispatch-time logging rules out. From then on the oldest slot, which
    /// the next write may be half way through, is not taken.
    pub(crate) concurrent: bool,
}

/// What the checks made of one poll's span.
pub(crate) struct Taken {
    /// Oldest entries overwritten while they were copied: lost.
    pub(crate) torn: u64,
    /// Entries after those that were not fresh (a ring no longer written).
    pub(crate) stale: usize,
    /// Fresh entries of kinds the event does not get.
    pub(crate) filtered: usize,
    /// Entries to emit, now at the front of the batch.
    pub(crate) pending: usize,
}

/// What a poll saw before copying.
pub(crate) struct Seen {
    /// The entries to take.
    pub(crate) span: ring::Span,
    /// The published index the span was planned from.
    pub(crate) head: u64,
    /// Entries a poll may take ([`ring::readable`]).
    pub(crate) readable: u64,
    /// Entries in the ring ([`DtlBuffer::entries`] at this poll).
    pub(crate) ring: usize,
    /// The dispatch count before copying.
    pub(crate) dispatches: u32,
    /// Kinds the event does not get ([`entries::compact`]).
    pub(crate) drop_kinds: u8,
    /// The ring slot of the span's first entry.
    pub(crate) start: usize,
}

impl Seen {
    /// The ring slot of the span's `i`-th entry (`i` below the ring's size).
    #[inline]
    fn slot(&self, i: usize) -> usize {
        // `start < ring` and `i` below it: wraps at most once. A sum past
        // `usize::MAX` (never) saturates to a slot outside the ring, which
        // the loads refuse.
        let s = self.start.saturating_add(i);
        s.checked_sub(self.ring).unwrap_or(s)
    }
}

/// Notes a writer concurrent with the reader: a write seen during the poll
/// (the index moved, or the oldest slot was torn) while this CPU was not
/// dispatched anew can only come from one.
fn note_writer(buf: &DtlBuffer, c: &mut Cursor, seen: &Seen, head_after: u64, torn: u64) {
    let written = head_after != seen.head || torn > 0;
    if written && buf.dispatch_count() == seen.dispatches && !c.concurrent {
        pr_notice_once!(
            "cpu {}: the DTL was written while this CPU read it, unpreempted; leaving its oldest slot from now on\n",
            u32::from(buf.cpu())
        );
        c.concurrent = true;
    }
}

/// The common case: copies the span straight into the AUX window from byte
/// `at` on (after the header record's slot in a new transaction), entry by
/// entry, and checks each entry as it copies it, from the words it loaded
/// from the ring (the AUX area is user space's to write); the copy stops at
/// the first entry that is not fresh. `None`, with the cursor unchanged and
/// nothing kept, if the poll needs [`take_general`]: kinds to drop, entries
/// overwritten while they were copied, or a full ring (its oldest slot
/// needs a second look). The entries checked are those copied: no slot of
/// the span is written while the ring is not full.
pub(crate) fn take_direct<T: PmuDriver>(
    buf: &DtlBuffer,
    c: &mut Cursor,
    seen: &Seen,
    win: &mut AuxWindow<'_, '_, T>,
    at: usize,
) -> Option<Taken> {
    if seen.drop_kinds != 0 {
        return None;
    }
    let span = &seen.span;
    let count = span.count as usize;
    // The ring's base and size, read once for the poll; each run of slots
    // is checked against the ring once, then copied entry by entry, each
    // checked as it is copied (its words loaded once), up to the first
    // entry that is not fresh.
    let ring = buf.view();
    let entry = |i: usize| ring.load_slot(seen.slot(i));
    let same = |i: usize| match i.checked_sub(1) {
        None => entry(0) == Some(c.last_entry),
        Some(before) => entry(i) == entry(before),
    };
    let mut last_tb = c.floor;
    let mut fresh: usize = 0;
    let mut copied = true;
    let mut off = at;
    for (slot, len) in ring::runs(span.first, span.count, seen.ring as u64) {
        if len == 0 {
            continue;
        }
        let Some(src) = ring.slot_words(slot, len) else {
            copied = false;
            break;
        };
        let n = win.copy_records_while::<{ ring::ENTRY_WORDS }, { entries::TIMEBASE_WORD }>(
            off,
            src,
            |k, tb| {
                // Entry `fresh + k` of the span (at most a ring): exact.
                let ok = entries::fresh_at(tb, last_tb, fresh.wrapping_add(k), same);
                if ok {
                    last_tb = tb;
                }
                ok
            },
        );
        // At most a ring and a header in: never saturates.
        off = off.saturating_add(n.saturating_mul(ring::ENTRY_SIZE));
        fresh = fresh.saturating_add(n);
        if n < len {
            // An entry not fresh ended the copy, or the window did (it is
            // sized for the span: never), which is a failed copy.
            copied = win.len() >= off.saturating_add(ring::ENTRY_SIZE);
            break;
        }
    }
    let head_after = buf.index_after_reading();
    let torn = ring::torn(span, head_after, seen.readable);
    note_writer(buf, c, seen, head_after, torn);
    // Absolute indices are free-running: they wrap.
    if !copied || torn > 0 || span.first.wrapping_add(seen.ring as u64) == head_after {
        return None;
    }
    if let Some(last) = fresh.checked_sub(1) {
        c.last_entry = entry(last)?;
    }
    c.floor = last_tb;
    Some(Taken {
        torn: 0,
        // `fresh <= count` (`fresh_run`): exact.
        stale: count.saturating_sub(fresh),
        filtered: 0,
        pending: fresh,
    })
}

/// Any poll: copies the span into the scratch buffer, drops the entries a
/// writer may have overwritten during the copy, then those that are not
/// fresh and those of kinds the event does not get, and leaves the rest at
/// the front of the buffer.
pub(crate) fn take_general(buf: &DtlBuffer, c: &mut Cursor, seen: &Seen, b: &mut [u8]) -> Taken {
    let span = &seen.span;
    let count = span.count as usize;
    let mut copied = true;
    let ring = buf.view();
    for i in 0..count {
        match ring.load_slot(seen.slot(i)) {
            Some(e) => entries::store(b, i, &e),
            None => copied = false,
        }
    }
    // Entries the hypervisor reached while we copied are torn. The oldest
    // slot of a full ring is the next one written, and is torn too if it
    // holds an entry newer than the next slot's (the next entry, written
    // there but not yet published) or if it changed after we copied it: a
    // writer racing the copy, which PHYP's dispatch-time logging rules out
    // on this CPU.
    let head_after = buf.index_after_reading();
    let mut torn = if copied {
        ring::torn(span, head_after, seen.readable)
    } else {
        span.count
    };
    // Absolute indices are free-running: they wrap.
    let oldest_next = span.first.wrapping_add(torn).wrapping_add(seen.ring as u64);
    if torn < span.count && oldest_next == head_after {
        let at = torn as usize;
        let lapped = entries::oldest_lapped(b, at, count);
        // Loaded again only if it was not already found torn.
        let changed = !lapped && ring.load_slot(seen.slot(at)) != Some(entries::load(b, at));
        if lapped || changed || buf.published_index() != head_after {
            // `torn < span.count`: never saturates.
            torn = torn.saturating_add(1);
        }
    }
    if copied {
        note_writer(buf, c, seen, head_after, torn);
    }
    let first = torn as usize;
    // `torn <= span.count` (`ring::torn`, and one more only below it), and
    // `kept <= fresh <= count - first` (`entries::take`): none of the
    // differences below saturates.
    let left = count.saturating_sub(first);
    // Never emit a slot the hypervisor did not write for us.
    let p = entries::take(b, first, left, c.floor, &c.last_entry, seen.drop_kinds);
    c.floor = p.last_tb;
    c.last_entry = p.last;
    Taken {
        torn,
        stale: left.saturating_sub(p.fresh),
        filtered: p.fresh.saturating_sub(p.kept),
        pending: p.kept,
    }
}
