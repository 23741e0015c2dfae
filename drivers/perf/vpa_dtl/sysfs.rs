// SPDX-License-Identifier: GPL-2.0

//! The PMU's sysfs groups: `format/`, `events/` and `stats/`
//! (`Documentation/ABI/testing/sysfs-bus-event_source-devices-vpa-dtl`).

use crate::{
    pmu::VpaDtl,
    rpmu::perf::{AttrGroup, AttrValue, SysfsWriter},
    stats::Stats,
};
use core::fmt::Write;

/// A `stats/` file showing one of the PMU's totals, summed over the CPUs.
macro_rules! total {
    ($field:ident) => {{
        fn show_total(p: &VpaDtl, w: &mut SysfsWriter<'_>) -> core::fmt::Result {
            writeln!(w, "{}", p.totals.sum(|s: &Stats| &s.$field))
        }
        AttrValue::Show(show_total)
    }};
}

fn show_boot_tb_err(p: &VpaDtl, w: &mut SysfsWriter<'_>) -> core::fmt::Result {
    writeln!(w, "{}", p.boot_tb_err)
}

/// `format/`, `events/` and `stats/`.
pub(crate) static GROUPS: [AttrGroup<VpaDtl>; 3] = [
    AttrGroup::fixed(c"format", &[(c"event", AttrValue::Fixed(c"config:0-7"))]),
    AttrGroup::fixed(
        c"events",
        &[
            (c"dtl_cede", AttrValue::Fixed(c"event=0x1")),
            (c"dtl_preempt", AttrValue::Fixed(c"event=0x2")),
            (c"dtl_fault", AttrValue::Fixed(c"event=0x4")),
            (c"dtl_all", AttrValue::Fixed(c"event=0x7")),
        ],
    ),
    AttrGroup::fixed(
        c"stats",
        &[
            (c"captured", total!(captured)),
            (c"lost_overrun", total!(lost_overrun)),
            (c"lost_aux_full", total!(lost_aux_full)),
            (c"lost_foreign", total!(lost_foreign)),
            (c"filtered", total!(filtered)),
            (c"displaced", total!(displaced)),
            (c"lost_torn", total!(torn)),
            (c"boot_tb_error_ticks", AttrValue::Show(show_boot_tb_err)),
        ],
    ),
];
