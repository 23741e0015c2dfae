// SPDX-License-Identifier: GPL-2.0

//! Accounting of the AUX space perf grants for one poll.
//!
//! Records are whole 48-byte units: in every transaction, the header record,
//! then DTL entries.
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
