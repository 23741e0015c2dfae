// SPDX-License-Identifier: GPL-2.0

//! The DTL enable mask: which event kinds the hypervisor logs, and what a
//! change of it by another DTL user tells a reader.

use super::{Displacement, DtlBuffer, Mode, MASK_CHANGED, NOT_DISPLACED, REREGISTERED};
use core::ptr::addr_of_mut;
use kernel::sync::atomic::Relaxed;

impl DtlBuffer {
    /// The CPU's current DTL enable mask.
    pub fn enable_mask(&self) -> u8 {
        // SAFETY: `lppaca()` is valid; a plain byte the partition writes.
        unsafe { core::ptr::read_volatile(addr_of_mut!((*self.lppaca()).dtl_enable_mask)) }
    }

    fn write_mask(&self, mask: u8) {
        let lp = self.lppaca();
        // SAFETY: `lp` is valid. The barrier orders earlier index updates
        // before the hypervisor may act on the new mask.
        unsafe {
            kernel::sync::barrier::smp_mb(kernel::sync::barrier::Write);
            core::ptr::write_volatile(addr_of_mut!((*lp).dtl_enable_mask), mask);
        }
    }

    /// Starts logging the event kinds in `kinds`. `Own`: the enable mask
    /// becomes `kinds`. `Shared`: `kinds` are added to the kernel's mask.
    pub fn enable(&self, kinds: u8) {
        if self.displaced.load(Relaxed) != NOT_DISPLACED {
            return;
        }
        match self.mode() {
            Mode::Own => {
                self.mask.store(u32::from(kinds), Relaxed);
                self.write_mask(kinds);
            }
            Mode::Shared => {
                let cur = self.enable_mask();
                self.added.store(u32::from(kinds & !cur), Relaxed);
                self.mask.store(u32::from(cur | kinds), Relaxed);
                self.write_mask(cur | kinds);
            }
        }
    }

    /// Stops logging what [`Self::enable`] started, unless another DTL user
    /// changed the enable mask since: the mask is then that user's, and is
    /// left alone. `Own`: such a change means the log was taken, and the
    /// buffer counts as displaced. `Shared`: takes back only the bits it
    /// added, leaving the kernel's; a reader that changed the mask (debugfs
    /// `dtl`, `vcpudispatch_stats`) resets it itself when it is done.
    pub fn disable(&self) {
        if self.is_displaced() {
            return;
        }
        let cur = self.enable_mask();
        let ours = self.mask.load(Relaxed) as u8;
        if cur != ours {
            if self.mode() == Mode::Own {
                self.mark_displaced(Displacement::MaskChanged);
            }
            self.added.store(0, Relaxed);
            return;
        }
        match self.mode() {
            Mode::Own => {
                self.mask.store(0, Relaxed);
                self.write_mask(0);
            }
            Mode::Shared => {
                let added = self.added.xchg(0, Relaxed) as u8;
                self.mask.store(u32::from(cur & !added), Relaxed);
                if added != 0 {
                    self.write_mask(cur & !added);
                }
            }
        }
    }

    /// Checks that the enable mask still logs `kinds`, as [`Self::enable`]
    /// set it. `Own`: any change means another user is taking the DTL
    /// (returns `false`; see [`Self::mark_displaced`]). `Shared`: another
    /// reader may have reset the mask to the kernel's default; the missing
    /// bits are added back and `false` tells the caller that entries may
    /// have gone unlogged meanwhile.
    pub fn logging_intact(&self, kinds: u8) -> bool {
        let cur = self.enable_mask();
        match self.mode() {
            Mode::Own => u32::from(cur) == self.mask.load(Relaxed),
            Mode::Shared => {
                let missing = kinds & !cur;
                if missing == 0 {
                    return true;
                }
                let added = self.added.load(Relaxed);
                self.added.store(added | u32::from(missing), Relaxed);
                self.mask.store(u32::from(cur | missing), Relaxed);
                self.write_mask(cur | missing);
                false
            }
        }
    }

    /// Records that another DTL user took the CPU's log (`Own` only): from
    /// now on this buffer neither changes the enable mask nor deregisters,
    /// since the registration is no longer ours. Stronger evidence
    /// overrides weaker.
    pub fn mark_displaced(&self, how: Displacement) {
        let v = match how {
            Displacement::MaskChanged => MASK_CHANGED,
            Displacement::Reregistered => REREGISTERED,
        };
        if v > self.displaced.load(Relaxed) {
            self.displaced.store(v, Relaxed);
        }
    }

    /// Whether another DTL user took the CPU's log.
    pub fn is_displaced(&self) -> bool {
        self.displaced.load(Relaxed) != NOT_DISPLACED
    }
}
