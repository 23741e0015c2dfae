// SPDX-License-Identifier: GPL-2.0

//! Checks on the entries a poll copied out of the ring, before any of them
//! is committed to the AUX area.
//!
//! A DTL slot that the hypervisor has not written since the buffer was
//! registered holds zeroes or an entry of an earlier session; a ring that
//! another DTL user registered in place of ours is no longer written at all.
//! Both show up as entries that are not newer than the ones before them: the
//! hypervisor logs a processor's dispatches in order, each stamped with the
//! timebase of the dispatch. Such entries are never emitted. perf's decoder
//! also takes a zero timebase for a header record, and one at the second
//! record of a buffer stops it making progress, so none may pass.

use super::record::{DTL_CEDE, DTL_FAULT, DTL_PREEMPT};
use super::ring::{ENTRY_SIZE, ENTRY_WORDS};

/// 8-byte words in an entry.
pub const WORDS: usize = ENTRY_WORDS;

/// One entry as its six words, each loaded in native byte order (the
/// entry's fields are big-endian; [`timebase`] and [`reason`] decode them).
pub type Words = [u64; WORDS];

/// Word holding the big-endian timebase (bytes 16..24).
pub const TIMEBASE_WORD: usize = 2;
/// Byte of word 0 holding `preempt_reason`.
const PREEMPT_REASON_BYTE: usize = 1;

/// Entry `i` of `b` (entries back to back, 48 bytes each) as its words;
/// zeroes if it is not all within `b`.
pub fn load(b: &[u8], i: usize) -> Words {
    core::array::from_fn(|w| word(b, i, w))
}

/// The byte range of `len` bytes at byte `off` of entry `i`, `None` if it
/// does not fit in `usize` (then it is not within any buffer either).
fn bytes_of(i: usize, off: usize, len: usize) -> Option<core::ops::Range<usize>> {
    let at = i.checked_mul(ENTRY_SIZE)?.checked_add(off)?;
    Some(at..at.checked_add(len)?)
}

/// Word `w` of entry `i` of `b` (0 if not within `b`).
fn word(b: &[u8], i: usize, w: usize) -> u64 {
    w.checked_mul(8)
        .and_then(|off| bytes_of(i, off, 8))
        .and_then(|r| b.get(r))
        .and_then(|x| x.try_into().ok())
        .map_or(0, u64::from_ne_bytes)
}

/// Sets entry `i` of `b`; does nothing if it is not all within `b`.
pub fn store(b: &mut [u8], i: usize, e: &Words) {
    if let Some(dst) = bytes_of(i, 0, ENTRY_SIZE).and_then(|r| b.get_mut(r)) {
        for (d, s) in dst.iter_mut().zip(e.iter().flat_map(|w| w.to_ne_bytes())) {
            *d = s;
        }
    }
}

/// The timebase of entry `i` of `b` (0 if not within `b`).
pub fn timebase(b: &[u8], i: usize) -> u64 {
    u64::from_be(word(b, i, TIMEBASE_WORD))
}

/// The `preempt_reason` of entry `i` of `b`.
pub fn reason(b: &[u8], i: usize) -> u8 {
    word(b, i, 0).to_ne_bytes()[PREEMPT_REASON_BYTE]
}

/// The enable-mask bit under which the hypervisor logs an entry with this
/// `preempt_reason`, where the architecture names it: voluntary waits
/// (`H_CEDE`, `H_CONFER`), time-slice preempts, and virtual partition
/// memory page faults. Other reasons (firmware events, migration, the
/// adjunct partition cases) are not tied to a mask bit: `None`.
pub fn kind(preempt_reason: u8) -> Option<u8> {
    match preempt_reason {
        2 | 3 => Some(DTL_CEDE),
        4 => Some(DTL_PREEMPT),
        6 => Some(DTL_FAULT),
        _ => None,
    }
}

/// Whether entry `i`, the oldest of those up to `end`, was overwritten by
/// one newer than the entry after it: the writer reached the oldest slot of
/// a full ring (the next one it writes) before publishing it. Only a writer
/// concurrent with the reader can be caught half way like that (PHYP logs a
/// processor when it dispatches it, never while the reader runs there).
/// Such an entry is out of place, not stale: it is counted lost, not taken
/// for a ring no longer written.
pub fn oldest_lapped(b: &[u8], i: usize, end: usize) -> bool {
    let Some(next) = i.checked_add(1).filter(|&next| next < end) else {
        return false;
    };
    let (a, n) = (timebase(b, i), timebase(b, next));
    a > n && n != 0
}

/// Whether an entry with timebase `tb` is fresh after one with `last_tb`:
/// non-zero, below 2^63 (perf reads it as signed), not before `last_tb`,
/// and, with the same timebase, a different entry (`same` says whether it
/// is the same; asked only then).
#[inline]
pub fn fresh(tb: u64, last_tb: u64, same: impl FnOnce() -> bool) -> bool {
    tb != 0 && tb >> 63 == 0 && tb >= last_tb && !(tb == last_tb && same())
}

/// How many of `n` entries, from the first on, are [`fresh`] after `floor`,
/// given their timebases (`tb(i)`) and whether each equals the previous one
/// (`same(i)`: entry 0 against the last one taken before); and the
/// timebase of the last of them (`floor` if none). Entries are checked where
/// they lie: in the ring, or in a copy ([`take`]).
pub fn fresh_run(
    n: usize,
    mut tb: impl FnMut(usize) -> u64,
    mut same: impl FnMut(usize) -> bool,
    floor: u64,
) -> (usize, u64) {
    let mut last = floor;
    for i in 0..n {
        let t = tb(i);
        if !fresh_at(t, last, i, &mut same) {
            return (i, last);
        }
        last = t;
    }
    (n, last)
}

/// [`fresh`] for entry `i` of a run, with the entry comparison `same(i)`
/// (needed only for two entries with the same timebase) kept out of line,
/// out of the loops that check entries as they copy them.
#[inline(always)]
pub fn fresh_at(tb: u64, last_tb: u64, i: usize, same: impl FnOnce(usize) -> bool) -> bool {
    fresh(tb, last_tb, || rarely(same, i))
}

/// `f(i)`, out of line (see [`fresh_at`]).
#[cold]
#[inline(never)]
fn rarely(f: impl FnOnce(usize) -> bool, i: usize) -> bool {
    f(i)
}

/// What [`take`] made of a run of entries.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Pass {
    /// Leading entries that are fresh.
    pub fresh: usize,
    /// Of those, the ones of kinds not dropped: now at the front of the
    /// batch, in order.
    pub kept: usize,
    /// The timebase of the last fresh entry (`floor` if none).
    pub last_tb: u64,
    /// The last fresh entry (`prev` if none).
    pub last: Words,
}

/// Takes the fresh entries of the `n` from entry `from` of `b` on
/// ([`fresh_run`] after `floor` and the entry taken before, `prev`), and
/// moves those of kinds not in `drop_kinds` to the front of `b`, in order
/// ([`compact`]).
pub fn take(b: &mut [u8], from: usize, n: usize, floor: u64, prev: &Words, drop_kinds: u8) -> Pass {
    // Entry `from + i`. Past `usize::MAX` it saturates to `usize::MAX`, not
    // within `b` either: it reads as zeroes (not fresh), as any entry past `b`.
    let at = |i: usize| from.saturating_add(i);
    let (fresh, last_tb) = fresh_run(
        n,
        |i| timebase(b, at(i)),
        |i| match i.checked_sub(1) {
            None => load(b, from) == *prev,
            Some(before) => load(b, at(i)) == load(b, at(before)),
        },
        floor,
    );
    let last = match fresh.checked_sub(1) {
        Some(l) => load(b, at(l)),
        None => *prev,
    };
    Pass {
        fresh,
        kept: compact(b, from, fresh, drop_kinds),
        last_tb,
        last,
    }
}

/// Keeps, of the `n` entries of `b` from entry `from` on, those whose
/// [`kind`] is not one of `drop_kinds` (entries of no known kind are kept),
/// moved in order to the front of `b`. Returns how many were kept: 0, with
/// nothing moved, if `from + n` overflows (no buffer holds such a run).
pub fn compact(b: &mut [u8], from: usize, n: usize, drop_kinds: u8) -> usize {
    let Some(end) = from.checked_add(n) else {
        return 0;
    };
    let mut kept: usize = 0;
    for i in from..end {
        if drop_kinds != 0 && kind(reason(b, i)).is_some_and(|k| k & drop_kinds != 0) {
            continue;
        }
        if kept != i {
            let e = load(b, i);
            store(b, kept, &e);
        }
        // At most one per index of `from..end`: never saturates.
        kept = kept.saturating_add(1);
    }
    kept
}
