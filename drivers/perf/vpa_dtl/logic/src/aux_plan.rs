// SPDX-License-Identifier: GPL-2.0

//! Accounting of the AUX space perf grants a transaction, and how long a
//! transaction stays open across polls.
//!
//! Records are whole 48-byte units: in every transaction, the header record,
//! then DTL entries, from one poll or from several ([`keep_open`]).
//! The plan never uses the last free byte: if a transaction filled the AUX
//! area exactly, the next `perf_aux_output_begin` would find no space and
//! disable the event without any record saying why. Keeping one byte free
//! means every stop for lack of space is a committed, flagged record.

use super::ring::ENTRY_SIZE;

/// How much of a poll's output fits.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct AuxPlan {
    /// Write the header record first (whenever any entry is written).
    pub header: bool,
    /// Entries to write after it.
    pub entries: u64,
    /// Entries that do not fit and are dropped (the record is then marked
    /// truncated).
    pub dropped: u64,
}

/// Plans a write of `pending` entries into `space` granted bytes.
///
/// Every transaction that writes anything starts with the header record:
/// perf's decoder takes `boot_tb` and `tb_freq` from the first record of the
/// first AUX buffer of each CPU in a file, and with `perf record
/// --switch-output` any transaction can be the first of a new file. A header
/// is never written alone: the decoder skips a zero-timebase record except at
/// the second record of a buffer, where it stops making progress, and a
/// buffer (a reader's snapshot) starts at a transaction boundary, so a
/// header-only transaction followed by another could put a header there.
pub fn plan(space: usize, pending: u64) -> AuxPlan {
    let slots = (space.saturating_sub(1) / ENTRY_SIZE) as u64;
    let entries = pending.min(slots.saturating_sub(1));
    AuxPlan {
        header: entries > 0,
        entries,
        // `entries <= pending`: never saturates.
        dropped: pending.saturating_sub(entries),
    }
}
/// Plans a write of `pending` entries into `space` bytes still free in a
/// transaction held open from an earlier poll ([`keep_open`]), which
/// already starts with its header: entries only, and the last byte kept
/// free as in [`plan`].
pub fn plan_continued(space: usize, pending: u64) -> AuxPlan {
    let slots = (space.saturating_sub(1) / ENTRY_SIZE) as u64;
    let entries = pending.min(slots);
    AuxPlan {
        header: false,
        entries,
        // `entries <= pending`: never saturates.
        dropped: pending.saturating_sub(entries),
    }
}

/// Polls an AUX transaction is held open at most: what a poll writes
/// reaches user space at most this many polls later.
pub const HOLD_POLLS: u32 = 16;

/// What a poll knows when it decides whether to end its AUX transaction.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Hold {
    /// A poll of a running event (not the last one, at `stop` or `del`).
    pub live: bool,
    /// The poll lost entries or flagged a loss: its record is flagged.
    pub loss: bool,
    /// Entries the poll found.
    pub found: u64,
    /// The pacer's quiet threshold: a poll that found no more waits longer
    /// ([`crate::pacer::Pacer::quiet`]).
    pub quiet: u64,
    /// Entries the next poll may take (the ring's).
    pub ring: u64,
    /// Bytes still free in the transaction.
    pub space: usize,
    /// The data written reaches the area's wakeup watermark.
    pub past_wakeup: bool,
    /// Polls that have written into the transaction, this one included.
    pub polls: u32,
}

/// Whether the poll leaves its AUX transaction open for the next one
/// instead of ending it. Opening and ending a transaction is most of a
/// busy poll's cost (`perf_aux_output_begin()`, `perf_aux_output_end()` and
/// the `PERF_RECORD_AUX` it writes); while entries keep coming it is held,
/// and ended:
///
/// - at the last poll, and on a loss, so that a flagged record starts at
///   its gap;
/// - after a quiet poll: the next wait is long, maybe lazy, and the data
///   would wait with it;
/// - when the space left might not hold the next poll's entries (the space
///   perf granted at the start; a new transaction sees what the reader has
///   freed since), and when the data reaches the wakeup watermark, so that
///   the reader is woken;
/// - after [`HOLD_POLLS`] polls.
pub fn keep_open(h: &Hold) -> bool {
    let next = (h.ring as usize)
        .saturating_add(1)
        .saturating_mul(ENTRY_SIZE);
    h.live
        && !h.loss
        && h.found > h.quiet
        && h.space > next
        && !h.past_wakeup
        && h.polls < HOLD_POLLS
}

impl AuxPlan {
    /// Bytes this plan writes. A [`plan`] writes at most the space it was
    /// given; a plan built by hand past `usize::MAX` bytes gives
    /// `usize::MAX`, which no AUX window has.
    pub fn bytes(&self) -> usize {
        (self.entries as usize)
            .saturating_add(usize::from(self.header))
            .saturating_mul(ENTRY_SIZE)
    }
}
