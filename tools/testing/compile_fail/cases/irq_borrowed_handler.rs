// SPDX-License-Identifier: GPL-2.0
// An interrupt handler that borrows: forgetting the registration's box
// and dropping the borrowed value would leave the handler reading freed
// memory, so `irq::register` takes `'static` handlers only.
// EXPECT: borrowed data escapes outside of function

use crate::rpmu::irq;
use kernel::{irq::Flags, prelude::*};

struct Borrowing<'a>(&'a u32);

impl irq::Handler for Borrowing<'_> {
    fn handle(&self) -> irq::IrqReturn {
        if *self.0 == 0 {
            irq::IrqReturn::None
        } else {
            irq::IrqReturn::Handled
        }
    }
}

/// Registers a handler borrowing `v`, then forgets the registration.
pub fn request(req: kernel::irq::IrqRequest<'_>, v: &u32) -> Result {
    let reg = irq::register(req, Flags::SHARED, c"cf", Ok::<_, Error>(Borrowing(v)))?;
    core::mem::forget(reg);
    Ok(())
}
