// SPDX-License-Identifier: GPL-2.0

//! One description per sub-block type: everything that differs between L3C,
//! IOB, IOB-slow, MCB and MC, as data ([`BLOCK_TYPES`]), in place of one
//! `match` over the type per fact. The register layout, which differs by
//! version but not by type, is [`super::hw::Layout`].

// The `format` tables are the list the driver's sysfs groups are built of
// (`format_tables!`).
use super::{
    events::{
        generated, Event, Format, FMT_IOB_SLOW_V3, FMT_IOB_V12, FMT_IOB_V3, FMT_L3C_V12,
        FMT_L3C_V3, FMT_MCB_V12, FMT_MCB_V3, FMT_MC_V12, FMT_MC_V3,
    },
    hw::{PerGeneration, PerType, PmuType, Version},
};
use core::ffi::CStr;

/// What a sub-block type shows on one generation: its events and its sysfs
/// `format` attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tables {
    /// The events, sorted by code (generated from
    /// drivers/perf/xgene/events/*.json).
    pub events: &'static [Event],
    /// The `format` attributes: the event id first, then the agent id if
    /// the type has one.
    pub formats: &'static [Format],
}

/// Everything that differs between sub-block types.
#[derive(Debug, PartialEq, Eq)]
pub struct BlockType {
    /// The sysfs name prefix; the PMU is `<prefix><enable-bit-index>`.
    /// Note `iob_slow` with an underscore, as upstream.
    pub prefix: &'static str,
    /// The DT compatible of a child node of this type (there is no DT
    /// IOB-slow).
    pub dt_compatible: Option<&'static CStr>,
    /// The ACPI `_HID`s of a child device of this type: X-Gene 1/2's, then
    /// X-Gene 3's. As upstream, a child's `_HID` is not checked against
    /// its parent's version.
    pub acpi_hids: &'static [&'static CStr],
    /// The bits of the top-level INTSTATUS that signal an overflow in a
    /// sub-block of this type. On v3 a type has several bits (one per
    /// instance, not decoded by upstream); IOB and IOB-slow share theirs.
    pub int_source: PerGeneration<u32>,
    /// The events and formats; `None` where the type does not exist
    /// (IOB-slow is an X-Gene 3 block).
    pub tables: PerGeneration<Option<Tables>>,
}

/// Every sub-block type's description.
pub static BLOCK_TYPES: PerType<BlockType> = PerType {
    l3c: BlockType {
        prefix: "l3c",
        dt_compatible: Some(c"apm,xgene-pmu-l3c"),
        acpi_hids: &[c"APMC0D5D", c"APMC0D84"],
        int_source: PerGeneration {
            v1v2: 1 << 2,
            v3: 0x00FF_0000,
        },
        tables: PerGeneration {
            v1v2: Some(Tables {
                events: generated::L3C_V1V2,
                formats: FMT_L3C_V12,
            }),
            v3: Some(Tables {
                events: generated::L3C_V3,
                formats: FMT_L3C_V3,
            }),
        },
    },
    iob: BlockType {
        prefix: "iob",
        dt_compatible: Some(c"apm,xgene-pmu-iob"),
        acpi_hids: &[c"APMC0D5E", c"APMC0D85"],
        int_source: PerGeneration {
            v1v2: 1 << 3,
            v3: 0x0000_3000,
        },
        tables: PerGeneration {
            v1v2: Some(Tables {
                events: generated::IOB_V1V2,
                formats: FMT_IOB_V12,
            }),
            v3: Some(Tables {
                events: generated::IOB_V3,
                formats: FMT_IOB_V3,
            }),
        },
    },
    iob_slow: BlockType {
        prefix: "iob_slow",
        dt_compatible: None,
        acpi_hids: &[c"APMC0D86"],
        int_source: PerGeneration {
            v1v2: 1 << 3,
            v3: 0x0000_3000,
        },
        tables: PerGeneration {
            v1v2: None,
            v3: Some(Tables {
                events: generated::IOB_SLOW_V3,
                formats: FMT_IOB_SLOW_V3,
            }),
        },
    },
    mcb: BlockType {
        prefix: "mcb",
        dt_compatible: Some(c"apm,xgene-pmu-mcb"),
        acpi_hids: &[c"APMC0D5F", c"APMC0D87"],
        int_source: PerGeneration {
            v1v2: 1 << 1,
            v3: 0x0000_0300,
        },
        tables: PerGeneration {
            v1v2: Some(Tables {
                events: generated::MCB_V1V2,
                formats: FMT_MCB_V12,
            }),
            v3: Some(Tables {
                events: generated::MCB_V3,
                formats: FMT_MCB_V3,
            }),
        },
    },
    mc: BlockType {
        prefix: "mc",
        dt_compatible: Some(c"apm,xgene-pmu-mc"),
        acpi_hids: &[c"APMC0D60", c"APMC0D88"],
        int_source: PerGeneration {
            v1v2: 1 << 0,
            v3: 0x0000_00FF,
        },
        tables: PerGeneration {
            v1v2: Some(Tables {
                events: generated::MC_V1V2,
                formats: FMT_MC_V12,
            }),
            v3: Some(Tables {
                events: generated::MC_V3,
                formats: FMT_MC_V3,
            }),
        },
    },
};

impl PmuType {
    /// The description of this type.
    pub fn block(self) -> &'static BlockType {
        BLOCK_TYPES.get(self)
    }

    /// The events and formats of this type on `v`, `None` if it does not
    /// exist there.
    pub fn tables(self, v: Version) -> Option<&'static Tables> {
        self.block().tables.get(v).as_ref()
    }
}
