// SPDX-License-Identifier: GPL-2.0

//! Interrupt handlers, with the kernel crate's [`kernel::irq`] types.
//!
//! C header: [`include/linux/interrupt.h`](srctree/include/linux/interrupt.h)
//!
//! `kernel::irq::Registration::new` is `unsafe` because forgetting the
//! registration would leave the kernel calling a handler whose memory, or
//! whatever it borrows, is gone.
//! [`register`](crate::rpmu::irq::register) hands the registration out
//! pinned in a box, and takes only handlers that own what they use
//! (`'static`): forgetting the box leaks the memory together with the
//! registration, so neither the cookie nor anything the handler reaches can
//! dangle, and creating one is safe.

#[cfg(rpmu_devres_irq)]
pub use crate::rpmu::compat::irq::{register, BoxedRegistration, Handler, IrqReturn};
use crate::rpmu::{bindings, cpu::CpuId};
#[cfg(not(rpmu_devres_irq))]
use kernel::irq::{Flags, IrqRequest, Registration};
#[cfg(not(rpmu_devres_irq))]
pub use kernel::irq::{Handler, IrqReturn};
use kernel::{error::to_result, prelude::*};

/// An interrupt handler registered for a bound device's interrupt; freed
/// (after waiting for a running handler) when dropped.
#[cfg(not(rpmu_devres_irq))]
pub type BoxedRegistration<'a, T> = Pin<KBox<Registration<'a, T>>>;

/// Requests the interrupt of `request` for `handler`, named `name` in
/// `/proc/interrupts`. The handler owns what it uses (`'static`): a handler
/// that borrows does not compile.
#[cfg(not(rpmu_devres_irq))]
pub fn register<'a, T: Handler + 'static>(
    request: IrqRequest<'a>,
    flags: Flags,
    name: &'static CStr,
    handler: impl PinInit<T, Error> + 'a,
) -> Result<BoxedRegistration<'a, T>> {
    // SAFETY: The registration is returned pinned in a box and never moved
    // out of it. Dropping the box frees the interrupt (waiting for a running
    // handler) before the memory goes; forgetting it leaks the memory the
    // cookie points to, which then stays valid, and the handler, being
    // `'static`, borrows nothing that can be dropped under it. (Module
    // unload with a forgotten registration would free the handler's code:
    // an open question shared with the kernel crate's own registrations,
    // see `Documentation/rust-pmu.rst`.)
    let init = unsafe { Registration::new(request, flags, name, handler) };
    KBox::pin_init(init, GFP_KERNEL)
}

/// Routes interrupt `irq` to `cpu` (`irq_set_affinity`); the kernel checks
/// the interrupt number.
pub fn set_affinity(irq: u32, cpu: CpuId) -> Result {
    // SAFETY: `cpu` is below `nr_cpu_ids` (`CpuId` invariant), so
    // `cpumask_of` stays in its array; `irq_set_affinity` validates `irq`.
    to_result(unsafe { bindings::rpmu_irq_set_affinity(irq, u32::from(cpu)) })
}
