// SPDX-License-Identifier: GPL-2.0

//! `rpmu_kunit`: KUnit suites of the `rust/rpmu` abstractions, driven
//! through in-kernel perf events on test PMUs this module registers.
//!
//! Test code, never part of a driver: loading it registers and
//! unregisters PMUs named `rpmu_kunit*` and takes CPU 1 offline and back
//! (the hotplug suite).

#[path = "../../../rust/rpmu/mod.rs"]
pub mod rpmu;
#[path = "../../../rust/rpmu/testing/mod.rs"]
pub mod rpmu_testing;

mod hotplug;
mod perf;

use kernel::prelude::*;

module! {
    type: RpmuKunit,
    name: "rpmu_kunit",
    authors: ["rust-pmu developers"],
    description: "KUnit suites of the rust/rpmu PMU abstractions",
    license: "GPL",
}

struct RpmuKunit;

impl kernel::Module for RpmuKunit {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        Ok(Self)
    }
}
