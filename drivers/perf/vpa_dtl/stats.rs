// SPDX-License-Identifier: GPL-2.0

//! Entry counts, and the PMU's sysfs groups (`format/`, `events/`, `stats/`).

use crate::{
    pmu::VpaDtl,
    rpmu::perf::{AttrGroup, AttrValue, SysfsWriter},
};
use core::fmt::Write;
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

    pub(crate) fn add_torn(&self, n: u64) {
        if n > 0 {
            self.torn.add(n, Relaxed);
        }
    }

    pub(crate) fn add_filtered(&self, n: u64) {
        if n > 0 {
            self.filtered.add(n, Relaxed);
        }
    }

    pub(crate) fn add_foreign(&self, n: u64) {
        self.lost_foreign.add(n, Relaxed);
    }

    pub(crate) fn add_displaced(&self) {
        self.displaced.add(1, Relaxed);
    }

    /// Adds a poll's figures (an atomic operation only for those that are
    /// not zero: a poll usually loses nothing).
    pub(crate) fn add(&self, captured: u64, lost_overrun: u64, lost_aux_full: u64) {
        if captured > 0 {
            self.captured.add(captured, Relaxed);
        }
        if lost_overrun > 0 {
            self.lost_overrun.add(lost_overrun, Relaxed);
        }
        if lost_aux_full > 0 {
            self.lost_aux_full.add(lost_aux_full, Relaxed);
        }
    }

    pub(crate) fn lost(&self) -> u64 {
        self.lost_overrun
            .load(Relaxed)
            .wrapping_add(self.lost_aux_full.load(Relaxed))
            .wrapping_add(self.lost_foreign.load(Relaxed))
    }
}

fn show_captured(p: &VpaDtl, w: &mut SysfsWriter<'_>) -> core::fmt::Result {
    writeln!(w, "{}", p.totals.captured.load(Relaxed))
}

fn show_lost_overrun(p: &VpaDtl, w: &mut SysfsWriter<'_>) -> core::fmt::Result {
    writeln!(w, "{}", p.totals.lost_overrun.load(Relaxed))
}

fn show_lost_aux_full(p: &VpaDtl, w: &mut SysfsWriter<'_>) -> core::fmt::Result {
    writeln!(w, "{}", p.totals.lost_aux_full.load(Relaxed))
}

fn show_lost_foreign(p: &VpaDtl, w: &mut SysfsWriter<'_>) -> core::fmt::Result {
    writeln!(w, "{}", p.totals.lost_foreign.load(Relaxed))
}

fn show_filtered(p: &VpaDtl, w: &mut SysfsWriter<'_>) -> core::fmt::Result {
    writeln!(w, "{}", p.totals.filtered.load(Relaxed))
}

fn show_displaced(p: &VpaDtl, w: &mut SysfsWriter<'_>) -> core::fmt::Result {
    writeln!(w, "{}", p.totals.displaced.load(Relaxed))
}

fn show_torn(p: &VpaDtl, w: &mut SysfsWriter<'_>) -> core::fmt::Result {
    writeln!(w, "{}", p.totals.torn.load(Relaxed))
}

fn show_boot_tb_err(p: &VpaDtl, w: &mut SysfsWriter<'_>) -> core::fmt::Result {
    writeln!(w, "{}", p.boot_tb_err)
}

/// `format/`, `events/` and `stats/`.
pub(crate) static GROUPS: [AttrGroup<VpaDtl>; 3] = [
    AttrGroup::fixed(c"format", &[(c"event", AttrValue::Fixed(c"config:0-7"))]),
    AttrGroup::fixed(
        c"events",
        &[
            (c"dtl_cede", AttrValue::Fixed(c"event=0x1")),
            (c"dtl_preempt", AttrValue::Fixed(c"event=0x2")),
            (c"dtl_fault", AttrValue::Fixed(c"event=0x4")),
            (c"dtl_all", AttrValue::Fixed(c"event=0x7")),
        ],
    ),
    AttrGroup::fixed(
        c"stats",
        &[
            (c"captured", AttrValue::Show(show_captured)),
            (c"lost_overrun", AttrValue::Show(show_lost_overrun)),
            (c"lost_aux_full", AttrValue::Show(show_lost_aux_full)),
            (c"lost_foreign", AttrValue::Show(show_lost_foreign)),
            (c"filtered", AttrValue::Show(show_filtered)),
            (c"displaced", AttrValue::Show(show_displaced)),
            (c"lost_torn", AttrValue::Show(show_torn)),
            (c"boot_tb_error_ticks", AttrValue::Show(show_boot_tb_err)),
        ],
    ),
];
