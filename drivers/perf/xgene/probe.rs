// SPDX-License-Identifier: GPL-2.0

//! Probing a device: which sub-blocks are active (discovery registers), one
//! PMU per active child node, then the interrupt and the hotplug callbacks.

use crate::{
    block::{reset_block, Child},
    device::Shared,
    hotplug::Hotplug,
    logic::{
        discover::{self, ActiveMasks},
        hw::{regs, PmuType, Version},
        ids,
    },
    overflow::Isr,
    owner::Owner,
    rpmu::{
        cpu::{self, hotplug::HotplugInstance, hotplug::HotplugState},
        firmware::{self, ChildNode, Syscon},
        io::Mmio,
        irq::{self, BoxedRegistration},
        module::this_module,
        perf::Registration,
    },
    sysfs::attr_groups,
};
use kernel::{
    device::{self, Bound},
    irq::Flags,
    platform,
    prelude::*,
    str::CString,
    sync::{atomic::Atomic, Arc},
};

/// A probed X-Gene PMU device. Fields drop in order: hotplug callbacks
/// first (the instance holds its state), then the interrupt, then (with the
/// last reference to `Shared`) the PMUs and the mappings.
pub(crate) struct XgenePmuDevice<'bound> {
    _hotplug: Pin<KBox<HotplugInstance<Hotplug>>>,
    _irq: BoxedRegistration<'bound, Isr>,
    shared: Arc<Shared>,
}

impl Drop for XgenePmuDevice<'_> {
    fn drop(&mut self) {
        self.shared.mask_all();
    }
}

/// Reads the active MCB/MC/L3C masks from the CSW and MCB registers. Only
/// the MCB that CSWCR names is read ([`discover::v1v2_mcb`]); if that read
/// fails, what CSWCR says is kept.
fn discover(pdev: &platform::Device<Bound>, v: Version, of: bool) -> Result<ActiveMasks> {
    let dev: &device::Device<Bound> = pdev.as_ref();
    if of && v == Version::V3 {
        // X-Gene 3 has no DT binding.
        return Err(ENODEV);
    }
    let cswcr = if of {
        Syscon::by_phandle(dev, ids::DT_SYSCON_CSW)?.read(regs::CSW_CSWCR as u32)?
    } else {
        Mmio::of_platform(pdev, ids::TOP_RES_CSW as u32)?.read32(regs::CSW_CSWCR)
    };
    if v == Version::V3 {
        return Ok(discover::v3(cswcr));
    }
    let unit = discover::v1v2_mcb(cswcr);
    let addrmr = if of {
        Syscon::by_phandle(dev, unit.dt_syscon()).and_then(|s| s.read(regs::MCBADDRMR as u32))
    } else {
        Mmio::of_platform(pdev, unit.acpi_resource() as u32).map(|m| m.read32(regs::MCBADDRMR))
    };
    let addrmr = addrmr
        .inspect_err(|e| {
            dev_warn!(
                dev,
                "cannot read MCB {:?}'s MCBADDRMR ({:?}); assuming single-MCU mode\n",
                unit,
                e
            );
        })
        .ok();
    Ok(discover::v1v2(cswcr, addrmr))
}

/// The type of a child firmware node, if it is a PMU sub-block.
fn child_type(node: &ChildNode<'_>) -> Option<PmuType> {
    match node.acpi_hid() {
        Some(hid) => ids::child_type(hid),
        None => ids::dt_child_type(|c| node.is_compatible(c)),
    }
}

/// Registers the PMU of one child node, if it is an active sub-block.
fn add_child(
    node: &ChildNode<'_>,
    v: Version,
    masks: &ActiveMasks,
    owner: &Arc<Owner>,
    pmus: &mut KVec<Registration<Child>>,
) -> Result {
    if !node.is_available() {
        return Ok(());
    }
    let Some(ty) = child_type(node) else {
        return Ok(());
    };
    let bit = node.read_u32(ids::ENABLE_BIT_PROPERTY).unwrap_or(0);
    if bit > 31 {
        pr_warn!(
            "{}: enable-bit-index {} out of range 0-31, skipped\n",
            node.name(),
            bit
        );
        return Ok(());
    }
    if !masks.is_active(ty, bit) {
        return Ok(());
    }
    let Some(groups) = attr_groups(ty, v) else {
        pr_warn!(
            "{}: {} is not a block of this PMU version, skipped\n",
            node.name(),
            ty.prefix()
        );
        return Ok(());
    };
    node.mem_window().inspect_err(|e| {
        pr_warn!("{}: no register window ({:?}), skipped\n", node.name(), e);
    })?;
    let regs = Mmio::of_child(node)?;
    let start = regs.window().start;
    reset_block(&regs, v.layout());
    let name = CString::try_from_fmt(fmt!("{}{}", ty.prefix(), bit))?;
    let child = Child::new(ty, v, regs, owner.clone());
    let reg = Registration::new(this_module(), &name, child, groups).inspect_err(|e| {
        pr_warn!(
            "{}: registering PMU {} failed: {:?}\n",
            node.name(),
            &*name,
            e
        );
    })?;
    pr_info!("{}: PMU {} at {:#x}\n", node.name(), &*name, start);
    pmus.push(reg, GFP_KERNEL)?;
    Ok(())
}

impl<'bound> XgenePmuDevice<'bound> {
    pub(crate) fn probe(pdev: &'bound platform::Device<Bound>, v: Version) -> Result<Self> {
        let dev: &device::Device<Bound> = pdev.as_ref();
        let of = firmware::is_of(dev);
        let pcp = Mmio::of_platform(pdev, ids::TOP_RES_PCP as u32).inspect_err(|e| {
            if *e == ENODEV {
                dev_err!(dev, "no register window\n");
            }
        })?;
        let irq_request = pdev.irq_by_index(0)?;
        let irq = irq_request.irq();
        // Whatever firmware left unmasked stays quiet until every sub-block
        // is reset and the handler is in place.
        pcp.write32(regs::INTMASK, regs::INTMASK_ALL);

        let masks = discover(pdev, v, of).unwrap_or_else(|e| {
            dev_warn!(
                dev,
                "cannot read the CSW/MCB registers ({:?}); assuming MCB0/MC0\n",
                e
            );
            discover::FALLBACK
        });

        let owner = Arc::new(Owner::new(cpu::first_online()), GFP_KERNEL)?;
        let mut pmus = KVec::new();
        for child in ChildNode::children_of(dev) {
            // A sub-block that fails is skipped, as the others still work.
            let _ = add_child(&child, v, &masks, &owner, &mut pmus);
        }
        if pmus.is_empty() {
            dev_err!(dev, "no PMU sub-block found\n");
            return Err(ENODEV);
        }

        let sources = pmus
            .iter()
            .fold(0, |m, r| m | v.int_source_mask(r.driver().ty));
        let shared = Arc::new(
            Shared {
                version: v,
                owner,
                irq,
                pcp,
                pmus,
                unmasked: Atomic::new(sources),
                suspect: Atomic::new(0),
            },
            GFP_KERNEL,
        )?;
        let irq_reg = irq::register(
            irq_request,
            Flags::NOBALANCING | Flags::NO_THREAD,
            c"xgene-pmu",
            Ok::<_, Error>(Isr(shared.clone())),
        )
        .inspect_err(|e| dev_err!(dev, "cannot request IRQ {}: {:?}\n", irq, e))?;
        let state = HotplugState::new(c"perf/xgene_pmu:online")?;
        // Routes the IRQ to the owning CPU (the callback runs for every
        // online CPU).
        let hp = HotplugInstance::new(&state, Hotplug(shared.clone()))?;
        // Only the sources of registered sub-blocks: nothing would clear
        // another's (upstream unmasks every source of the version).
        shared.pcp.write32(regs::INTMASK, !sources);

        dev_info!(
            dev,
            "X-Gene PMU version {}: {} PMUs, counting on CPU {}\n",
            v.number(),
            shared.pmus.len(),
            u32::from(shared.owner.cpu())
        );
        Ok(Self {
            _hotplug: hp,
            _irq: irq_reg,
            shared,
        })
    }
}
