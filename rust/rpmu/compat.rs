// SPDX-License-Identifier: GPL-2.0

//! What the kernel crate spells differently before Linux 7.3, in one place.
//!
//! `rust/rpmu.mk` probes the kernel source and sets one `cfg` per interface
//! that changed within 7.x, so the modules build against 7.2 too
//! (`make compat`):
//!
//! - `rpmu_no_eopnotsupp`: `kernel::error::code` has no `EOPNOTSUPP`;
//! - `rpmu_named_device_table`: `of_device_table!` and `acpi_device_table!`
//!   take the name of the module's alias table;
//! - `rpmu_devres_irq`: `kernel::irq::Registration` is device-managed and its
//!   handler is given the device.
//!
//! Every item here has the 7.3 shape and, on 7.3, is the kernel crate's own
//! item or a one-line forward to it; the older forms live in this file
//! only. The C side of the same kind (`raw_spin_lock_irq_disable()`, new in
//! 7.3) is `rust/helpers/rpmu_compat.c`. An in-tree series has neither.

use kernel::error::Error;

/// `EOPNOTSUPP`: perf's answer for a feature a PMU lacks (sampling on a
/// counting PMU, overwrite AUX mode); `kernel::error::code::EOPNOTSUPP` from
/// 7.3 on.
pub fn eopnotsupp() -> Error {
    #[cfg(not(rpmu_no_eopnotsupp))]
    let e = kernel::error::code::EOPNOTSUPP;
    #[cfg(rpmu_no_eopnotsupp)]
    let e = Error::from_errno(-(kernel::bindings::EOPNOTSUPP as i32));
    e
}

/// Declares an OF match table, as [`kernel::of_device_table!`] of 7.3 does;
/// before 7.3 that macro also takes the name of the module's alias table,
/// `$module_table`, which 7.3 derives itself.
///
/// ```ignore
/// rpmu::compat::of_device_table!(OF_TABLE, MODULE_OF_TABLE,
///     <MyDriver as platform::Driver>::IdInfo,
///     [(of::DeviceId::new(c"vendor,device"), ())]);
/// ```
#[macro_export]
macro_rules! of_device_table {
    ($table:ident, $module_table:ident, $info:ty, $data:tt $(,)?) => {
        #[cfg(not(rpmu_named_device_table))]
        kernel::of_device_table!($table, $info, $data);
        #[cfg(rpmu_named_device_table)]
        kernel::of_device_table!($table, $module_table, $info, $data);
    };
}

/// Declares an ACPI match table, as [`kernel::acpi_device_table!`] of 7.3
/// does (see [`of_device_table!`]).
#[macro_export]
macro_rules! acpi_device_table {
    ($table:ident, $module_table:ident, $info:ty, $data:tt $(,)?) => {
        #[cfg(not(rpmu_named_device_table))]
        kernel::acpi_device_table!($table, $info, $data);
        #[cfg(rpmu_named_device_table)]
        kernel::acpi_device_table!($table, $module_table, $info, $data);
    };
}
pub use crate::{acpi_device_table, of_device_table};

/// [`crate::rpmu::irq`] before 7.3: the kernel crate's registration is
/// device-managed and its handler is given the device. [`Handler`] here is
/// the kernel crate's trait of 7.3, adapted to the older one, so a driver is
/// written once.
#[cfg(rpmu_devres_irq)]
pub mod irq {
    pub use kernel::irq::IrqReturn;
    use kernel::{
        irq::{Flags, IrqRequest, Registration},
        prelude::*,
    };

    /// An interrupt handler (the kernel crate's trait of 7.3).
    pub trait Handler: Sync + 'static {
        /// Called in hard-IRQ context when the interrupt fires.
        fn handle(&self) -> IrqReturn;
    }

    /// A [`Handler`] as the kernel crate's handler of before 7.3.
    #[pin_data]
    pub struct Adapter<T> {
        #[pin]
        inner: T,
    }

    impl<T: Handler> kernel::irq::Handler for Adapter<T> {
        fn handle(&self, _device: &kernel::device::Device<kernel::device::Bound>) -> IrqReturn {
            self.inner.handle()
        }
    }

    /// An interrupt handler registered for a bound device's interrupt;
    /// freed (after waiting for a running handler) when dropped, or when
    /// the device is unbound, whichever comes first.
    pub struct BoxedRegistration<'a, T: Handler> {
        _registration: Pin<KBox<Registration<Adapter<T>>>>,
        _request: core::marker::PhantomData<IrqRequest<'a>>,
    }

    /// Requests the interrupt of `request` for `handler`, named `name` in
    /// `/proc/interrupts`.
    pub fn register<'a, T: Handler + Send>(
        request: IrqRequest<'a>,
        flags: Flags,
        name: &'static CStr,
        handler: impl PinInit<T, Error> + 'a,
    ) -> Result<BoxedRegistration<'a, T>> {
        let init = Registration::new(
            request,
            flags,
            name,
            try_pin_init!(Adapter { inner <- handler }),
        );
        Ok(BoxedRegistration {
            _registration: KBox::pin_init(init, GFP_KERNEL)?,
            _request: core::marker::PhantomData,
        })
    }
}
