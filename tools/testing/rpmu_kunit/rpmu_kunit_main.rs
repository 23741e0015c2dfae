// SPDX-License-Identifier: GPL-2.0

//! `rpmu_kunit`: KUnit suites of the `rust/rpmu` abstractions, driven
//! through in-kernel perf events on test PMUs this module registers.
//!
//! Test code, never part of a driver: loading it registers and
//! unregisters PMUs named `rpmu_kunit*` and takes CPU 1 offline and back
//! (the hotplug suite). With `aux_pmu=1` it also keeps a second AUX PMU,
//! `rpmu_aux_test`, registered until it is removed (see `aux_pmu.rs`).

#[path = "../../../rust/rpmu/mod.rs"]
pub mod rpmu;
#[path = "../../../rust/rpmu/testing/mod.rs"]
pub mod rpmu_testing;

mod aux_pmu;
mod contexts;
mod hotplug;
mod perf;

use kernel::prelude::*;

module! {
    type: RpmuKunit,
    name: "rpmu_kunit",
    authors: ["rust-pmu developers"],
    description: "KUnit suites of the rust/rpmu PMU abstractions",
    license: "GPL",
    params: {
        aux_pmu: bool {
            default: false,
            description: "Register the test AUX PMU rpmu_aux_test while loaded",
        },
    },
}

struct RpmuKunit {
    _aux: Option<rpmu::perf::Registration<aux_pmu::AuxTest>>,
}

impl kernel::Module for RpmuKunit {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let aux = if module_parameters::aux_pmu.value() {
            Some(aux_pmu::register()?)
        } else {
            None
        };
        Ok(Self { _aux: aux })
    }
}
