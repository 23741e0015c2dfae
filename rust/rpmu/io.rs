// SPDX-License-Identifier: GPL-2.0

//! Register windows of a bound device's sub-blocks, and memory another
//! agent writes while the kernel reads it.
//!
//! C header: [`include/linux/io.h`](srctree/include/linux/io.h)
//!
//! A [`Mmio`] is only ever made from the firmware description of a device
//! the driver is bound to: one of the platform device's memory resources, or
//! the `reg`/`_CRS` window of one of its child nodes. So safe code cannot map
//! arbitrary physical memory. The kernel crate's `IoMem` covers platform
//! resources but not child nodes, and its lifetime ties it to the probe,
//! while a PMU's driver data must be `'static`.

use crate::rpmu::{bindings, firmware::ChildNode};
use core::{ffi::c_void, marker::PhantomData, ptr::NonNull};
use kernel::{
    device::Bound,
    platform,
    prelude::*,
    sync::atomic::{Atomic, Relaxed},
};

/// `len` 8-byte words of memory that another agent (a hypervisor, a
/// device) may write while the kernel reads them, such as the DTL ring the
/// hypervisor logs into: they are read with volatile loads, one word at a
/// time, as C's `READ_ONCE` reads them, never as Rust values, so they need
/// not be stable.
///
/// Only the owner of such memory makes one ([`SharedWords::new`]); a
/// consumer copies records out of it
/// ([`AuxWindow::copy_records_while`](crate::rpmu::perf::AuxWindow::copy_records_while)),
/// and neither needs to know the other.
///
/// # Invariants
///
/// `ptr` is 8-byte aligned and valid for reads of `len` words for `'a`.
#[derive(Clone, Copy)]
pub struct SharedWords<'a> {
    ptr: NonNull<u64>,
    len: usize,
    _memory: PhantomData<&'a [u64]>,
}

impl<'a> SharedWords<'a> {
    /// The `len` words at `ptr`.
    ///
    /// # Safety
    ///
    /// `ptr` must be 8-byte aligned and valid for reads of `len` words for
    /// `'a`, and the words must not overlap any AUX area they may be copied
    /// into. Another agent may write them meanwhile.
    pub unsafe fn new(ptr: NonNull<u64>, len: usize) -> Self {
        // INVARIANT: The caller's guarantee.
        Self {
            ptr,
            len,
            _memory: PhantomData,
        }
    }

    /// Their number.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first word, 8-byte aligned and valid for reads of [`Self::len`]
    /// words for `'a` (type invariant).
    pub(in crate::rpmu) fn as_ptr(&self) -> *const u64 {
        self.ptr.as_ptr()
    }
}

/// A physical memory window (`struct resource` of type `IORESOURCE_MEM`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemWindow {
    /// First byte.
    pub start: u64,
    /// Length in bytes.
    pub size: u64,
}

impl MemWindow {
    /// Reads a `struct resource`, if it describes memory.
    pub(in crate::rpmu) fn from_resource(res: &bindings::resource) -> Option<Self> {
        if (res.flags & bindings::IORESOURCE_MEM as usize) == 0 || res.end < res.start {
            return None;
        }
        Some(Self {
            start: res.start,
            // `end >= start` (checked above); a window of the whole address
            // space has no `u64` size and is refused.
            size: res.end.checked_sub(res.start)?.checked_add(1)?,
        })
    }

    /// The memory resource `index` of a bound platform device (in resource
    /// order: DT `reg` entries, or ACPI `_CRS` memory descriptors).
    pub fn of_platform(pdev: &platform::Device<Bound>, index: u32) -> Option<Self> {
        let mut n = 0;
        let mut i = 0;
        while let Some(res) = pdev.resource_by_index(i) {
            let mem = res
                .flags()
                .contains(kernel::io::resource::Flags::IORESOURCE_MEM);
            if mem {
                if n == index {
                    let size = res.size();
                    // `PhysAddr`/`ResourceSize` are 32-bit on some
                    // architectures; the conversion is a no-op on arm64.
                    #[allow(clippy::useless_conversion)]
                    return (size > 0).then(|| Self {
                        start: u64::from(res.start()),
                        size: u64::from(size),
                    });
                }
                // Past `u32::MAX` resources there is no index left to ask
                // for: not found.
                n = n.checked_add(1)?;
            }
            i = i.checked_add(1)?;
        }
        None
    }
}

/// A mapped register window of 32-bit registers; unmapped on drop.
///
/// Accesses use `readl`/`writel`. An access outside the window or not 4-byte
/// aligned is refused (reads return 0) and reported once per window, so a
/// driver bug cannot reach memory beyond the mapping.
///
/// # Invariants
///
/// `base` is the `ioremap` mapping of `size` bytes of a window a bound
/// device's firmware description gave, not yet unmapped.
pub struct Mmio {
    base: NonNull<c_void>,
    size: usize,
    window: MemWindow,
    complained: Atomic<bool>,
}

// SAFETY: The mapping is not tied to a thread; `readl`/`writel` may be used
// from any context, and concurrent accesses are the device's business.
unsafe impl Send for Mmio {}
// SAFETY: As above; `&Mmio` only allows MMIO accesses.
unsafe impl Sync for Mmio {}

impl Mmio {
    /// Maps memory resource `index` of the bound platform device `pdev`.
    pub fn of_platform(pdev: &platform::Device<Bound>, index: u32) -> Result<Self> {
        Self::map(MemWindow::of_platform(pdev, index).ok_or(ENODEV)?)
    }

    /// Maps the register window of `child`, a firmware child node of a bound
    /// device.
    pub fn of_child(child: &ChildNode<'_>) -> Result<Self> {
        Self::map(child.mem_window()?)
    }

    fn map(window: MemWindow) -> Result<Self> {
        let size = usize::try_from(window.size).map_err(|_| EINVAL)?;
        if size == 0 {
            return Err(EINVAL);
        }
        // SAFETY: The window comes from the firmware description of a bound
        // device (both callers), so it is that device's register space.
        let base = unsafe { bindings::rpmu_ioremap(window.start, size) };
        let base = NonNull::new(base).ok_or(ENOMEM)?;
        // INVARIANT: `base` maps `size` bytes of the device's window.
        Ok(Self {
            base,
            size,
            window,
            complained: Atomic::new(false),
        })
    }

    /// The physical window.
    pub fn window(&self) -> MemWindow {
        self.window
    }

    /// Logs, once, an access outside the window; out of line, so that the
    /// accessors keep small frames.
    #[cold]
    #[inline(never)]
    fn refuse(&self, offset: usize) {
        if !self.complained.xchg(true, Relaxed) {
            pr_err!(
                "MMIO access at offset {:#x} outside the {:#x}-byte window at {:#x} refused\n",
                offset,
                self.size,
                self.window.start
            );
        }
    }

    fn addr(&self, offset: usize) -> Option<*mut c_void> {
        if offset % 4 != 0 || offset.checked_add(4).is_none_or(|end| end > self.size) {
            self.refuse(offset);
            return None;
        }
        // SAFETY: `offset + 4 <= size`, so the result stays in the mapping.
        Some(unsafe { self.base.as_ptr().byte_add(offset) })
    }

    /// Reads the 32-bit register at `offset`.
    pub fn read32(&self, offset: usize) -> u32 {
        match self.addr(offset) {
            // SAFETY: `a` is an aligned address inside the mapping (type
            // invariant and `addr`).
            Some(a) => unsafe { bindings::rpmu_readl(a) },
            None => 0,
        }
    }

    /// Writes the 32-bit register at `offset`.
    pub fn write32(&self, offset: usize, value: u32) {
        if let Some(a) = self.addr(offset) {
            // SAFETY: As for `read32`.
            unsafe { bindings::rpmu_writel(value, a) }
        }
    }
}

impl Drop for Mmio {
    fn drop(&mut self) {
        // SAFETY: By the type invariant `base` is a live `ioremap` mapping;
        // it is unmapped once, here.
        unsafe { bindings::iounmap(self.base.as_ptr()) }
    }
}
