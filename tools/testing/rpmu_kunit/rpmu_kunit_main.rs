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
        aux_pmu: u32 {
            default: 0,
            description: "1: register the test AUX PMU rpmu_aux_test while loaded",
        },
    },
}

/// A module parameter's value: `value()` returns it from 7.3 on, and a
/// reference to it before (7.2 has no `bool` parameters either).
fn param<T: Copy>(v: impl core::borrow::Borrow<T>) -> T {
    *v.borrow()
}

struct RpmuKunit {
    _aux: Option<rpmu::perf::Registration<aux_pmu::AuxTest>>,
}

impl kernel::Module for RpmuKunit {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let aux = if param::<u32>(module_parameters::aux_pmu.value()) != 0 {
            Some(aux_pmu::register()?)
        } else {
            None
        };
        Ok(Self { _aux: aux })
    }
}
