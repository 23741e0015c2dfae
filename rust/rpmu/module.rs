// SPDX-License-Identifier: GPL-2.0

//! This module's `struct module`, on any 7.x kernel.
//!
//! C header: [`include/linux/module.h`](srctree/include/linux/module.h)
//!
//! 7.3 reaches it through the module's type (`kernel::module::this_module`),
//! earlier kernels through a `THIS_MODULE` static that `module!` places at
//! the crate root. Both wrap `__this_module`, which the module loader
//! creates for every module, so it is named here directly.

use kernel::ThisModule;

/// This module, as perf (`pmu::module`) and the VFS (`file_operations::owner`)
/// take it.
pub fn this_module() -> &'static ThisModule {
    #[cfg(MODULE)]
    // SAFETY: `__this_module` is this module's `struct module`, created by
    // the module loader; it outlives every use of the module's code, so the
    // pointer is valid for as long as the static is reachable.
    static THIS: ThisModule =
        unsafe { ThisModule::from_ptr((&raw const kernel::bindings::__this_module).cast_mut()) };
    #[cfg(not(MODULE))]
    // SAFETY: Built into the kernel there is no `struct module`: null is
    // what `THIS_MODULE` is then.
    static THIS: ThisModule = unsafe { ThisModule::from_ptr(core::ptr::null_mut()) };
    &THIS
}
