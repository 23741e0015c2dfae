// SPDX-License-Identifier: GPL-2.0

//! Firmware identifiers: the ACPI `_HID`s of the top-level device and its
//! children, the top-level device's resources, and (for the DT path) the
//! compatibles (NOTES.md section 5).

use super::hw::{PmuType, Version};

/// `_HID` of the top-level PMU device, and its version.
pub const TOP_HIDS: [(&str, Version); 3] = [
    ("APMC0D5B", Version::V1),
    ("APMC0D5C", Version::V2),
    ("APMC0D83", Version::V3),
];

/// `_HID` of a child PMU device, and its type. As upstream, the table is
/// not filtered by the parent's version (see [`PmuType::exists_on`]).
pub const CHILD_HIDS: [(&str, PmuType); 9] = [
    ("APMC0D5D", PmuType::L3c),
    ("APMC0D5E", PmuType::Iob),
    ("APMC0D5F", PmuType::Mcb),
    ("APMC0D60", PmuType::Mc),
    ("APMC0D84", PmuType::L3c),
    ("APMC0D85", PmuType::Iob),
    ("APMC0D86", PmuType::IobSlow),
    ("APMC0D87", PmuType::Mcb),
    ("APMC0D88", PmuType::Mc),
];

/// The version of a top-level device with this `_HID`.
pub fn top_version(hid: &str) -> Option<Version> {
    TOP_HIDS.iter().find(|(h, _)| *h == hid).map(|&(_, v)| v)
}

/// The type of a child device with this `_HID`.
pub fn child_type(hid: &str) -> Option<PmuType> {
    CHILD_HIDS.iter().find(|(h, _)| *h == hid).map(|&(_, t)| t)
}

/// Top-level resource: the PCP PMU CSR block (INTSTATUS/INTMASK).
pub const TOP_RES_PCP: usize = 0;
/// Top-level resource: the CSW CSR block (CSWCR).
pub const TOP_RES_CSW: usize = 1;
/// Top-level resource: MCB A (v1/v2).
pub const TOP_RES_MCBA: usize = 2;
/// Top-level resource: MCB B (v1/v2).
pub const TOP_RES_MCBB: usize = 3;

/// How many memory resources the top-level ACPI device must have: v3
/// discovers everything from the CSW, v1/v2 also read MCB A and B.
pub const fn top_resources_needed(v: Version) -> usize {
    match v {
        Version::V3 => TOP_RES_CSW + 1,
        Version::V1 | Version::V2 => TOP_RES_MCBB + 1,
    }
}

/// DT compatibles of the top-level node (there is no DT v3).
pub const DT_TOP_COMPATIBLES: [(&str, Version); 2] = [
    ("apm,xgene-pmu", Version::V1),
    ("apm,xgene-pmu-v2", Version::V2),
];

/// DT compatibles of the child nodes (there is no DT IOB-slow).
pub const DT_CHILD_COMPATIBLES: [(&str, PmuType); 4] = [
    ("apm,xgene-pmu-l3c", PmuType::L3c),
    ("apm,xgene-pmu-iob", PmuType::Iob),
    ("apm,xgene-pmu-mcb", PmuType::Mcb),
    ("apm,xgene-pmu-mc", PmuType::Mc),
];

/// DT syscon phandle properties of the top-level node, all required.
pub const DT_SYSCONS: [&str; 3] = ["regmap-csw", "regmap-mcba", "regmap-mcbb"];

/// DT/`_DSD` property with a child's instance number (default 0).
pub const ENABLE_BIT_PROPERTY: &str = "enable-bit-index";

/// The version of a top-level DT node with this compatible.
pub fn dt_top_version(compatible: &str) -> Option<Version> {
    DT_TOP_COMPATIBLES
        .iter()
        .find(|(c, _)| *c == compatible)
        .map(|&(_, v)| v)
}

/// The type of a child DT node with this compatible.
pub fn dt_child_type(compatible: &str) -> Option<PmuType> {
    DT_CHILD_COMPATIBLES
        .iter()
        .find(|(c, _)| *c == compatible)
        .map(|&(_, t)| t)
}
