// SPDX-License-Identifier: GPL-2.0

//! The sysfs attribute groups of each sub-block type and version: `format/`
//! (from the same list as `logic::events::formats`), `events/` (generated
//! from drivers/perf/xgene/events/*.json by scripts/xgene_events.py at build
//! time), `cpumask`, and `identifier` (beyond upstream: the SoC version and
//! sub-block type, `apm_xgene<1|2|3>_<type>`, which perf's system event
//! tables match with their `Compat` to give the events descriptions and
//! metrics).
//!
//! `xgene_pmu_kunit.ko` includes this file too, to check the tables against
//! the logic's; it only needs `crate::block::Child` with `owner_cpu()`.

use crate::{
    block::Child,
    logic::hw::{PerGeneration, PerType, PmuType, Version},
    rpmu::perf::{AttrGroup, AttrValue, SysfsWriter},
};
use kernel::prelude::*;

/// sysfs `events` tables, generated at build time.
mod gen {
    use super::{AttrValue, Child};
    include!(concat!(env!("RPMU_GEN_DIR"), "/xgene_attrs_generated.rs"));
}

fn show_cpumask(c: &Child, w: &mut SysfsWriter<'_>) -> core::fmt::Result {
    use core::fmt::Write;
    writeln!(w, "{}", u32::from(c.owner_cpu()))
}

fn show_identifier(c: &Child, w: &mut SysfsWriter<'_>) -> core::fmt::Result {
    use core::fmt::Write;
    writeln!(w, "{}", c.identifier())
}

static TOP: [(&CStr, AttrValue<Child>); 2] = [
    (c"cpumask", AttrValue::Show(show_cpumask)),
    (c"identifier", AttrValue::Show(show_identifier)),
];

// The sysfs `format` files, from the same list as logic::events::formats
// (the ABI upstream has always shown).
macro_rules! sysfs_format_table {
    ($name:ident, [$(($file:literal, $spec:literal)),* $(,)?]) => {
        static $name: &[(&CStr, AttrValue<Child>)] =
            &[$((kernel::c_str!($file), AttrValue::Fixed(kernel::c_str!($spec)))),*];
    };
}
crate::logic::events::format_tables!(sysfs_format_table);

macro_rules! groups {
    ($name:ident, $fmt:expr, $ev:expr) => {
        static $name: [AttrGroup<Child>; 3] = [
            AttrGroup::fixed(c"format", $fmt),
            AttrGroup::fixed(c"events", $ev),
            AttrGroup::top(&TOP),
        ];
    };
}

groups!(G_L3C_V12, FMT_L3C_V12, &gen::EVENTS_L3C_V1V2);
groups!(G_IOB_V12, FMT_IOB_V12, &gen::EVENTS_IOB_V1V2);
groups!(G_MCB_V12, FMT_MCB_V12, &gen::EVENTS_MCB_V1V2);
groups!(G_MC_V12, FMT_MC_V12, &gen::EVENTS_MC_V1V2);
groups!(G_L3C_V3, FMT_L3C_V3, &gen::EVENTS_L3C_V3);
groups!(G_IOB_V3, FMT_IOB_V3, &gen::EVENTS_IOB_V3);
groups!(G_IOB_SLOW_V3, FMT_IOB_SLOW_V3, &gen::EVENTS_IOB_SLOW_V3);
groups!(G_MCB_V3, FMT_MCB_V3, &gen::EVENTS_MCB_V3);
groups!(G_MC_V3, FMT_MC_V3, &gen::EVENTS_MC_V3);

/// The sysfs groups of each sub-block type, by generation, as
/// `logic::blocks::BLOCK_TYPES` gives its tables (`None`: the type does not
/// exist there).
static GROUPS: PerType<PerGeneration<Option<&[AttrGroup<Child>]>>> = PerType {
    l3c: PerGeneration {
        v1v2: Some(&G_L3C_V12),
        v3: Some(&G_L3C_V3),
    },
    iob: PerGeneration {
        v1v2: Some(&G_IOB_V12),
        v3: Some(&G_IOB_V3),
    },
    iob_slow: PerGeneration {
        v1v2: None,
        v3: Some(&G_IOB_SLOW_V3),
    },
    mcb: PerGeneration {
        v1v2: Some(&G_MCB_V12),
        v3: Some(&G_MCB_V3),
    },
    mc: PerGeneration {
        v1v2: Some(&G_MC_V12),
        v3: Some(&G_MC_V3),
    },
};

/// The sysfs groups of a sub-block type on a version, or `None` if the
/// combination does not exist (IOB-slow is an X-Gene 3 block).
pub(crate) fn attr_groups(ty: PmuType, v: Version) -> Option<&'static [AttrGroup<Child>]> {
    *GROUPS.get(ty).get(v)
}
