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
//! [`ModulePin`] holds the reference through an anonymous file whose
//! `file_operations::owner` is this module: `anon_inode_getfile` takes the
//! reference, and the final `fput` releases it from `__fput`, which the VFS
//! always defers (task work on return to user space, or a work item), so
//! the release happens in core code after the caller has returned.

use crate::rpmu::bindings;
use core::ptr::NonNull;
use kernel::{error::from_err_ptr, prelude::*};

/// `file_operations` whose only purpose is its `owner`.
#[repr(transparent)]
struct PinOps(kernel::bindings::file_operations);

// SAFETY: The table is never written after its constant initialisation.
unsafe impl Sync for PinOps {}

static PIN_OPS: PinOps = PinOps(kernel::bindings::file_operations {
    // This module's `struct module`, created by the module loader; only its
    // address is taken.
    #[cfg(MODULE)]
    owner: (&raw const kernel::bindings::__this_module).cast_mut(),
    // SAFETY: All-zero is a valid `file_operations` (no callbacks).
    ..unsafe { core::mem::zeroed() }
});

/// A reference on this module, held until the value is dropped and the VFS
/// has finished with the file that carries it.
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
    /// Takes a reference on this module; fails with `ENOENT` if the module
    /// is being removed.
    pub(super) fn new() -> Result<Self> {
        // SAFETY: The name is a static string, `PIN_OPS` lives as long as the
        // module, which the file keeps loaded; no private data.
        let file = unsafe {
            bindings::anon_inode_getfile(
                c"[rpmu-aux]".as_char_ptr(),
                core::ptr::from_ref(&PIN_OPS.0).cast(),
                core::ptr::null_mut(),
                bindings::O_RDONLY as i32,
            )
        };
        let file = from_err_ptr(file)?;
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
