// SPDX-License-Identifier: GPL-2.0

//! Dispatch Trace Log buffers: one 4 KiB ring per CPU, registered with the
//! hypervisor through `H_REGISTER_VPA`, which then logs dispatch events into
//! it and publishes its index in the CPU's lppaca.

use crate::rpmu::bindings;
use core::{cell::UnsafeCell, mem::ManuallyDrop, ptr::addr_of_mut};
use kernel::{
    cpu::CpuId,
    prelude::*,
    sync::atomic::{Atomic, Relaxed},
};

/// Bytes in a DTL buffer (`DISPATCH_LOG_BYTES`).
pub const DTL_BYTES: usize = 4096;
/// Size of a DTL entry (`struct dtl_entry`).
pub const DTL_ENTRY_BYTES: usize = 48;
/// Entries in a DTL buffer (`N_DISPATCH_LOG`).
pub const DTL_ENTRIES: usize = DTL_BYTES / DTL_ENTRY_BYTES;

/// Upper bound of `nr_cpu_ids` on powerpc (its largest `CONFIG_NR_CPUS`).
pub const MAX_CPUS: usize = 8192;

/// `CLAIMED[cpu]`: a [`DtlBuffer`] of this module exists for that CPU.
static CLAIMED: [Atomic<bool>; MAX_CPUS] = [const { Atomic::new(false) }; MAX_CPUS];

/// The exclusive claim of one CPU's DTL within this module; released when
/// dropped.
///
/// # Invariants
///
/// `CLAIMED[cpu]` was set by [`Claim::take`] and is cleared only by `drop`.
struct Claim(usize);

impl Claim {
    fn take(cpu: CpuId) -> Result<Self> {
        let i = u32::from(cpu) as usize;
        let slot = CLAIMED.get(i).ok_or(EINVAL)?;
        slot.cmpxchg(false, true, kernel::sync::atomic::Full)
            .map_err(|_| EBUSY)?;
        // INVARIANT: set above.
        Ok(Claim(i))
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        if let Some(slot) = CLAIMED.get(self.0) {
            slot.store(false, kernel::sync::atomic::Release);
        }
    }
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
/// - `cpu` is a possible CPU (`CpuId` invariant).
/// - While `registered` is true the hypervisor may write `ring` at any time;
///   the buffer is deregistered before it is freed (see `Drop`).
pub struct DtlBuffer {
    ring: ManuallyDrop<KBox<Ring>>,
    cpu: CpuId,
    hwcpu: i32,
    registered: Atomic<bool>,
    /// Dropped after `Drop::drop` deregistered the buffer, so that the next
    /// owner of the CPU's DTL finds it free.
    _claim: Claim,
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
    /// Allocates a buffer for `cpu` (which may sleep). Fails with `EBUSY` if
    /// this module already has a buffer for `cpu`: a CPU has one DTL.
    pub fn new(cpu: CpuId) -> Result<Self> {
        let claim = Claim::take(cpu)?;
        // Zeroed in place: a 4 KiB value would otherwise pass through the
        // stack.
        let ring = KBox::init::<core::convert::Infallible>(pin_init::zeroed::<Ring>(), GFP_KERNEL)?;
        // SAFETY: `cpu` is a possible CPU; its paca is set up at boot.
        let hwcpu = unsafe { bindings::rpmu_hard_smp_processor_id(i32::from(cpu)) };
        // INVARIANT: `cpu` is a `CpuId`; not registered yet.
        Ok(Self {
            ring: ManuallyDrop::new(ring),
            cpu,
            hwcpu,
            registered: Atomic::new(false),
            _claim: claim,
        })
    }

    /// The CPU this buffer is for.
    pub fn cpu(&self) -> CpuId {
        self.cpu
    }

    fn lppaca(&self) -> *mut bindings::lppaca {
        // SAFETY: `cpu` is a possible CPU (invariant); every possible CPU has
        // an lppaca for the kernel's lifetime.
        unsafe { bindings::rpmu_lppaca_of(i32::from(self.cpu)) }
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

    /// Copies `len` entries starting at ring slot `slot` into `dst`, with
    /// volatile reads: the hypervisor may be writing. Fails with `EINVAL`,
    /// copying nothing, if the slots are outside the ring or `dst` cannot
    /// hold them.
    pub fn copy_slots(&self, slot: usize, len: usize, dst: &mut [u8]) -> Result {
        let end = slot.checked_add(len).ok_or(EINVAL)?;
        let bytes = len * DTL_ENTRY_BYTES;
        if end > DTL_ENTRIES || dst.len() < bytes {
            return Err(EINVAL);
        }
        let src = self.ring.0.get().cast::<u64>();
        let first = slot * DTL_ENTRY_BYTES / 8;
        for (i, chunk) in dst[..bytes].chunks_exact_mut(8).enumerate() {
            // SAFETY: `first + i` is within the 512-word ring (checked above)
            // and the ring is 8-byte aligned.
            let w = unsafe { core::ptr::read_volatile(src.add(first + i)) };
            chunk.copy_from_slice(&w.to_ne_bytes());
        }
        Ok(())
    }
}

impl Drop for DtlBuffer {
    fn drop(&mut self) {
        if let Err(HcallError(rc)) = self.unregister() {
            // The hypervisor may still write the buffer: freeing it would
            // corrupt memory, so it is deliberately leaked.
            pr_err!(
                "cpu {}: DTL deregistration failed ({}); leaking the buffer\n",
                u32::from(self.cpu),
                rc
            );
            return;
        }
        // SAFETY: Deregistered, so nothing writes the ring any more; dropped
        // exactly once, here.
        unsafe { ManuallyDrop::drop(&mut self.ring) };
    }
}
