// SPDX-License-Identifier: GPL-2.0

//! Interrupt handlers, with the kernel crate's [`kernel::irq`] types.
//!
//! C header: [`include/linux/interrupt.h`](srctree/include/linux/interrupt.h)
//!
//! `kernel::irq::Registration::new` is `unsafe` because forgetting the
//! registration would leave the kernel with a dangling cookie.
//! [`BoxedRegistration`] only hands it out pinned in a box: forgetting the
//! box leaks the memory together with the registration, so the cookie never
//! dangles, and creating one is safe.

use crate::rpmu::{bindings, cpu::CpuId};
use kernel::{
    error::to_result,
    irq::{Flags, Handler, IrqRequest, Registration},
    prelude::*,
};

/// An interrupt handler registered for a bound device's interrupt; freed
/// (after waiting for a running handler) when dropped.
pub type BoxedRegistration<'a, T> = Pin<KBox<Registration<'a, T>>>;

/// Requests the interrupt of `request` for `handler`, named `name` in
/// `/proc/interrupts`.
pub fn register<'a, T: Handler + 'a>(
    request: IrqRequest<'a>,
    flags: Flags,
    name: &'static CStr,
    handler: impl PinInit<T, Error> + 'a,
) -> Result<BoxedRegistration<'a, T>> {
    // SAFETY: The registration is returned pinned in a box and never moved
    // out of it; dropping the box runs its destructor, and forgetting it
    // leaks the memory the cookie points to, which then stays valid.
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
