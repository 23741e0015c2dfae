// SPDX-License-Identifier: GPL-2.0

//! Raw spinlocks, for state that perf callbacks and interrupt handlers
//! share.
//!
//! C header: [`include/linux/spinlock.h`](srctree/include/linux/spinlock.h)
//!
//! Perf calls `add`, `del`, `start`, `stop` and `read` with its own raw
//! `cpuctx_lock` held, so a driver lock taken there must be a raw spinlock:
//! a `spinlock_t` (the kernel crate's `SpinLock`) is a sleeping lock on
//! PREEMPT_RT, and lockdep reports "Invalid wait context" for it. The kernel
//! crate has no raw spinlock as of Linux 7.3; these are backends for its
//! generic [`Lock`]:
//!
//! - [`RawSpinLockIrq`] disables interrupts while held, for state also
//!   touched with interrupts enabled;
//! - [`RawSpinLock`] leaves them alone, for state touched only where they
//!   are already disabled: perf's PMU callbacks (perf core calls them with
//!   interrupts disabled, on the event's CPU), hard interrupt handlers and
//!   hard-mode hrtimer callbacks. On a hot path such as `pmu::read` this
//!   saves saving and restoring the interrupt state twice per call.

use crate::rpmu::bindings;
use kernel::{
    ffi::c_char,
    sync::lock::{Backend, Lock},
};

/// A `raw_spinlock_t` held with interrupts disabled
/// (`raw_spin_lock_irq_disable`). Create one with [`new_raw_spinlock!`].
///
/// Interrupts are disabled by a per-CPU count: they come back on when the
/// last such guard on the CPU is dropped, so guards of two locks may be
/// dropped in either order.
pub type RawSpinLockIrq<T> = Lock<T, RawSpinLockIrqBackend>;

/// Creates a [`RawSpinLockIrq`] or [`RawSpinLock`] initialiser (whichever
/// the field is) with a lock class of its own.
#[macro_export]
macro_rules! new_raw_spinlock {
    ($inner:expr, $name:literal) => {
        kernel::sync::lock::Lock::new($inner, kernel::c_str!($name), kernel::static_lock_class!())
    };
}
pub use crate::new_raw_spinlock;

/// `lockdep_assert_held()` for both backends; without lockdep the assertion
/// is empty, so nothing is called.
///
/// # Safety
///
/// `ptr` is an initialised `raw_spinlock_t`.
#[inline(always)]
unsafe fn assert_held(ptr: *mut bindings::raw_spinlock) {
    #[cfg(CONFIG_LOCKDEP)]
    // SAFETY: The caller guarantees `ptr` is an initialised lock.
    unsafe {
        bindings::rpmu_raw_spin_assert_held(ptr)
    }
    #[cfg(not(CONFIG_LOCKDEP))]
    let _ = ptr;
}

/// The [`Backend`] of [`RawSpinLockIrq`].
pub struct RawSpinLockIrqBackend;

// SAFETY: `raw_spin_lock_irq_disable` provides mutual exclusion, released by
// the matching `raw_spin_unlock_irq_enable`; interrupts stay disabled while
// any such lock is held on the CPU, whatever the order of release; `relock`
// uses the default implementation, which calls `lock` again.
unsafe impl Backend for RawSpinLockIrqBackend {
    type State = bindings::raw_spinlock;
    type GuardState = ();

    unsafe fn init(
        ptr: *mut Self::State,
        name: *const c_char,
        key: *mut kernel::bindings::lock_class_key,
    ) {
        // SAFETY: The caller guarantees `ptr` is valid for writes and `name`
        // and `key` live forever.
        unsafe { bindings::rpmu_raw_spin_lock_init(ptr, name, key.cast()) }
    }

    unsafe fn lock(ptr: *mut Self::State) -> Self::GuardState {
        // SAFETY: The caller guarantees `ptr` is an initialised lock.
        unsafe { bindings::rpmu_raw_spin_lock_irq_disable(ptr) }
    }

    unsafe fn try_lock(ptr: *mut Self::State) -> Option<Self::GuardState> {
        // SAFETY: The caller guarantees `ptr` is an initialised lock.
        unsafe { bindings::rpmu_raw_spin_trylock_irq_disable(ptr) }.then_some(())
    }

    unsafe fn unlock(ptr: *mut Self::State, _guard_state: &Self::GuardState) {
        // SAFETY: The caller owns the lock, taken by `lock`/`try_lock`.
        unsafe { bindings::rpmu_raw_spin_unlock_irq_enable(ptr) }
    }

    unsafe fn assert_is_held(ptr: *mut Self::State) {
        // SAFETY: The caller guarantees `ptr` is an initialised lock.
        unsafe { assert_held(ptr) }
    }
}

/// A `raw_spinlock_t` taken only with interrupts already disabled
/// (`raw_spin_lock`). Create one with [`new_raw_spinlock!`].
///
/// Taking it with interrupts enabled is a bug (an interrupt handler taking
/// it on the same CPU would deadlock): lockdep reports it, as an
/// inconsistent lock state or through `lockdep_assert_irqs_disabled()` in
/// [`RawSpinLockBackend::lock`].
pub type RawSpinLock<T> = Lock<T, RawSpinLockBackend>;

/// The [`Backend`] of [`RawSpinLock`].
pub struct RawSpinLockBackend;

// SAFETY: `raw_spin_lock` provides mutual exclusion, released by the
// matching `raw_spin_unlock`; `relock` uses the default implementation,
// which calls `lock` again.
unsafe impl Backend for RawSpinLockBackend {
    type State = bindings::raw_spinlock;
    type GuardState = ();

    unsafe fn init(
        ptr: *mut Self::State,
        name: *const c_char,
        key: *mut kernel::bindings::lock_class_key,
    ) {
        // SAFETY: The caller guarantees `ptr` is valid for writes and `name`
        // and `key` live forever.
        unsafe { bindings::rpmu_raw_spin_lock_init(ptr, name, key.cast()) }
    }

    unsafe fn lock(ptr: *mut Self::State) -> Self::GuardState {
        // SAFETY: The caller guarantees `ptr` is an initialised lock.
        unsafe { bindings::rpmu_raw_spin_lock_irqs_off(ptr) }
    }

    unsafe fn try_lock(ptr: *mut Self::State) -> Option<Self::GuardState> {
        // SAFETY: The caller guarantees `ptr` is an initialised lock.
        unsafe { bindings::rpmu_raw_spin_trylock_irqs_off(ptr) }.then_some(())
    }

    unsafe fn unlock(ptr: *mut Self::State, _guard_state: &Self::GuardState) {
        // SAFETY: The caller owns the lock, taken by `lock`/`try_lock`.
        unsafe { bindings::rpmu_raw_spin_unlock_irqs_off(ptr) }
    }

    unsafe fn assert_is_held(ptr: *mut Self::State) {
        // SAFETY: The caller guarantees `ptr` is an initialised lock.
        unsafe { assert_held(ptr) }
    }
}
