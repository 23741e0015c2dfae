// SPDX-License-Identifier: GPL-2.0

//! A register window the model maps itself: the RAM behind one of the
//! device tree's register ranges.

use crate::{kind::Cells, rpmu::bindings as b};
use core::ptr;
use kernel::prelude::*;

/// Page size the windows are aligned to.
pub(crate) const PAGE: usize = 4096;

/// A register window mapped by the model; unmapped on drop.
///
/// # Invariants
///
/// `va` is a `memremap` mapping of `size` bytes, not yet unmapped.
pub(crate) struct Window {
    va: *mut u32,
    size: usize,
}

// SAFETY: The mapping is plain memory, not tied to a thread; the model
// accesses it under its lock.
unsafe impl Send for Window {}
// SAFETY: As above.
unsafe impl Sync for Window {}

impl Cells for Window {
    fn rd(&self, off: usize) -> u32 {
        if off % 4 != 0 || off + 4 > self.size {
            return 0;
        }
        // SAFETY: `va` maps `size` bytes (type invariant), `off` is an
        // aligned offset inside them.
        unsafe { ptr::read_volatile(self.va.add(off / 4)) }
    }

    fn wr(&self, off: usize, val: u32) {
        if off % 4 != 0 || off + 4 > self.size {
            return;
        }
        // SAFETY: As in `rd`.
        unsafe { ptr::write_volatile(self.va.add(off / 4), val) }
    }
}

impl Drop for Window {
    fn drop(&mut self) {
        // SAFETY: Mapped by `map_window` (type invariant), unmapped once here.
        unsafe { b::xgsim_memunmap(self.va.cast()) };
    }
}

/// Maps `size` bytes at `pa` write-back. The drivers map the same RAM as
/// Device memory; on real hardware mismatched attributes could lose
/// coherency, but QEMU TCG models no caches, so both views see every store.
/// The caller has checked that `pa` lies in a `no-map` reserved-memory
/// region (`dt::check_reserved`).
pub(crate) fn map_window(pa: u64, size: u64) -> Result<Window> {
    if pa % PAGE as u64 != 0 || size == 0 || size % PAGE as u64 != 0 {
        pr_err!(
            "window {:#x}+{:#x} is not page aligned; refusing\n",
            pa,
            size
        );
        return Err(EINVAL);
    }
    // SAFETY: `pa` lies in a no-map reserved-memory region (caller), which
    // no other kernel user owns as RAM.
    let va = unsafe { b::xgsim_memremap_wb(pa, size as usize) };
    if va.is_null() {
        pr_err!("memremap({:#x}, {:#x}) failed\n", pa, size);
        return Err(ENOMEM);
    }
    // INVARIANT: mapped above.
    Ok(Window {
        va: va.cast(),
        size: size as usize,
    })
}
