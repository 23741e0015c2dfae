// SPDX-License-Identifier: GPL-2.0

//! `vpa_dtl`: the POWER pseries Dispatch Trace Log PMU.
//!
//! On a shared-processor LPAR the hypervisor can log, per virtual processor,
//! why it was preempted and when it was dispatched again, into a buffer the
//! partition registers with `H_REGISTER_VPA`. Each event of this PMU owns the
//! DTL of its CPU: it registers a buffer when perf schedules it, polls the
//! ring with a pinned hrtimer, and copies new entries into the perf AUX area
//! after a header record (boot timebase, timebase frequency) that perf's
//! decoder (`tools/perf/util/powerpc-vpadtl.c`) needs for timestamps.
//!
//! Nothing is dropped silently: entries the hypervisor overwrote before they
//! were read are counted and flag the next AUX record `PARTIAL`; entries that
//! do not fit in the AUX area are counted and flag it `TRUNCATED` (perf core
//! then stops the event). Counts are in the event's value and in
//! `/sys/bus/event_source/devices/vpa_dtl/stats/`. See
//! `Documentation/vpa-dtl.rst`.

#[path = "../../../rust/rpmu/mod.rs"]
pub mod rpmu;

#[path = "logic/src/lib.rs"]
pub mod logic;

// The perf callbacks, the poll (in the event's timer), how it takes
// entries and the statistics they update: nothing in them may panic.
rpmu::no_panic! {
    mod pmu;
    mod poll;
    mod stats;
    mod take;
}
mod sysfs;

use kernel::prelude::*;
use logic::{pacer, record};
use rpmu::{perf::Registration, pseries, pseries::dtl::RingSize};

module! {
    type: VpaDtlModule,
    name: "vpa_dtl",
    authors: ["rust-pmu developers"],
    description: "POWER pseries Dispatch Trace Log PMU",
    license: "GPL",
    params: {
        adaptive: bool {
            default: true,
            description: "Adapt the poll period to the DTL fill level (default; 0: sample period)",
        },
        lazy: bool {
            default: true,
            description: "Poll a quiet CPU at its ticks, not waking it (default; 0: at the period)",
        },
        ring_kib: u32 {
            default: 0,
            description: "DTL ring per CPU in KiB: 4, 64 or 0 (default: 64 under KVM, else 4)",
        },
    },
}

struct VpaDtlModule {
    /// Unregisters the PMU when the module is removed.
    _reg: Registration<pmu::VpaDtl>,
}

impl kernel::Module for VpaDtlModule {
    fn init(module: &'static ThisModule) -> Result<Self> {
        if !pseries::is_shared_processor_lpar() {
            pr_err!("not a shared-processor LPAR (no FW_FEATURE_SPLPAR): no dispatch trace log\n");
            return Err(ENODEV);
        }
        let kvm = pseries::is_kvm_guest();
        let ring_size = match (module_parameters::ring_kib.value(), kvm) {
            (0, false) | (4, _) => RingSize::Standard,
            (0, true) | (64, _) => RingSize::Large,
            (kib, _) => {
                pr_err!("ring_kib={}: must be 4, 64 or 0\n", kib);
                return Err(EINVAL);
            }
        };
        let tb_freq = pseries::timebase_frequency();
        // `get_boot_tb()` is not exported to modules; `local_clock()` counts
        // nanoseconds from it.
        let (boot_tb, boot_tb_err) = record::estimate_boot_tb(pseries::clock_sample, tb_freq, 8);
        let mode = if module_parameters::adaptive.value() {
            pacer::Mode::Adaptive
        } else {
            pacer::Mode::Fixed
        };
        let setup = pmu::Setup {
            mode,
            lazy: module_parameters::lazy.value(),
            ring_size,
            kinds_unlogged: kvm,
        };
        let driver = pmu::VpaDtl::new(boot_tb, boot_tb_err, tb_freq, setup)?;
        let reg = Registration::new(module, c"vpa_dtl", Ok::<_, Error>(driver), &sysfs::GROUPS)?;
        pr_info!(
            "registered PMU type {} (timebase {} Hz, boot_tb {} +/- {} ticks, {:?} polling, {:?} ring{})\n",
            reg.pmu_type(),
            tb_freq,
            boot_tb,
            boot_tb_err,
            mode,
            ring_size,
            if kvm { ", KVM: dtl_all only" } else { "" }
        );
        Ok(Self { _reg: reg })
    }
}
