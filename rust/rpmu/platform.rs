// SPDX-License-Identifier: GPL-2.0

//! Platform drivers whose devices user space cannot unbind.
//!
//! C header: [`include/linux/platform_device.h`](srctree/include/linux/platform_device.h)
//!
//! A PMU driver that registers its PMUs at probe unregisters them when the
//! device is unbound. Perf does not make that safe in 7.3:
//! `perf_pmu_unregister()` detaches the events whose PMU is the one going,
//! but not the software events perf placed in that PMU's context as members
//! of a group (their `pmu_ctx` points at the PMU, their `pmu` does not). Once
//! the PMU is freed, the next schedule, disable or close of such an event
//! reaches freed memory. Module unload is kept away by the module references
//! perf takes (with the project's `patches/0003` for those software events);
//! unbinding through sysfs takes none.
//!
//! So, as most C PMU drivers in `drivers/perf/` do, [`NoUnbind`] registers
//! the platform driver with `suppress_bind_attrs`: the driver's directory in
//! sysfs has no `bind` and `unbind` files, and a device is unbound only when
//! the driver is unregistered at module unload, which perf's module
//! references hold off while any event can still reach a PMU. Use it with
//! [`module_platform_driver_no_unbind!`] in place of
//! `kernel::module_platform_driver!`.

use kernel::{
    driver::{DriverLayout, RegistrationOps},
    platform::{Adapter, Driver},
    prelude::*,
    types::Opaque,
    ThisModule,
};

/// The kernel crate's platform [`Adapter`], registered with
/// `suppress_bind_attrs` set (see the [module documentation](self)).
pub struct NoUnbind<T: Driver>(T);

// SAFETY: The layout is that of `Adapter<T>`, whose `DriverLayout` this
// repeats: `struct platform_driver` is `repr(C)` and embeds its `struct
// device_driver` at `DEVICE_DRIVER_OFFSET`; the device data is `T::Data`.
unsafe impl<T: Driver> DriverLayout for NoUnbind<T> {
    type DriverType = <Adapter<T> as DriverLayout>::DriverType;
    type DriverData<'bound> = <Adapter<T> as DriverLayout>::DriverData<'bound>;
    const DEVICE_DRIVER_OFFSET: usize = <Adapter<T> as DriverLayout>::DEVICE_DRIVER_OFFSET;
}

// SAFETY: `register` and `unregister` are `Adapter<T>`'s, so `unregister` is
// valid after a successful `register` as it is for `Adapter<T>`.
unsafe impl<T: Driver + 'static> RegistrationOps for NoUnbind<T> {
    unsafe fn register(
        pdrv: &Opaque<Self::DriverType>,
        name: &'static CStr,
        module: &'static ThisModule,
    ) -> Result {
        // SAFETY: `pdrv` is valid for writes and not registered yet (the
        // caller); the driver core reads `suppress_bind_attrs` when the
        // driver is added to the bus, within `register` below.
        unsafe { (*pdrv.get()).driver.suppress_bind_attrs = true };
        // SAFETY: Guaranteed by the caller, as `Adapter<T>` requires.
        unsafe { <Adapter<T> as RegistrationOps>::register(pdrv, name, module) }
    }

    unsafe fn unregister(pdrv: &Opaque<Self::DriverType>) {
        // SAFETY: Guaranteed by the caller, as `Adapter<T>` requires.
        unsafe { <Adapter<T> as RegistrationOps>::unregister(pdrv) }
    }
}

/// Declares a kernel module with one platform driver registered through
/// [`NoUnbind`]; it takes what `kernel::module_platform_driver!` takes.
#[macro_export]
macro_rules! module_platform_driver_no_unbind {
    ($($f:tt)*) => {
        kernel::module_driver!(<T>, $crate::rpmu::platform::NoUnbind<T>, { $($f)* });
    };
}
pub use crate::module_platform_driver_no_unbind;
