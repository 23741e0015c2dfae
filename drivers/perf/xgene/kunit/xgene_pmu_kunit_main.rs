// SPDX-License-Identifier: GPL-2.0

//! `xgene_pmu_kunit`: the X-Gene PMU driver's kernel-independent logic
//! (register layouts per version, event tables, discovery, overflow
//! arithmetic) checked again on the CPU the driver runs on, and the driver's
//! sysfs tables (`../sysfs.rs`, the same file) against that logic. Test
//! code, never part of `xgene_pmu.ko`; loading it touches no hardware.

#[path = "../../../../rust/rpmu/mod.rs"]
pub mod rpmu;

#[path = "../logic/src/lib.rs"]
pub mod logic;

#[path = "../sysfs.rs"]
mod sysfs;

mod tables;

/// What `sysfs.rs` needs of the driver's sub-block type: the tables are
/// typed by it, and `cpumask` shows its owning CPU. The suite never
/// registers a PMU, so a stand-in does.
mod block {
    use crate::{
        logic::{
            events::Identifier,
            hw::{PmuType, Version},
        },
        rpmu::cpu::CpuId,
    };

    /// Stands for the driver's `block::Child`.
    pub(crate) struct Child;

    impl Child {
        pub(crate) fn owner_cpu(&self) -> CpuId {
            CpuId::current()
        }

        pub(crate) fn identifier(&self) -> Identifier {
            Identifier(Version::V2, PmuType::L3c)
        }
    }
}

use kernel::prelude::*;

module! {
    type: XgenePmuKunit,
    name: "xgene_pmu_kunit",
    authors: ["rust-pmu developers"],
    description: "KUnit suite of the X-Gene SoC uncore PMU driver",
    license: "GPL v2",
}

struct XgenePmuKunit;

impl kernel::Module for XgenePmuKunit {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        Ok(Self)
    }
}

#[kunit_tests(xgene_pmu)]
mod cases {
    use crate::{
        logic::{
            hw::{PmuType, Version},
            selftest,
        },
        sysfs::attr_groups,
        tables::{events_match, formats_match},
    };
    use kernel::prelude::*;

    #[test]
    fn logic_selftest() {
        match selftest::run_all() {
            Ok(n) => {
                pr_info!("{} logic cases passed\n", n);
                assert!(n > 0);
            }
            Err(what) => {
                pr_err!("failed case: {}\n", what);
                panic!("logic selftest failed");
            }
        }
    }

    #[test]
    fn sysfs_formats() {
        assert!(formats_match());
    }

    #[test]
    fn sysfs_events() {
        assert!(events_match());
    }

    #[test]
    fn iob_slow_only_on_v3() {
        assert!(attr_groups(PmuType::IobSlow, Version::V1).is_none());
        assert!(attr_groups(PmuType::IobSlow, Version::V2).is_none());
        assert!(attr_groups(PmuType::IobSlow, Version::V3).is_some());
    }
}
