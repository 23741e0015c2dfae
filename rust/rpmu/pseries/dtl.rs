// SPDX-License-Identifier: GPL-2.0

//! Dispatch Trace Log buffers: one ring per CPU (4 KiB, or 64 KiB where the
//! hypervisor takes it, see [`RingSize`]), registered with the hypervisor
//! through `H_REGISTER_VPA`, which then logs dispatch events into it and
//! publishes its index in the CPU's lppaca.
//!
//! A CPU has one DTL, and the kernel may use it too:
//!
//! - With `CONFIG_VIRT_CPU_ACCOUNTING_NATIVE` the kernel registers a buffer
//!   of its own for every CPU (`paca->dispatch_log`, logging time-slice
//!   preempts) and reads it for steal time; debugfs `dtl` and
//!   `/proc/powerpc/vcpudispatch_stats` then read that same ring. A
//!   [`DtlBuffer`] of such a CPU is [`Mode::Shared`]: it reads the kernel's
//!   ring with an index of its own, adds its event kinds to the enable mask,
//!   and takes back only the bits it added.
//! - Otherwise the buffer is [`Mode::Own`]: this module allocates and
//!   registers it. debugfs `dtl` and `vcpudispatch_stats` register buffers
//!   of their own, and the lock that orders them (`dtl_access_lock`) is not
//!   exported, so [`DtlBuffer::register`] refuses while one of them is
//!   visibly active, and a reader detects one that starts later
//!   ([`DtlBuffer::mark_displaced`]); a displaced buffer is neither
//!   deregistered (the registration may no longer be ours) nor reused, and
//!   is leaked rather than freed under a possible writer.

use crate::rpmu::bindings;
use core::{cell::UnsafeCell, mem::ManuallyDrop, ptr::addr_of_mut, ptr::NonNull};
use kernel::{
    cpu::CpuId,
    prelude::*,
    sync::atomic::{Atomic, Relaxed},
};

mod claim;
pub mod geometry;
mod mask;
mod read;
pub use read::RingView;
mod types;
pub use claim::MAX_CPUS;
pub use geometry::{
    DTL_BYTES, DTL_ENTRIES, DTL_ENTRY_BYTES, DTL_ENTRY_WORDS, DTL_LARGE_BYTES, DTL_LARGE_ENTRIES,
};

// The geometry is the kernel's.
const _: () = assert!(DTL_BYTES == bindings::DISPATCH_LOG_BYTES as usize);
const _: () = assert!(DTL_ENTRY_BYTES == core::mem::size_of::<bindings::dtl_entry>());
const _: () = assert!(DTL_LARGE_ENTRIES <= u32::MAX as usize);
use claim::{Changing, Claim};
pub use types::{Displacement, HcallError, Mode, RegisterError, RingSize, Start};

enum Ring {
    Own(ManuallyDrop<KBox<RingMem>>),
    OwnLarge(ManuallyDrop<KBox<LargeRingMem>>),
    /// Points at the kernel's 4 KiB `dispatch_log`, which under native
    /// accounting is never freed.
    Kernel(NonNull<u8>),
}

#[repr(C, align(4096))]
struct RingMem(UnsafeCell<[u8; DTL_BYTES]>);

// SAFETY: All-zero bytes are a valid `RingMem`.
unsafe impl pin_init::Zeroable for RingMem {}

/// Aligned to its size, so that it lies in one page of any host page size
/// up to 64 KiB.
#[repr(C, align(65536))]
struct LargeRingMem(UnsafeCell<[u8; DTL_LARGE_BYTES]>);

// SAFETY: All-zero bytes are a valid `LargeRingMem`.
unsafe impl pin_init::Zeroable for LargeRingMem {}

/// A zeroed ring, allocated in place: a ring value would otherwise pass
/// through the stack.
fn zeroed_box<T: pin_init::Zeroable>() -> Result<ManuallyDrop<KBox<T>>> {
    let mem = KBox::init::<core::convert::Infallible>(pin_init::zeroed::<T>(), GFP_KERNEL)?;
    Ok(ManuallyDrop::new(mem))
}

/// No displacement seen.
const NOT_DISPLACED: u32 = 0;
/// See [`Displacement::MaskChanged`].
const MASK_CHANGED: u32 = 1;
/// See [`Displacement::Reregistered`].
const REREGISTERED: u32 = 2;

/// A DTL for one CPU: this module's buffer of 4 or 64 KiB, aligned to its
/// size (so it never crosses a page), with its size in the second
/// big-endian word as `H_REGISTER_VPA` expects; or the kernel's own buffer
/// (see [`Mode`]).
///
/// # Invariants
///
/// - `cpu` is a possible CPU (checked by `new`).
/// - An `Own` ring is allocated, and does not move (it is boxed), until
///   `Drop`; it stays allocated while the hypervisor may write it: while
///   `registered` is true, and for ever after a displacement (see `Drop`).
/// - `entries` is at most the ring's bytes divided by [`DTL_ENTRY_BYTES`].
/// - A `Kernel` ring points at the CPU's `dispatch_log`, allocated at boot
///   and never freed under native accounting.
/// - `lppaca` is the CPU's lppaca, which lives as long as the kernel.
pub struct DtlBuffer {
    ring: Ring,
    cpu: CpuId,
    lppaca: NonNull<bindings::lppaca>,
    hwcpu: i32,
    /// Entries in the ring as registered (see [`Start::entries`]).
    entries: Atomic<u32>,
    registered: Atomic<bool>,
    /// Set while `register` or `unregister` runs: they exclude each other,
    /// so `registered` always says whether the hypervisor may write the ring
    /// (which `Drop` relies on to free it).
    changing: Atomic<bool>,
    /// `Shared`: the enable-mask bits this buffer added (and takes back).
    /// Like `mask` and `displaced`, only changed on the buffer's CPU with
    /// interrupts off (perf's callbacks and the polling timer), so plain
    /// loads and stores suffice.
    added: Atomic<u32>,
    /// The enable mask as this buffer last wrote it (`Own`: its kinds;
    /// `Shared`: the kernel's bits and its kinds).
    mask: Atomic<u32>,
    displaced: Atomic<u32>,
    /// Dropped after `Drop::drop` deregistered the buffer, so that the next
    /// owner of the CPU's DTL finds it free.
    _claim: Claim,
}

// SAFETY: The ring is only written by the hypervisor and read with volatile
// copies; the lppaca is the CPU's, shared with the hypervisor and accessed
// with volatile reads and writes; the other fields are plain values or
// atomics.
unsafe impl Send for DtlBuffer {}
// SAFETY: As above.
unsafe impl Sync for DtlBuffer {}

fn native_accounting() -> bool {
    // SAFETY: Reads a build-time constant.
    unsafe { bindings::rpmu_native_accounting() }
}

fn kernel_ring(cpu: CpuId) -> Option<NonNull<u8>> {
    // SAFETY: `cpu` is a possible CPU; its paca is set up at boot.
    NonNull::new(unsafe { bindings::rpmu_dispatch_log(i32::from(cpu)) }.cast())
}

impl DtlBuffer {
    /// A DTL reader for `cpu` (allocating, so it may sleep): [`Mode::Shared`]
    /// if the kernel keeps a DTL of its own for the CPU, else [`Mode::Own`]
    /// with a ring of `size`. Fails with `ENODEV` if `cpu` is not a possible
    /// CPU, and with `EBUSY` if this module already has a reader for `cpu`:
    /// a CPU has one DTL.
    pub fn new(cpu: CpuId, size: RingSize) -> Result<Self> {
        // A number below `nr_cpu_ids` may still have no paca or lppaca.
        if !crate::rpmu::cpu::is_possible(cpu) {
            return Err(ENODEV);
        }
        let claim = Claim::take(cpu)?;
        // SAFETY: `cpu` is a possible CPU (checked above); every possible
        // CPU has an lppaca for the kernel's lifetime.
        let lppaca =
            NonNull::new(unsafe { bindings::rpmu_lppaca_of(i32::from(cpu)) }).ok_or(ENODEV)?;
        let ring = match (kernel_ring(cpu).filter(|_| native_accounting()), size) {
            (Some(p), _) => Ring::Kernel(p),
            (None, RingSize::Standard) => Ring::Own(zeroed_box()?),
            (None, RingSize::Large) => Ring::OwnLarge(zeroed_box()?),
        };
        // SAFETY: `cpu` is a possible CPU; its paca is set up at boot.
        let hwcpu = unsafe { bindings::rpmu_hard_smp_processor_id(i32::from(cpu)) };
        // INVARIANT: `cpu` is a `CpuId`; not registered yet; a kernel ring
        // is only used under native accounting; `lppaca` is the CPU's;
        // every ring holds `DTL_ENTRIES`.
        Ok(Self {
            ring,
            cpu,
            lppaca,
            hwcpu,
            entries: Atomic::new(DTL_ENTRIES as u32),
            registered: Atomic::new(false),
            changing: Atomic::new(false),
            added: Atomic::new(0),
            mask: Atomic::new(0),
            displaced: Atomic::new(NOT_DISPLACED),
            _claim: claim,
        })
    }

    /// The CPU this buffer is for.
    pub fn cpu(&self) -> CpuId {
        self.cpu
    }

    /// Whose ring this is.
    pub fn mode(&self) -> Mode {
        match self.ring {
            Ring::Own(_) | Ring::OwnLarge(_) => Mode::Own,
            Ring::Kernel(_) => Mode::Shared,
        }
    }

    fn base(&self) -> *mut u8 {
        match &self.ring {
            Ring::Own(mem) => mem.0.get().cast(),
            Ring::OwnLarge(mem) => mem.0.get().cast(),
            Ring::Kernel(p) => p.as_ptr(),
        }
    }

    /// The bytes of the ring's memory.
    pub fn capacity_bytes(&self) -> usize {
        match self.ring {
            Ring::Own(_) | Ring::Kernel(_) => DTL_BYTES,
            Ring::OwnLarge(_) => DTL_LARGE_BYTES,
        }
    }

    /// Entries in the ring as last registered ([`Start::entries`]);
    /// [`DTL_ENTRIES`] before.
    #[inline]
    pub fn entries(&self) -> usize {
        self.entries.load(Relaxed) as usize
    }

    /// The CPU's lppaca, valid for the kernel's lifetime (invariant).
    fn lppaca(&self) -> *mut bindings::lppaca {
        self.lppaca.as_ptr()
    }

    /// Whether another DTL user visibly holds the CPU's log, so that
    /// [`Self::register`] would refuse: for an `Own` buffer not registered
    /// yet, logging is on, or the kernel has allocated buffers for
    /// `vcpudispatch_stats` (without native accounting it does so only while
    /// that is on). Never for a `Shared` buffer.
    pub fn other_user_active(&self) -> bool {
        self.mode() == Mode::Own
            && !self.is_registered()
            && (self.enable_mask() != 0 || kernel_ring(self.cpu).is_some())
    }

    /// Makes the hypervisor log into this buffer, with logging disabled
    /// (see [`Self::enable`]), and returns where reading starts.
    ///
    /// `Own`: registers the buffer, which resets the published index to
    /// zero; refuses with [`RegisterError::Busy`] while another DTL user is
    /// active, and after a displacement. `Shared`: the kernel's buffer is
    /// registered already; reading starts at its current index.
    /// Fails with [`RegisterError::Busy`] too while another `register` or
    /// [`Self::unregister`] of this buffer runs.
    pub fn register(&self) -> core::result::Result<Start, RegisterError> {
        let Some(_changing) = Changing::claim(&self.changing) else {
            return Err(RegisterError::Busy);
        };
        let timebase = super::timebase();
        if self.is_registered() {
            // A deregistration failed: the hypervisor may still write the
            // ring, which must not be reset under it.
            return Err(RegisterError::Hcall(HcallError(0)));
        }
        if self.mode() == Mode::Shared {
            self.added.store(0, Relaxed);
            self.registered.store(true, Relaxed);
            return Ok(Start {
                index: self.published_index(),
                timebase,
                entries: DTL_ENTRIES,
            });
        }
        if self.is_displaced() || self.other_user_active() {
            return Err(RegisterError::Busy);
        }
        let mut bytes = self.capacity_bytes();
        let mut rc = self.register_bytes(bytes);
        if rc == i64::from(bindings::H_PARAMETER) && bytes > DTL_BYTES {
            // A hypervisor with a smaller limit (KVM on a host with 4 KiB
            // pages): the first 4 KiB of the ring, which it takes.
            bytes = DTL_BYTES;
            rc = self.register_bytes(bytes);
        }
        if rc != 0 {
            return Err(RegisterError::Hcall(HcallError(rc)));
        }
        let entries = bytes / DTL_ENTRY_BYTES;
        // INVARIANT: `bytes` is at most the ring's (`capacity_bytes`).
        self.entries.store(entries as u32, Relaxed);
        self.registered.store(true, Relaxed);
        self.mask.store(0, Relaxed);
        let lp = self.lppaca();
        // SAFETY: `lp` is valid; the index starts at zero for a new buffer.
        unsafe { core::ptr::write_volatile(addr_of_mut!((*lp).dtl_idx), 0) };
        Ok(Start {
            index: 0,
            timebase,
            entries,
        })
    }

    /// Asks the hypervisor to log into the first `bytes` of this `Own` ring
    /// (at most [`Self::capacity_bytes`]); returns its `H_*` code.
    fn register_bytes(&self, bytes: usize) -> i64 {
        let base = self.base();
        let bytes = bytes.min(self.capacity_bytes());
        // SAFETY: `base` is the `Own` ring, at least 4 KiB and aligned to
        // its size, so its second 32-bit word is within it and aligned; the
        // helper stores it with `WRITE_ONCE`, as the hypervisor's and the
        // readers' accesses to the ring are single-copy accesses of C, not
        // Rust values.
        unsafe { bindings::rpmu_dtl_write_size(base.cast(), bytes as u32) };
        // SAFETY: `base` is the physically contiguous ring (one kmalloc
        // allocation) of at least `bytes` bytes, which stays allocated while
        // registered (invariant).
        let rc = unsafe { bindings::rpmu_register_dtl(self.hwcpu, bindings::rpmu_pa(base.cast())) };
        rc as i64
    }

    /// Stops logging and, for an `Own` buffer, deregisters it; a no-op if
    /// not registered. A displaced buffer is left alone.
    ///
    /// Fails with `HcallError(0)`, leaving the buffer registered, while a
    /// [`Self::register`] of this buffer runs.
    pub fn unregister(&self) -> core::result::Result<(), HcallError> {
        let Some(_changing) = Changing::claim(&self.changing) else {
            return Err(HcallError(0));
        };
        if !self.registered.load(Relaxed) {
            return Ok(());
        }
        if self.is_displaced() {
            self.registered.store(false, Relaxed);
            return Ok(());
        }
        self.disable();
        // Another user may have taken the log since `stop`: its mask is set.
        if self.mode() == Mode::Own && self.enable_mask() != 0 {
            self.mark_displaced(Displacement::MaskChanged);
        }
        if self.is_displaced() {
            self.registered.store(false, Relaxed);
            return Ok(());
        }
        if self.mode() == Mode::Own {
            // SAFETY: The buffer is registered for `hwcpu`.
            let rc = unsafe { bindings::rpmu_unregister_dtl(self.hwcpu) };
            if rc != 0 {
                return Err(HcallError(rc as i64));
            }
        }
        self.registered.store(false, Relaxed);
        Ok(())
    }

    /// Whether the buffer is registered.
    pub fn is_registered(&self) -> bool {
        self.registered.load(Relaxed)
    }

    /// The index the hypervisor published (entries written since
    /// registration), between two read barriers: entry contents read before
    /// are no newer, and those read afterwards at least as new.
    pub fn published_index(&self) -> u64 {
        let lp = self.lppaca();
        kernel::sync::barrier::smp_mb(kernel::sync::barrier::Read);
        // SAFETY: `lp` is valid; `dtl_idx` is a big-endian word the
        // hypervisor updates after writing each entry.
        let raw = unsafe { core::ptr::read_volatile(addr_of_mut!((*lp).dtl_idx)) };
        kernel::sync::barrier::smp_mb(kernel::sync::barrier::Read);
        u64::from_be(raw)
    }

    /// The published index, as a reader reads it before reading the
    /// entries up to it: the entries it reads afterwards are at least as
    /// new (one read barrier, after the load).
    pub fn index_before_reading(&self) -> u64 {
        let lp = self.lppaca();
        // SAFETY: As for `published_index`.
        let raw = unsafe { core::ptr::read_volatile(addr_of_mut!((*lp).dtl_idx)) };
        kernel::sync::barrier::smp_mb(kernel::sync::barrier::Read);
        u64::from_be(raw)
    }

    /// The published index, as a reader reads it after reading entries, to
    /// tell which of them may have been overwritten meanwhile: the entries
    /// it read before are no newer (one read barrier, before the load).
    pub fn index_after_reading(&self) -> u64 {
        let lp = self.lppaca();
        kernel::sync::barrier::smp_mb(kernel::sync::barrier::Read);
        // SAFETY: As for `published_index`.
        let raw = unsafe { core::ptr::read_volatile(addr_of_mut!((*lp).dtl_idx)) };
        u64::from_be(raw)
    }

    /// The CPU's dispatch count (`lppaca::yield_count`), which the
    /// hypervisor increments whenever it preempts or dispatches the virtual
    /// processor: unchanged across a stretch of code means the processor ran
    /// it without being preempted.
    pub fn dispatch_count(&self) -> u32 {
        let lp = self.lppaca();
        // SAFETY: `lp` is valid; a big-endian word the hypervisor updates.
        let raw = unsafe { core::ptr::read_volatile(addr_of_mut!((*lp).yield_count)) };
        u32::from_be(raw)
    }
}

impl DtlBuffer {
    /// Tells kmemleak that the ring, never freed, is leaked on purpose.
    fn mark_leaked(&self) {
        if self.mode() == Mode::Own {
            // SAFETY: The ring is a live allocation (never freed).
            unsafe { bindings::rpmu_kmemleak_not_leak(self.base().cast::<c_void>().cast_const()) };
        }
    }

    fn leak_displaced(&self) {
        pr_warn!(
            "cpu {}: another DTL user took the log during a vpa_dtl event; leaking its {} KiB buffer, which the hypervisor may still write\n",
            u32::from(self.cpu),
            self.capacity_bytes() / 1024
        );
        self.mark_leaked();
    }
}

impl Drop for DtlBuffer {
    fn drop(&mut self) {
        if self.mode() == Mode::Shared {
            // Takes back our enable-mask bits; the kernel's ring stays.
            let _ = self.unregister();
            return;
        }
        if self.is_displaced() {
            // Another user took the log. Whether its registration replaced
            // ours is only inferred (its hypervisor call may have failed,
            // leaving ours active), and deregistering would end its
            // registration if it did not: the buffer is leaked, never freed
            // under a possible writer.
            self.leak_displaced();
            return;
        }
        if let Err(HcallError(rc)) = self.unregister() {
            // The hypervisor may still write the buffer: freeing it would
            // corrupt memory, so it is deliberately leaked.
            pr_err!(
                "cpu {}: DTL deregistration failed ({}); leaking the buffer\n",
                u32::from(self.cpu),
                rc
            );
            self.mark_leaked();
            return;
        }
        if self.is_displaced() {
            // `unregister` found another user's mask: see above.
            self.leak_displaced();
            return;
        }
        match &mut self.ring {
            // SAFETY: Deregistered by us (not displaced, `unregister`
            // succeeded), so nothing writes the ring; dropped exactly once,
            // here.
            Ring::Own(mem) => unsafe { ManuallyDrop::drop(mem) },
            // SAFETY: As above.
            Ring::OwnLarge(mem) => unsafe { ManuallyDrop::drop(mem) },
            Ring::Kernel(_) => {}
        }
    }
}
