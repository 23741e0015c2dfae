// SPDX-License-Identifier: GPL-2.0

//! The state of a probed device that its overflow interrupt (`overflow.rs`)
//! and its CPU hotplug callbacks (`hotplug.rs`) share: the top-level
//! interrupt status/mask block, the interrupt, the owning CPU and the
//! registered sub-blocks.

use crate::{
    block::Child,
    logic::hw::{regs, Version},
    owner::Owner,
    rpmu::{io::Mmio, perf::Registration},
};
use kernel::{
    prelude::*,
    sync::{atomic::Atomic, Arc},
};

/// State shared by the interrupt handler and the hotplug callbacks.
pub(crate) struct Shared {
    /// The PMU version of the device.
    pub(crate) version: Version,
    /// The CPU that all sub-blocks count on.
    pub(crate) owner: Arc<Owner>,
    /// The device's interrupt.
    pub(crate) irq: u32,
    /// The interrupt status/mask block of the top-level device.
    pub(crate) pcp: Mmio,
    /// The registered sub-blocks; fixed after probe.
    pub(crate) pmus: KVec<Registration<Child>>,
    /// The top-level sources left unmasked: those of the registered
    /// sub-blocks' types, less any found stuck (written by the interrupt
    /// handler only, once probe has unmasked them).
    pub(crate) unmasked: Atomic<u32>,
    /// Sources the last interrupt left asserted with nothing to fold.
    pub(crate) suspect: Atomic<u32>,
}

impl Shared {
    /// Masks every top-level interrupt source.
    pub(crate) fn mask_all(&self) {
        self.pcp.write32(regs::INTMASK, regs::INTMASK_ALL);
    }
}
