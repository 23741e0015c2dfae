// SPDX-License-Identifier: GPL-2.0

//! Checks on the entries a poll copied out of the ring, before any of them
//! reaches the AUX area.
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
use super::ring::ENTRY_SIZE;

/// Byte offset of the big-endian timebase in an entry.
const TIMEBASE_OFFSET: usize = 16;
/// Byte offset of `preempt_reason`.
const PREEMPT_REASON_OFFSET: usize = 1;

/// The timebase of the entry at the start of `entry` (0 if too short).
pub fn timebase(entry: &[u8]) -> u64 {
    entry
        .get(TIMEBASE_OFFSET..TIMEBASE_OFFSET + 8)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u64::from_be_bytes)
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

/// Whether the oldest entry of `batch` was overwritten by one newer than
/// the entry after it: the writer reached the oldest slot of a full ring
/// (the next one it writes) before publishing it. Only a writer concurrent
/// with the reader can be caught half way like that (PHYP logs a processor
/// when it dispatches it, never while the reader runs there). Such an entry
/// is out of place, not stale: it is counted lost, not taken for a ring no
/// longer written.
pub fn oldest_lapped(batch: &[u8]) -> bool {
    let mut it = batch.chunks_exact(ENTRY_SIZE);
    match (it.next(), it.next()) {
        (Some(a), Some(b)) => timebase(a) > timebase(b) && timebase(b) != 0,
        _ => false,
    }
}

/// The leading entries of `batch` (whole entries, oldest first) that are
/// fresh: a timebase that is non-zero, below 2^63 (perf reads it as signed),
/// not before `floor`, and not before the previous entry's; an entry with
/// the previous one's timebase must differ from it (a slot no longer written
/// can hold the entry taken last, `prev`). Returns their number and the
/// timebase of the last of them (`floor` if none).
pub fn fresh_prefix(batch: &[u8], floor: u64, prev: &[u8]) -> (usize, u64) {
    let mut last = floor;
    let mut before = prev;
    let mut n = 0;
    for e in batch.chunks_exact(ENTRY_SIZE) {
        let tb = timebase(e);
        if tb == 0 || tb >> 63 != 0 || tb < last || (tb == last && e == before) {
            break;
        }
        last = tb;
        before = e;
        n += 1;
    }
    (n, last)
}

/// Removes from the first `n` entries of `batch`, in place and in order,
/// those whose [`kind`] is one of `drop_kinds`; entries of no known kind
/// are kept. Returns how many remain at the front.
pub fn filter_kinds(batch: &mut [u8], n: usize, drop_kinds: u8) -> usize {
    if drop_kinds == 0 {
        return n;
    }
    let mut kept = 0;
    for i in 0..n {
        let at = i * ENTRY_SIZE;
        let Some(&reason) = batch.get(at + PREEMPT_REASON_OFFSET) else {
            break;
        };
        if kind(reason).is_some_and(|k| k & drop_kinds != 0) {
            continue;
        }
        if kept != i {
            batch.copy_within(at..at + ENTRY_SIZE, kept * ENTRY_SIZE);
        }
        kept += 1;
    }
    kept
}
