// SPDX-License-Identifier: GPL-2.0

//! POWER pseries (PAPR) facilities for the Dispatch Trace Log: platform
//! checks, the timebase, and a per-CPU DTL buffer registered with the
//! hypervisor through `H_REGISTER_VPA`.
//!
//! C headers: [`arch/powerpc/include/asm/lppaca.h`](srctree/arch/powerpc/include/asm/lppaca.h),
//! [`arch/powerpc/include/asm/dtl.h`](srctree/arch/powerpc/include/asm/dtl.h),
//! [`arch/powerpc/include/asm/plpar_wrappers.h`](srctree/arch/powerpc/include/asm/plpar_wrappers.h)
//!
//! Included by a driver crate next to `rust/pmu` (it uses
//! `crate::pmu::bindings`).

use crate::pmu::bindings;
use core::{cell::UnsafeCell, mem::ManuallyDrop, ptr::addr_of_mut};
use kernel::{
    prelude::*,
    sync::atomic::{Atomic, Relaxed},
};

/// Bytes in a DTL buffer (`DISPATCH_LOG_BYTES`).
pub const DTL_BYTES: usize = 4096;
/// Size of a DTL entry (`struct dtl_entry`).
pub const DTL_ENTRY_BYTES: usize = 48;
/// Entries in a DTL buffer (`N_DISPATCH_LOG`).
pub const DTL_ENTRIES: usize = DTL_BYTES / DTL_ENTRY_BYTES;

/// Whether this is a shared-processor LPAR (`FW_FEATURE_SPLPAR`).
pub fn is_shared_processor_lpar() -> bool {
    // SAFETY: Reads the firmware feature bits set at boot.
    unsafe { bindings::rpmu_fw_splpar() }
}

/// Whether the kernel runs as a KVM guest rather than under PowerVM.
pub fn is_kvm_guest() -> bool {
    // SAFETY: Reads a static key set at boot.
    unsafe { bindings::rpmu_is_kvm_guest() }
}

/// The timebase frequency (`tb_ticks_per_sec`).
pub fn timebase_frequency() -> u64 {
    // SAFETY: Set once at boot.
    unsafe { bindings::rpmu_tb_ticks_per_sec() as u64 }
}

/// The current timebase (`mftb`).
pub fn timebase() -> u64 {
    // SAFETY: Reads a special-purpose register.
    unsafe { bindings::rpmu_mftb() }
}

/// The scheduler clock in nanoseconds (`local_clock()`), perf's default
/// timestamp clock.
pub fn local_clock_ns() -> u64 {
    // SAFETY: Callable from any context.
    unsafe { bindings::rpmu_local_clock() }
}

/// Number of possible CPU ids (`nr_cpu_ids`).
pub fn nr_cpu_ids() -> u32 {
    // SAFETY: Set at boot.
    unsafe { bindings::rpmu_nr_cpu_ids() }
}

#[repr(C, align(4096))]
struct Ring(UnsafeCell<[u8; DTL_BYTES]>);

// SAFETY: All-zero bytes are a valid `Ring`.
unsafe impl pin_init::Zeroable for Ring {}

/// A DTL buffer for one CPU: 4 KiB, aligned to 4 KiB (so it never crosses a
/// page), with its size in the second big-endian word as `H_REGISTER_VPA`
/// expects.
///
/// # Invariants
///
/// - `cpu` is a possible CPU.
/// - While `registered` is true the hypervisor may write `ring` at any time;
///   the buffer is deregistered before it is freed (see `Drop`).
pub struct DtlBuffer {
    ring: ManuallyDrop<KBox<Ring>>,
    cpu: u32,
    hwcpu: i32,
    registered: Atomic<bool>,
}

// SAFETY: The ring is only written by the hypervisor and read with volatile
// copies; the other fields are plain values or atomics.
unsafe impl Send for DtlBuffer {}
// SAFETY: As above.
unsafe impl Sync for DtlBuffer {}

/// A failed hypervisor call; holds the `H_*` return code.
#[derive(Debug, Clone, Copy)]
pub struct HcallError(pub i64);

impl DtlBuffer {
    /// Allocates a buffer for `cpu` (which may sleep).
    pub fn new(cpu: u32) -> Result<Self> {
        if cpu >= nr_cpu_ids() {
            return Err(EINVAL);
        }
        // Zeroed in place: a 4 KiB value would otherwise pass through the
        // stack.
        let ring = KBox::init::<core::convert::Infallible>(pin_init::zeroed::<Ring>(), GFP_KERNEL)?;
        // SAFETY: `cpu` is a possible CPU; its paca is set up at boot.
        let hwcpu = unsafe { bindings::rpmu_hard_smp_processor_id(cpu as c_int) };
        // INVARIANT: `cpu` checked above; not registered yet.
        Ok(Self {
            ring: ManuallyDrop::new(ring),
            cpu,
            hwcpu,
            registered: Atomic::new(false),
        })
    }

    /// The CPU this buffer is for.
    pub fn cpu(&self) -> u32 {
        self.cpu
    }

    fn lppaca(&self) -> *mut bindings::lppaca {
        // SAFETY: `cpu` is a possible CPU (invariant); every possible CPU has
        // an lppaca for the kernel's lifetime.
        unsafe { bindings::rpmu_lppaca_of(self.cpu as c_int) }
    }

    /// Registers the buffer with the hypervisor for its CPU and resets the
    /// published index to zero, with logging disabled (enable mask 0).
    pub fn register(&self) -> core::result::Result<(), HcallError> {
        let base = self.ring.0.get().cast::<u8>();
        let size = (DTL_BYTES as u32).to_be_bytes();
        // SAFETY: Not registered, so the hypervisor does not write the ring;
        // bytes 4..8 are within it.
        unsafe { core::ptr::copy_nonoverlapping(size.as_ptr(), base.add(4), 4) };
        let lp = self.lppaca();
        // SAFETY: `lp` is valid; the enable mask and index are plain fields
        // the hypervisor reads; disabling before registering means no entry
        // is logged until `enable`.
        unsafe {
            core::ptr::write_volatile(addr_of_mut!((*lp).dtl_enable_mask), 0);
        }
        // SAFETY: `base` is the physical-contiguous 4 KiB buffer, which stays
        // allocated while registered (invariant).
        let rc = unsafe { bindings::rpmu_register_dtl(self.hwcpu, bindings::rpmu_pa(base.cast())) };
        if rc != 0 {
            return Err(HcallError(rc as i64));
        }
        self.registered.store(true, Relaxed);
        // SAFETY: `lp` is valid; the index starts at zero for a new buffer.
        unsafe { core::ptr::write_volatile(addr_of_mut!((*lp).dtl_idx), 0) };
        Ok(())
    }

    /// Sets which dispatch events the hypervisor logs (`dtl_enable_mask`);
    /// the index reset done by [`Self::register`] is ordered before it.
    pub fn set_enable_mask(&self, mask: u8) {
        let lp = self.lppaca();
        // SAFETY: `lp` is valid. The barrier orders the index reset before
        // the hypervisor may act on the new mask.
        unsafe {
            kernel::sync::barrier::smp_mb(kernel::sync::barrier::Write);
            core::ptr::write_volatile(addr_of_mut!((*lp).dtl_enable_mask), mask);
        }
    }

    /// Disables logging and deregisters the buffer; a no-op if not
    /// registered.
    pub fn unregister(&self) -> core::result::Result<(), HcallError> {
        if !self.registered.load(Relaxed) {
            return Ok(());
        }
        self.set_enable_mask(0);
        // SAFETY: The buffer is registered for `hwcpu`.
        let rc = unsafe { bindings::rpmu_unregister_dtl(self.hwcpu) };
        if rc != 0 {
            return Err(HcallError(rc as i64));
        }
        self.registered.store(false, Relaxed);
        Ok(())
    }

    /// Whether the buffer is registered.
    pub fn is_registered(&self) -> bool {
        self.registered.load(Relaxed)
    }

    /// The index the hypervisor published (entries written since
    /// registration), with a read barrier so that entry contents read
    /// afterwards are at least as new.
    pub fn published_index(&self) -> u64 {
        let lp = self.lppaca();
        // SAFETY: `lp` is valid; `dtl_idx` is a big-endian word the
        // hypervisor updates after writing each entry.
        let raw = unsafe { core::ptr::read_volatile(addr_of_mut!((*lp).dtl_idx)) };
        kernel::sync::barrier::smp_mb(kernel::sync::barrier::Read);
        u64::from_be(raw)
    }

    /// Copies `len` entries starting at ring slot `slot` into `dst` (which
    /// must hold them), with volatile reads: the hypervisor may be writing.
    pub fn copy_slots(&self, slot: usize, len: usize, dst: &mut [u8]) {
        assert!(slot + len <= DTL_ENTRIES && dst.len() >= len * DTL_ENTRY_BYTES);
        let src = self.ring.0.get().cast::<u64>();
        let words = len * DTL_ENTRY_BYTES / 8;
        let first = slot * DTL_ENTRY_BYTES / 8;
        for i in 0..words {
            // SAFETY: `first + i` is within the 512-word ring (checked above)
            // and the ring is 8-byte aligned.
            let w = unsafe { core::ptr::read_volatile(src.add(first + i)) };
            dst[i * 8..i * 8 + 8].copy_from_slice(&w.to_ne_bytes());
        }
    }
}

impl Drop for DtlBuffer {
    fn drop(&mut self) {
        if let Err(HcallError(rc)) = self.unregister() {
            // The hypervisor may still write the buffer: freeing it would
            // corrupt memory, so it is deliberately leaked.
            pr_err!(
                "cpu {}: DTL deregistration failed ({}); leaking the buffer\n",
                self.cpu,
                rc
            );
            return;
        }
        // SAFETY: Deregistered, so nothing writes the ring any more; dropped
        // exactly once, here.
        unsafe { ManuallyDrop::drop(&mut self.ring) };
    }
}
