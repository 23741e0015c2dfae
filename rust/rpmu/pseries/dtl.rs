// SPDX-License-Identifier: GPL-2.0

//! Dispatch Trace Log buffers: one 4 KiB ring per CPU, registered with the
//! hypervisor through `H_REGISTER_VPA`, which then logs dispatch events into
//! it and publishes its index in the CPU's lppaca.
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
mod geometry;
mod read;
mod types;
pub use claim::MAX_CPUS;
pub use geometry::{DTL_BYTES, DTL_ENTRIES, DTL_ENTRY_BYTES, DTL_ENTRY_WORDS};

// The geometry is the kernel's.
const _: () = assert!(DTL_BYTES == bindings::DISPATCH_LOG_BYTES as usize);
const _: () = assert!(DTL_ENTRY_BYTES == core::mem::size_of::<bindings::dtl_entry>());
use claim::{Changing, Claim};
pub use types::{Displacement, HcallError, Mode, RegisterError, Start};

enum Ring {
    Own(ManuallyDrop<KBox<RingMem>>),
    /// Points at the kernel's 4 KiB `dispatch_log`, which under native
    /// accounting is never freed.
    Kernel(NonNull<u8>),
}

#[repr(C, align(4096))]
struct RingMem(UnsafeCell<[u8; DTL_BYTES]>);

// SAFETY: All-zero bytes are a valid `RingMem`.
unsafe impl pin_init::Zeroable for RingMem {}

/// No displacement seen.
const NOT_DISPLACED: u32 = 0;
/// See [`Displacement::MaskChanged`].
const MASK_CHANGED: u32 = 1;
/// See [`Displacement::Reregistered`].
const REREGISTERED: u32 = 2;

/// A DTL for one CPU: this module's 4 KiB buffer, aligned to 4 KiB (so it
/// never crosses a page), with its size in the second big-endian word as
/// `H_REGISTER_VPA` expects; or the kernel's own buffer (see [`Mode`]).
///
/// # Invariants
///
/// - `cpu` is a possible CPU (checked by `new`).
/// - An `Own` ring is allocated, and does not move (it is boxed), until
///   `Drop`; it stays allocated while the hypervisor may write it: while
///   `registered` is true, and for ever after a displacement (see `Drop`).
/// - A `Kernel` ring points at the CPU's `dispatch_log`, allocated at boot
///   and never freed under native accounting.
/// - `lppaca` is the CPU's lppaca, which lives as long as the kernel.
pub struct DtlBuffer {
    ring: Ring,
    cpu: CpuId,
    lppaca: NonNull<bindings::lppaca>,
    hwcpu: i32,
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
    /// if the kernel keeps a DTL of its own for the CPU, else [`Mode::Own`].
    /// Fails with `ENODEV` if `cpu` is not a possible CPU, and with `EBUSY`
    /// if this module already has a reader for `cpu`: a CPU has one DTL.
    pub fn new(cpu: CpuId) -> Result<Self> {
        // A number below `nr_cpu_ids` may still have no paca or lppaca.
        if !crate::rpmu::cpu::is_possible(cpu) {
            return Err(ENODEV);
        }
        let claim = Claim::take(cpu)?;
        // SAFETY: `cpu` is a possible CPU (checked above); every possible
        // CPU has an lppaca for the kernel's lifetime.
        let lppaca =
            NonNull::new(unsafe { bindings::rpmu_lppaca_of(i32::from(cpu)) }).ok_or(ENODEV)?;
        let ring = match kernel_ring(cpu).filter(|_| native_accounting()) {
            Some(p) => Ring::Kernel(p),
            None => {
                // Zeroed in place: a 4 KiB value would otherwise pass
                // through the stack.
                let mem = KBox::init::<core::convert::Infallible>(
                    pin_init::zeroed::<RingMem>(),
                    GFP_KERNEL,
                )?;
                Ring::Own(ManuallyDrop::new(mem))
            }
        };
        // SAFETY: `cpu` is a possible CPU; its paca is set up at boot.
        let hwcpu = unsafe { bindings::rpmu_hard_smp_processor_id(i32::from(cpu)) };
        // INVARIANT: `cpu` is a `CpuId`; not registered yet; a kernel ring
        // is only used under native accounting; `lppaca` is the CPU's.
        Ok(Self {
            ring,
            cpu,
            lppaca,
            hwcpu,
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
            Ring::Own(_) => Mode::Own,
            Ring::Kernel(_) => Mode::Shared,
        }
    }

    fn base(&self) -> *mut u8 {
        match &self.ring {
            Ring::Own(mem) => mem.0.get().cast(),
            Ring::Kernel(p) => p.as_ptr(),
        }
    }

    /// The CPU's lppaca, valid for the kernel's lifetime (invariant).
    fn lppaca(&self) -> *mut bindings::lppaca {
        self.lppaca.as_ptr()
    }

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
            });
        }
        if self.is_displaced() || self.other_user_active() {
            return Err(RegisterError::Busy);
        }
        let base = self.base();
        // SAFETY: `base` is the 4 KiB, 4 KiB-aligned ring (`Own`), so its
        // second 32-bit word is within it and aligned; the helper stores it
        // with `WRITE_ONCE`, as the hypervisor's and the readers' accesses to
        // the ring are single-copy accesses of C, not Rust values.
        unsafe { bindings::rpmu_dtl_write_size(base.cast(), DTL_BYTES as u32) };
        let lp = self.lppaca();
        // SAFETY: `base` is the physically contiguous 4 KiB buffer, which
        // stays allocated while registered (invariant).
        let rc = unsafe { bindings::rpmu_register_dtl(self.hwcpu, bindings::rpmu_pa(base.cast())) };
        if rc != 0 {
            return Err(RegisterError::Hcall(HcallError(rc as i64)));
        }
        self.registered.store(true, Relaxed);
        self.mask.store(0, Relaxed);
        // SAFETY: `lp` is valid; the index starts at zero for a new buffer.
        unsafe { core::ptr::write_volatile(addr_of_mut!((*lp).dtl_idx), 0) };
        Ok(Start { index: 0, timebase })
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
        if let Ring::Own(mem) = &self.ring {
            // SAFETY: The ring is a live allocation (never freed).
            unsafe { bindings::rpmu_kmemleak_not_leak(mem.0.get().cast::<c_void>().cast_const()) };
        }
    }

    fn leak_displaced(&self) {
        pr_warn!(
            "cpu {}: another DTL user took the log during a vpa_dtl event; leaking its 4 KiB buffer, which the hypervisor may still write\n",
            u32::from(self.cpu)
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
        if let Ring::Own(mem) = &mut self.ring {
            // SAFETY: Deregistered by us (not displaced, `unregister`
            // succeeded), so nothing writes the ring; dropped exactly once,
            // here.
            unsafe { ManuallyDrop::drop(mem) };
        }
    }
}
