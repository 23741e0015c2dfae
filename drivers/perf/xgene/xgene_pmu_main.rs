// SPDX-License-Identifier: GPL-2.0

//! APM X-Gene SoC uncore PMUs: L3 cache (L3C), I/O bridge (IOB, IOB-slow),
//! memory controller bridge (MCB) and memory controller (MC) counters of
//! X-Gene 1, 2 and 3, probed from DT (`apm,xgene-pmu`, `apm,xgene-pmu-v2`) or
//! ACPI (`APMC0D5B`, `APMC0D5C`, `APMC0D83`).
//!
//! One top-level device (the PCP PMU) owns an interrupt status/mask block and
//! one interrupt; each of its sub-blocks is a perf PMU of its own (`l3c0`,
//! `iob0`, `mcb1`, `mc2`, ...), counting system-wide on one CPU (`cpumask`).
//! Counting only: no sampling, no per-task events. See
//! Documentation/xgene-pmu.rst.
//!
//! This file is the module and platform-driver glue; the rest is one concern
//! per file: `owner` (the owning CPU), `block` (a sub-block's registers),
//! `pmu` (its perf callbacks), `device` (the state the interrupt and hotplug
//! share), `overflow` (the interrupt), `hotplug` (moving the owning CPU),
//! `probe` (discovery and registration), `sysfs` (attribute groups). Each
//! imports only from the ones below it: `owner` <- `block` <- `device` <-
//! {`overflow`, `hotplug`} <- `probe` <- this file; `pmu` and `sysfs` use
//! `block` only.

#[path = "../../../rust/rpmu/mod.rs"]
pub mod rpmu;

#[path = "logic/src/lib.rs"]
pub mod logic;

// The perf callbacks, the registers they program, the owning CPU they read,
// the overflow interrupt and the state it shares: nothing in them may panic.
rpmu::no_panic! {
    mod block;
    mod device;
    mod overflow;
    mod owner;
    mod pmu;
}
mod hotplug;
mod probe;
mod sysfs;

use kernel::{acpi, device::Core, of, platform, prelude::*};
use logic::{
    hw::Version,
    ids::{ACPI_DEVICES, OF_DEVICES},
};

// Registered with `suppress_bind_attrs`: unbinding through sysfs would
// free a PMU that software events in its groups still reach (see
// `rpmu::platform`).
rpmu::platform::module_platform_driver_no_unbind! {
    type: XgenePmuDriver,
    name: "xgene_pmu",
    authors: ["rust-pmu developers"],
    description: "APM X-Gene SoC uncore PMUs (L3C, IOB, MCB, MC)",
    license: "GPL v2",
}

/// The platform driver; its id tables give the PMU version.
struct XgenePmuDriver;

// The id tables are `logic::ids`' identifier tables, entry by entry (the
// kernel's table macros take a literal list); the assertion keeps the two
// the same length.
const _: () = assert!(OF_DEVICES.len() == 2 && ACPI_DEVICES.len() == 3);

rpmu::compat::of_device_table!(
    OF_TABLE,
    MODULE_OF_TABLE,
    <XgenePmuDriver as platform::Driver>::IdInfo,
    [
        (of::DeviceId::new(OF_DEVICES[0].0), OF_DEVICES[0].1),
        (of::DeviceId::new(OF_DEVICES[1].0), OF_DEVICES[1].1),
    ]
);

rpmu::compat::acpi_device_table!(
    ACPI_TABLE,
    MODULE_ACPI_TABLE,
    <XgenePmuDriver as platform::Driver>::IdInfo,
    [
        (acpi::DeviceId::new(ACPI_DEVICES[0].0), ACPI_DEVICES[0].1),
        (acpi::DeviceId::new(ACPI_DEVICES[1].0), ACPI_DEVICES[1].1),
        (acpi::DeviceId::new(ACPI_DEVICES[2].0), ACPI_DEVICES[2].1),
    ]
);

impl platform::Driver for XgenePmuDriver {
    type IdInfo = Version;
    type Data<'bound> = probe::XgenePmuDevice<'bound>;
    const OF_ID_TABLE: Option<of::IdTable<Self::IdInfo>> = Some(&OF_TABLE);
    const ACPI_ID_TABLE: Option<acpi::IdTable<Self::IdInfo>> = Some(&ACPI_TABLE);

    fn probe<'bound>(
        pdev: &'bound platform::Device<Core<'_>>,
        id_info: Option<&'bound Self::IdInfo>,
    ) -> impl PinInit<Self::Data<'bound>, Error> + 'bound {
        let Some(&v) = id_info else {
            return Err(ENODEV);
        };
        probe::XgenePmuDevice::probe(pdev, v)
    }
}
