// SPDX-License-Identifier: GPL-2.0

//! POWER pseries (PAPR) facilities: platform checks, the timebase, and the
//! Dispatch Trace Log buffers registered with the hypervisor ([`dtl`]).
//!
//! C headers: [`arch/powerpc/include/asm/lppaca.h`](srctree/arch/powerpc/include/asm/lppaca.h),
//! [`arch/powerpc/include/asm/dtl.h`](srctree/arch/powerpc/include/asm/dtl.h),
//! [`arch/powerpc/include/asm/plpar_wrappers.h`](srctree/arch/powerpc/include/asm/plpar_wrappers.h)

crate::no_panic! {
    pub mod dtl;
}

use crate::rpmu::bindings;

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
fn local_clock_ns() -> u64 {
    // SAFETY: Callable from any context.
    unsafe { bindings::rpmu_local_clock() }
}

/// One reading of `local_clock()` bracketed by two timebase reads:
/// `(timebase before, local_clock ns, timebase after)`. `local_clock()`
/// counts nanoseconds from the boot timebase, so a reading bounds it.
pub fn clock_sample() -> (u64, u64, u64) {
    let before = timebase();
    let ns = local_clock_ns();
    let after = timebase();
    (before, ns, after)
}
