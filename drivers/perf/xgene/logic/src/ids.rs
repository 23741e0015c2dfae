// SPDX-License-Identifier: GPL-2.0

//! Firmware identifiers, each written once: the DT compatibles and ACPI
//! `_HID`s of the top-level device (the driver's id tables are built of
//! [`OF_DEVICES`] and [`ACPI_DEVICES`]) and, through
//! [`super::blocks::BlockType`], of its children; the DT properties the
//! probe reads; and the top-level device's ACPI resources (NOTES.md
//! section 5).

use super::{
    discover::McbUnit,
    hw::{PmuType, Version},
};
use core::ffi::CStr;

/// DT compatibles of the top-level node, and its version (there is no DT
/// X-Gene 3).
pub const OF_DEVICES: [(&CStr, Version); 2] = [
    (c"apm,xgene-pmu", Version::V1),
    (c"apm,xgene-pmu-v2", Version::V2),
];

/// ACPI `_HID`s of the top-level device, and its version.
pub const ACPI_DEVICES: [(&CStr, Version); 3] = [
    (c"APMC0D5B", Version::V1),
    (c"APMC0D5C", Version::V2),
    (c"APMC0D83", Version::V3),
];

/// The version of a top-level device with this `_HID`.
pub fn top_version(hid: &CStr) -> Option<Version> {
    ACPI_DEVICES
        .iter()
        .find(|(h, _)| *h == hid)
        .map(|&(_, v)| v)
}

/// The version of a top-level DT node with this compatible.
pub fn dt_top_version(compatible: &CStr) -> Option<Version> {
    OF_DEVICES
        .iter()
        .find(|(c, _)| *c == compatible)
        .map(|&(_, v)| v)
}

/// The type of a child device with this `_HID`
/// ([`super::blocks::BlockType::acpi_hids`]).
pub fn child_type(hid: &CStr) -> Option<PmuType> {
    PmuType::ALL
        .into_iter()
        .find(|t| t.block().acpi_hids.contains(&hid))
}

/// The type of a child DT node that is compatible with one of
/// [`super::blocks::BlockType::dt_compatible`], as `is_compatible` says.
pub fn dt_child_type(is_compatible: impl Fn(&'static CStr) -> bool) -> Option<PmuType> {
    PmuType::ALL
        .into_iter()
        .find(|t| t.block().dt_compatible.is_some_and(&is_compatible))
}

/// DT syscon phandle property of the top-level node: the CSW.
pub const DT_SYSCON_CSW: &CStr = c"regmap-csw";

/// DT/`_DSD` property with a child's instance number (default 0).
pub const ENABLE_BIT_PROPERTY: &CStr = c"enable-bit-index";

/// Top-level resource: the PCP PMU CSR block (INTSTATUS/INTMASK).
pub const TOP_RES_PCP: usize = 0;
/// Top-level resource: the CSW CSR block (CSWCR).
pub const TOP_RES_CSW: usize = 1;
/// Top-level resource: MCB A (v1/v2).
pub const TOP_RES_MCBA: usize = 2;
/// Top-level resource: MCB B (v1/v2).
pub const TOP_RES_MCBB: usize = 3;

impl McbUnit {
    /// The DT syscon phandle property of the top-level node that names
    /// this MCB (`regmap-mcba`, `regmap-mcbb`; both required by the
    /// binding).
    pub const fn dt_syscon(self) -> &'static CStr {
        match self {
            McbUnit::A => c"regmap-mcba",
            McbUnit::B => c"regmap-mcbb",
        }
    }

    /// The top-level ACPI memory resource of this MCB.
    pub const fn acpi_resource(self) -> usize {
        match self {
            McbUnit::A => TOP_RES_MCBA,
            McbUnit::B => TOP_RES_MCBB,
        }
    }
}

/// How many memory resources the top-level ACPI device must have: v3
/// discovers everything from the CSW, v1/v2 also read MCB A and B.
pub const fn top_resources_needed(v: Version) -> usize {
    match v {
        Version::V3 => TOP_RES_CSW + 1,
        Version::V1 | Version::V2 => TOP_RES_MCBB + 1,
    }
}
