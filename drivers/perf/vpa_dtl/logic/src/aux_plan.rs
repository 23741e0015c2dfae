// SPDX-License-Identifier: GPL-2.0

//! Accounting of the AUX space perf grants for one poll.
//!
//! Records are whole 48-byte units: the header record, then DTL entries.
//! The plan never uses the last free byte: if a transaction filled the AUX
//! area exactly, the next `perf_aux_output_begin` would find no space and
//! disable the event without any record saying why. Keeping one byte free
//! means every stop for lack of space is a committed, flagged record.

use super::ring::ENTRY_SIZE;

/// How much of a poll's output fits.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct AuxPlan {
    /// Write the header record first.
    pub header: bool,
    /// Entries to write after it.
    pub entries: u64,
    /// Entries that do not fit and are dropped (the record is then marked
    /// truncated).
    pub dropped: u64,
}

/// Plans a write of `pending` entries, preceded by the header record if
/// `need_header`, into `space` granted bytes. Without room for a pending
/// header, no entry is written: the decoder needs the header first.
pub fn plan(space: usize, need_header: bool, pending: u64) -> AuxPlan {
    let slots = (space.saturating_sub(1) / ENTRY_SIZE) as u64;
    if need_header && slots == 0 {
        return AuxPlan {
            header: false,
            entries: 0,
            dropped: pending,
        };
    }
    let room = slots - u64::from(need_header);
    let entries = pending.min(room);
    AuxPlan {
        header: need_header,
        entries,
        dropped: pending - entries,
    }
}

impl AuxPlan {
    /// Bytes this plan writes.
    pub fn bytes(&self) -> usize {
        (self.entries as usize + usize::from(self.header)) * ENTRY_SIZE
    }
}
