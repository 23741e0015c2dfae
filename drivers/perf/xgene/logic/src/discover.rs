// SPDX-License-Identifier: GPL-2.0

//! Which L3C, MCB and MC sub-blocks are present, from the CSW and MCB
//! configuration registers (NOTES.md section 6). A child PMU is registered
//! only if its `enable-bit-index` is set in the mask of its type.

use super::hw::{regs, PmuType};

/// The active-instance masks: bit `n` set means instance `n` is present.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ActiveMasks {
    /// L3 caches.
    pub l3c: u32,
    /// Memory controller bridges.
    pub mcb: u32,
    /// Memory controllers.
    pub mc: u32,
}

/// The masks to use when CSWCR cannot be read: the
/// instances every configuration of every version has, L3C 0, MCB 0 and
/// MC 0 (v1/v2 always have exactly `l3c0`; v3 has at least `l3c0..3`;
/// `mcb0` and `mc0` exist in all modes).
///
/// Upstream sets only the MCB and MC masks here and leaves the L3C mask at
/// 0, so a failed discovery silently drops every L3C PMU (NOTES.md section
/// 9). Instance 0 of each type is safe to touch on any X-Gene, so we keep
/// it; we do not guess at the others.
pub const FALLBACK: ActiveMasks = ActiveMasks {
    l3c: 0x1,
    mcb: 0x1,
    mc: 0x1,
};

/// A memory controller bridge of X-Gene 1/2, as the discovery syscons name
/// them (`regmap-mcba`, `regmap-mcbb`; ACPI resources 2 and 3).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum McbUnit {
    /// MCB A, present in every configuration.
    A,
    /// MCB B, present only in dual-MCB mode.
    B,
}

/// v1/v2: the one MCB whose MCBADDRMR says which MCs are in use, from
/// CSWCR: MCB B in dual-MCB mode, MCB A otherwise. It is the only MCB
/// register discovery reads: in single-MCB mode MCB B is not in use, and a
/// read of it may fault or stall the bus (`xgene_edac` reads only the MCB
/// in use as well).
pub const fn v1v2_mcb(cswcr: u32) -> McbUnit {
    if regs::cswcr::DUALMCB.get(cswcr) {
        McbUnit::B
    } else {
        McbUnit::A
    }
}

/// v1/v2: from CSWCR and the MCBADDRMR of the MCB [`v1v2_mcb`] names, or
/// `None` if that read failed. One L3C; one or two MCBs (CSWCR); MC0
/// always, and MC1 (single MCB, dual MCU), or MC2 (dual MCB), or all four
/// (dual MCB, dual MCU). Without MCBADDRMR only the MCs every configuration
/// with this CSWCR has are taken: MC0, and MC2 with dual MCB. (Upstream
/// registers no MC at all then.)
pub fn v1v2(cswcr: u32, addrmr: Option<u32>) -> ActiveMasks {
    let dual_mcu = addrmr.is_some_and(|r| regs::mcbaddrmr::DUALMCU.get(r));
    let (mcb, mc) = match (v1v2_mcb(cswcr), dual_mcu) {
        (McbUnit::B, true) => (0x3, 0xF),
        (McbUnit::B, false) => (0x3, 0x5),
        (McbUnit::A, true) => (0x1, 0x3),
        (McbUnit::A, false) => (0x1, 0x1),
    };
    ActiveMasks { l3c: 0x1, mcb, mc }
}

/// The 2-bit MCB routing fields of a v3 CSWCR: (MCB0, MCB1).
pub const fn v3_routing(cswcr: u32) -> (u32, u32) {
    (
        regs::cswcr::MCB0_ROUTING.get(cswcr),
        regs::cswcr::MCB1_ROUTING.get(cswcr),
    )
}

/// v3: from CSWCR alone. Dual MCB: 8 L3Cs, 2 MCBs, MCs by both routing
/// fields (both 2: all 8; both 1: 0,1,4,5; else 0 and 4). Single MCB: 4
/// L3Cs, 1 MCB, MCs by the MCB0 routing field (2: 0-3; 1: 0-1; else 0).
pub fn v3(cswcr: u32) -> ActiveMasks {
    let (r0, r1) = v3_routing(cswcr);
    if regs::cswcr::DUALMCB.get(cswcr) {
        let mc = match (r0, r1) {
            (2, 2) => 0xFF,
            (1, 1) => 0x33,
            _ => 0x11,
        };
        ActiveMasks {
            l3c: 0xFF,
            mcb: 0x3,
            mc,
        }
    } else {
        let mc = match r0 {
            2 => 0x0F,
            1 => 0x03,
            _ => 0x01,
        };
        ActiveMasks {
            l3c: 0x0F,
            mcb: 0x1,
            mc,
        }
    }
}

/// `1 << enable_bit`, or `None` past bit 31 (the binding's maximum;
/// upstream shifts a signed int there, which is undefined at 31).
pub const fn enable_mask(enable_bit: u32) -> Option<u32> {
    1u32.checked_shl(enable_bit)
}

impl ActiveMasks {
    /// Whether instance `enable_bit` of type `t` is present. IOB and
    /// IOB-slow are always present; an index past 31 never is.
    pub fn is_active(&self, t: PmuType, enable_bit: u32) -> bool {
        let Some(bit) = enable_mask(enable_bit) else {
            return false;
        };
        match t {
            PmuType::Iob | PmuType::IobSlow => true,
            PmuType::L3c => self.l3c & bit != 0,
            PmuType::Mcb => self.mcb & bit != 0,
            PmuType::Mc => self.mc & bit != 0,
        }
    }
}
