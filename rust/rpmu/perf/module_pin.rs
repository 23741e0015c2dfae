// SPDX-License-Identifier: GPL-2.0

//! A reference on this module that is released by core kernel code after
//! the module's own code has returned.
//!
//! C header: [`include/linux/anon_inodes.h`](srctree/include/linux/anon_inodes.h)
//!
//! Perf calls `pmu::free_aux` when the last mapping of an AUX area goes,
//! which can be long after the event that created it was destroyed (another
//! event sharing the ring buffer keeps the area mapped). Per-event module
//! references are gone by then, so without another reference the module
//! could be removed and `free_aux` would run in freed text. A reference the
//! module drops itself (`module_put` at the end of `free_aux`) still leaves
//! the rest of `free_aux` running after the count reached zero.
//!
//! [`ModulePin`] holds the reference through an anonymous file, whose
//! final `fput` the VFS always defers to core code (task work on return to
//! user space, or a work item):
//!
//! - compiled into a module (`MODULE`: the out-of-tree build, where this
//!   code is part of the driver's module), the file's
//!   `file_operations::owner` is the module: `anon_inode_getfile` takes the
//!   reference and `__fput` drops it after the file's last use;
//! - built into the kernel (the kernel crate in-tree), this code is never
//!   unloaded: the reference on the PMU's module (`pmu::module`) is taken
//!   here and dropped by the file's `release`, which is this code too.
//!
//! Either way the release runs in code that stays loaded, after the
//! driver's `free_aux` has returned.

use crate::rpmu::bindings;
use core::ptr::NonNull;
use kernel::{error::from_err_ptr, prelude::*};

/// `file_operations` whose only purpose is the module reference.
#[repr(transparent)]
struct PinOps(kernel::bindings::file_operations);

// SAFETY: The table is never written after its constant initialisation.
unsafe impl Sync for PinOps {}

#[cfg(MODULE)]
static PIN_OPS: PinOps = PinOps(kernel::bindings::file_operations {
    // This module's `struct module`, created by the module loader; only its
    // address is taken.
    owner: (&raw const kernel::bindings::__this_module).cast_mut(),
    // SAFETY: All-zero is a valid `file_operations` (no callbacks).
    ..unsafe { core::mem::zeroed() }
});

#[cfg(not(MODULE))]
static PIN_OPS: PinOps = PinOps(kernel::bindings::file_operations {
    release: Some(pin_release),
    // SAFETY: All-zero is a valid `file_operations` (no other callbacks).
    ..unsafe { core::mem::zeroed() }
});

/// Drops the module reference [`ModulePin::new`] took; `__fput` calls it
/// once, when the file goes.
///
/// # Safety
///
/// `file` is a file made by [`ModulePin::new`] with [`PIN_OPS`].
#[cfg(not(MODULE))]
unsafe extern "C" fn pin_release(
    _inode: *mut kernel::bindings::inode,
    file: *mut kernel::bindings::file,
) -> kernel::ffi::c_int {
    // SAFETY: `file` is valid (guaranteed by the caller); its private data
    // is the module `new` took a reference on (or null, for a PMU built
    // into the kernel, which `module_put` ignores).
    unsafe { bindings::module_put((*file).private_data.cast()) };
    0
}

/// A reference on the PMU's module, held until the value is dropped and
/// the VFS has finished with the file that carries it.
///
/// # Invariants
///
/// `file` was returned by `anon_inode_getfile` with [`PIN_OPS`], and this
/// value owns one reference to it.
pub(super) struct ModulePin {
    file: NonNull<bindings::file>,
}

// SAFETY: A file reference may be dropped from any thread.
unsafe impl Send for ModulePin {}
// SAFETY: `&ModulePin` gives no access to the file.
unsafe impl Sync for ModulePin {}

impl ModulePin {
    /// Takes a reference on `owner`, the PMU's module (`pmu::module`; null
    /// for a PMU built into the kernel); fails with `ENOENT` if the module
    /// is being removed.
    ///
    /// # Safety
    ///
    /// `owner` is null or a module that stays valid until this call
    /// returns (the module of a registered PMU with an event in flight).
    pub(super) unsafe fn new(owner: *mut bindings::module) -> Result<Self> {
        #[cfg(MODULE)]
        let private = {
            // In a module the owner is this module, through `PIN_OPS`.
            let _ = owner;
            core::ptr::null_mut()
        };
        #[cfg(not(MODULE))]
        let private = {
            // SAFETY: `owner` is null or a valid module (guaranteed by the
            // caller).
            if !unsafe { bindings::rpmu_try_module_get(owner) } {
                return Err(ENOENT);
            }
            owner.cast()
        };
        // SAFETY: The name is a static string; `PIN_OPS` is a static that
        // outlives the file (its module stays loaded while the file exists,
        // or it is built in); `private` is what `pin_release` expects.
        let file = unsafe {
            bindings::anon_inode_getfile(
                c"[rpmu-aux]".as_char_ptr(),
                core::ptr::from_ref(&PIN_OPS.0).cast(),
                private,
                bindings::O_RDONLY as i32,
            )
        };
        let file = from_err_ptr(file).inspect_err(|_| {
            #[cfg(not(MODULE))]
            // SAFETY: The reference taken above; the file that would have
            // dropped it was not made.
            unsafe {
                bindings::module_put(owner)
            };
        })?;
        // INVARIANT: returned by `anon_inode_getfile` with `PIN_OPS`.
        Ok(Self {
            file: NonNull::new(file).ok_or(ENOMEM)?,
        })
    }
}

impl Drop for ModulePin {
    fn drop(&mut self) {
        // SAFETY: We own one reference (type invariant). `fput` defers the
        // final `__fput`, which drops the module reference, to core code.
        unsafe { bindings::fput(self.file.as_ptr()) };
    }
}
