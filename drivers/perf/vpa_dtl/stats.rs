// SPDX-License-Identifier: GPL-2.0

//! Entry counts: an event's, and the PMU's totals since the module was
//! loaded.

use crate::poll::Outcome;
use kernel::sync::atomic::{Atomic, Relaxed};

/// Cumulative entry counts.
pub(crate) struct Stats {
    pub(crate) captured: Atomic<u64>,
    pub(crate) lost_overrun: Atomic<u64>,
    pub(crate) lost_aux_full: Atomic<u64>,
    /// Logged while another DTL user held the CPU's log (an upper bound:
    /// that user's kinds may differ).
    pub(crate) lost_foreign: Atomic<u64>,
    /// Entries of kinds only the kernel's own reader asked for (shared
    /// ring): not the event's, so neither captured nor lost.
    pub(crate) filtered: Atomic<u64>,
    /// Events that lost the CPU's log to another DTL user.
    pub(crate) displaced: Atomic<u64>,
    /// Of `lost_overrun`: entries overwritten while a poll copied them.
    pub(crate) torn: Atomic<u64>,
}

impl Stats {
    pub(crate) const fn new() -> Self {
        Self {
            captured: Atomic::new(0),
            lost_overrun: Atomic::new(0),
            lost_aux_full: Atomic::new(0),
            lost_foreign: Atomic::new(0),
            filtered: Atomic::new(0),
            displaced: Atomic::new(0),
            torn: Atomic::new(0),
        }
    }

    /// Adds what a poll found (an atomic operation only for the figures
    /// that are not zero: a poll usually loses nothing).
    pub(crate) fn record(&self, o: &Outcome) {
        for (count, n) in [
            (&self.captured, o.captured),
            (&self.lost_overrun, o.lost_overrun),
            (&self.lost_aux_full, o.lost_aux_full),
            (&self.lost_foreign, o.lost_foreign),
            (&self.filtered, o.filtered),
            (&self.torn, o.torn),
            (&self.displaced, u64::from(o.displaced)),
        ] {
            if n > 0 {
                count.add(n, Relaxed);
            }
        }
    }

    /// Entries lost so far, for whatever reason.
    pub(crate) fn lost(&self) -> u64 {
        self.lost_overrun
            .load(Relaxed)
            .wrapping_add(self.lost_aux_full.load(Relaxed))
            .wrapping_add(self.lost_foreign.load(Relaxed))
    }
}
