// SPDX-License-Identifier: GPL-2.0

//! CPU hotplug: the CPU that counts for a device (its `Owner`, in
//! `owner.rs`) is kept online, and the perf contexts and the overflow
//! interrupt move with it.

use crate::{
    device::Shared,
    rpmu::{
        cpu::{
            self,
            hotplug::{HotplugCallbacks, Offline},
            CpuId,
        },
        irq,
    },
};
use kernel::{pr_warn_once, prelude::*, sync::Arc};

/// Routes the device's interrupt to `cpu`.
fn route_irq(s: &Shared, cpu: CpuId) {
    if let Err(e) = irq::set_affinity(s.irq, cpu) {
        pr_warn_once!(
            "cannot route IRQ {} to CPU {}: {:?}\n",
            s.irq,
            u32::from(cpu),
            e
        );
    }
}

/// CPU hotplug: keeps the owning CPU online, moving the perf contexts and
/// the interrupt with it.
pub(crate) struct Hotplug(pub(crate) Arc<Shared>);

impl HotplugCallbacks for Hotplug {
    fn online(&self, cpu: CpuId) -> Result {
        let s = &self.0;
        let owner = s.owner.cpu();
        if owner == cpu || !cpu::is_online(owner) {
            s.owner.set(cpu);
            route_irq(s, cpu);
        }
        Ok(())
    }

    fn offline(&self, cx: &Offline<'_>) -> Result {
        let cpu = cx.cpu();
        let s = &self.0;
        if s.owner.cpu() != cpu {
            return Ok(());
        }
        let Some(target) = cpu::other_online(cpu) else {
            return Ok(());
        };
        for reg in s.pmus.iter() {
            // `other_online` found `target` online, and it stays so while
            // this hotplug callback runs.
            let _ = reg.migrate_context(cx, target);
        }
        s.owner.set(target);
        route_irq(s, target);
        Ok(())
    }
}
