// SPDX-License-Identifier: GPL-2.0

//! The sub-block types of the simulated silicon, what each contributes to
//! the counts, and where its overflow shows in the top-level status.

use kernel::fmt;

/// One register window: 32-bit cells at byte offsets.
pub(crate) trait Cells {
    /// Reads the cell at byte offset `off`.
    fn rd(&self, off: usize) -> u32;
    /// Stores `val` in the cell at byte offset `off`.
    fn wr(&self, off: usize, val: u32);
}

/// Child PMU types, numbered as in xgene_pmu.c. Public: the silicon has
/// all of them, though a device tree describes no IOB-slow (an X-Gene 3
/// block, ACPI only).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// L3 cache.
    L3c = 0,
    /// I/O bridge.
    Iob = 1,
    /// Slow I/O bridge (X-Gene 3).
    IobSlow = 2,
    /// Memory controller bridge.
    Mcb = 3,
    /// Memory controller.
    Mc = 4,
}

impl Kind {
    /// The sysfs name prefix; the instance number follows.
    pub(crate) fn prefix(self) -> &'static str {
        match self {
            Kind::L3c => "l3c",
            Kind::Iob => "iob",
            Kind::IobSlow => "iob_slow",
            Kind::Mcb => "mcb",
            Kind::Mc => "mc",
        }
    }

    /// Agents selectable through PMAMR0 and PMAMR1 (0: no such register).
    /// These follow the widths of the `*_agentid` formats: l3c and mcb
    /// `config1:0-9` (or, with `full`, all 32 bits of PMAMR0), iob
    /// `config1:0-63`; mc has no agent filter; v3 has no agent mask
    /// registers.
    pub(crate) fn agents(self, version: u32, full: bool) -> (u32, u32) {
        if version >= 3 {
            return (0, 0);
        }
        match self {
            Kind::L3c | Kind::Mcb => (if full { 32 } else { 10 }, 0),
            Kind::Iob | Kind::IobSlow => (32, 32),
            Kind::Mc => (0, 0),
        }
    }

    /// This instance's INTSTATUS bits.
    pub(crate) fn int_bits(self, version: u32, index: u32) -> u32 {
        if version < 3 {
            return match self {
                Kind::Mc => 1 << 0,
                Kind::Mcb => 1 << 1,
                Kind::L3c => 1 << 2,
                Kind::Iob | Kind::IobSlow => 1 << 3,
            };
        }
        // v3: one bit per instance inside the type's field.
        let (shift, width) = match self {
            Kind::Mc => (0, 8),
            Kind::Mcb => (8, 2),
            Kind::Iob => (12, 1),
            Kind::IobSlow => (13, 1),
            Kind::L3c => (16, 8),
        };
        if index < width {
            1 << (shift + index)
        } else {
            0
        }
    }
}

/// Sources the top level can signal (INTSTATUS bits that exist).
pub(crate) fn int_sources(version: u32) -> u32 {
    if version < 3 {
        0x0000_000F
    } else {
        0x00FF_33FF
    }
}

/// Deterministic amount one agent contributes per period to an event:
/// 1..=16, a hash of (type, event code, agent).
pub(crate) fn amount(kind: Kind, code: u32, agent: u32) -> u64 {
    let mut x = ((kind as u64) << 48) | (u64::from(code) << 8) | u64::from(agent);
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^= x >> 31;
    1 + (x & 15)
}

pub(crate) fn bits(n: u32) -> u32 {
    if n >= 32 {
        u32::MAX
    } else {
        (1u32 << n) - 1
    }
}

/// Displays a child's name as the drivers register it.
#[derive(Clone, Copy)]
pub(crate) struct Name(pub(crate) Kind, pub(crate) u32);

impl core::fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.0.prefix(), self.1)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        core::fmt::Display::fmt(self, f)
    }
}
