// SPDX-License-Identifier: GPL-2.0

//! The hardware: PMU versions and sub-block types, the register map of a
//! sub-block and of the top-level (PCP) block, and what differs between
//! versions (drivers/perf/xgene/NOTES.md sections 1, 3 and 4).

/// Version of the top-level PMU, from its DT compatible or ACPI _HID.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Version {
    /// X-Gene (`apm,xgene-pmu`, `APMC0D5B`): one 32-bit counter per sub-block.
    V1,
    /// X-Gene 2 (`apm,xgene-pmu-v2`, `APMC0D5C`): four 32-bit counters.
    V2,
    /// X-Gene 3 (`APMC0D83`, ACPI only): four 64-bit counters, no agent masks.
    V3,
}

/// Sub-block type of a child PMU.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PmuType {
    /// L3 cache.
    L3c,
    /// I/O bridge.
    Iob,
    /// Slow I/O bridge (X-Gene 3 only).
    IobSlow,
    /// Memory controller bridge.
    Mcb,
    /// Memory controller.
    Mc,
}

impl PmuType {
    /// Every type, in the driver's order.
    pub const ALL: [PmuType; 5] = [
        PmuType::L3c,
        PmuType::Iob,
        PmuType::IobSlow,
        PmuType::Mcb,
        PmuType::Mc,
    ];

    /// The sysfs name prefix; the PMU is `<prefix><enable-bit-index>`.
    /// Note `iob_slow` with an underscore, as upstream.
    pub fn prefix(self) -> &'static str {
        self.block().prefix
    }

    /// Whether this sub-block exists on `v`: IOB-slow is an X-Gene 3 block.
    /// (Upstream registers an IOB-slow child under a v1/v2 parent with no
    /// sysfs groups at all; [`super::events::formats`] and
    /// [`super::events::events`] are empty for it.)
    pub fn exists_on(self, v: Version) -> bool {
        self.tables(v).is_some()
    }
}

/// One value per sub-block type: the tables of per-type facts
/// ([`super::blocks::BLOCK_TYPES`], the driver's sysfs groups) are built of
/// it, and [`PerType::get`] is the one place a type selects its entry.
#[derive(Debug, PartialEq, Eq)]
pub struct PerType<T> {
    /// L3 cache.
    pub l3c: T,
    /// I/O bridge.
    pub iob: T,
    /// Slow I/O bridge.
    pub iob_slow: T,
    /// Memory controller bridge.
    pub mcb: T,
    /// Memory controller.
    pub mc: T,
}

impl<T> PerType<T> {
    /// The entry of type `t`.
    pub const fn get(&self, t: PmuType) -> &T {
        match t {
            PmuType::L3c => &self.l3c,
            PmuType::Iob => &self.iob,
            PmuType::IobSlow => &self.iob_slow,
            PmuType::Mcb => &self.mcb,
            PmuType::Mc => &self.mc,
        }
    }
}

/// One value for X-Gene 1 and 2, which share their event tables, formats
/// and interrupt sources, and one for X-Gene 3; [`PerGeneration::get`] is
/// the one place a version selects its entry.
#[derive(Debug, PartialEq, Eq)]
pub struct PerGeneration<T> {
    /// X-Gene 1 and X-Gene 2.
    pub v1v2: T,
    /// X-Gene 3.
    pub v3: T,
}

impl<T> PerGeneration<T> {
    /// The entry of version `v`.
    pub const fn get(&self, v: Version) -> &T {
        match v {
            Version::V1 | Version::V2 => &self.v1v2,
            Version::V3 => &self.v3,
        }
    }
}

impl Version {
    /// Every version.
    pub const ALL: [Version; 3] = [Version::V1, Version::V2, Version::V3];

    /// The SoC generation: 1 (X-Gene), 2 (X-Gene 2) or 3 (X-Gene 3).
    pub const fn number(self) -> u8 {
        self.layout().number
    }

    /// The sub-block register layout of this version.
    pub const fn layout(self) -> &'static Layout {
        match self {
            Version::V1 => &LAYOUT_V1,
            Version::V2 => &LAYOUT_V2,
            Version::V3 => &LAYOUT_V3,
        }
    }

    /// The bits of the top-level INTSTATUS that signal an overflow in a
    /// sub-block of type `t` ([`super::blocks::BlockType::int_source`]).
    pub fn int_source_mask(self, t: PmuType) -> u32 {
        *t.block().int_source.get(self)
    }
}

/// How a sub-block's overflow status is acknowledged.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[allow(clippy::enum_variant_names)]
pub enum OvsClear {
    /// v1: write 0 to PMOVSR.
    WriteZero,
    /// v2: write the status read back to PMOVSR (write 1 to clear).
    WriteStatus,
    /// v3: write the status (read at PMOVSSET) to PMOVSCLR.
    WriteStatusToClr,
}

/// What differs between versions in a sub-block and in the top-level block.
#[derive(Debug, PartialEq, Eq)]
pub struct Layout {
    /// The SoC generation ([`Version::number`]).
    pub number: u8,
    /// Counters per sub-block (the same for every type).
    pub counters: usize,
    /// Counter width as a mask; deltas are taken modulo this.
    pub counter_mask: u64,
    /// Offset of the overflow status register (read).
    pub ovs_status: usize,
    /// Offset of the register that acknowledges overflows.
    pub ovs_clear: usize,
    /// How to acknowledge overflows at `ovs_clear`.
    pub ovs_clear_kind: OvsClear,
    /// Value for the top-level INTMASK that unmasks every source.
    pub intmask_unmask: u32,
    /// PMAMR0/PMAMR1 agent masks exist.
    pub has_agent_masks: bool,
    /// 64-bit counters made of two 32-bit registers.
    pub wide_counters: bool,
    /// The value a counter is started (and re-armed after an overflow)
    /// with ([`super::counter::start_value`] says why).
    pub start_value: u64,
}

impl Layout {
    /// The overflow status bits that belong to counters (all 32 from 32
    /// counters on).
    pub const fn status_bits(&self) -> u32 {
        let n = if self.counters < 32 {
            self.counters as u32
        } else {
            32
        };
        match u32::MAX.checked_shl(n) {
            Some(above) => !above,
            None => u32::MAX,
        }
    }
}

static LAYOUT_V1: Layout = Layout {
    number: 1,
    counters: 1,
    counter_mask: 0xFFFF_FFFF,
    ovs_status: regs::PMOVSR,
    ovs_clear: regs::PMOVSR,
    ovs_clear_kind: OvsClear::WriteZero,
    intmask_unmask: 0xFFFF_FFF0,
    has_agent_masks: true,
    wide_counters: false,
    start_value: 1 << 31,
};

static LAYOUT_V2: Layout = Layout {
    number: 2,
    counters: 4,
    counter_mask: 0xFFFF_FFFF,
    ovs_status: regs::PMOVSR,
    ovs_clear: regs::PMOVSR,
    ovs_clear_kind: OvsClear::WriteStatus,
    intmask_unmask: 0xFFFF_FFF0,
    has_agent_masks: true,
    wide_counters: false,
    start_value: 1 << 31,
};

static LAYOUT_V3: Layout = Layout {
    number: 3,
    counters: 4,
    counter_mask: u64::MAX,
    ovs_status: regs::PMOVSSET,
    ovs_clear: regs::PMOVSCLR,
    ovs_clear_kind: OvsClear::WriteStatusToClr,
    intmask_unmask: 0xFF00_CC00,
    has_agent_masks: false,
    wide_counters: true,
    start_value: 0,
};

/// The most counters any version has.
pub const MAX_COUNTERS: usize = 4;

/// How software accesses a register.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Access {
    /// Read and write.
    Rw,
    /// Read only (writes are ignored).
    Ro,
    /// Write 1 to set a bit; reads the bits.
    W1s,
    /// Write 1 to clear a bit; reads the bits.
    W1c,
    /// Any write clears the register (X-Gene 1 PMOVSR: written with 0).
    W0c,
}

/// Which register window a register lives in.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Block {
    /// A sub-block's 4 KiB CSR window (L3C, IOB, IOB-slow, MCB, MC).
    Pmu,
    /// The top-level PCP PMU window (interrupt status and mask).
    Pcp,
    /// The CSW syscon (discovery).
    Csw,
    /// The MCBA/MCBB syscons (discovery).
    Mcb,
}

/// One register as one version has it: the data
/// [`REGISTERS`](regs::REGISTERS) is made of.
/// A register array (one per counter) is `count` registers `stride` bytes
/// apart from `offset`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Register {
    /// Name, as the upstream C driver spells it without its `PMU_`,
    /// `PCPPMU_` prefix or `_REG` suffix.
    pub name: &'static str,
    /// The window.
    pub block: Block,
    /// Byte offset in the window (of the first of an array).
    pub offset: usize,
    /// The version this row describes.
    pub version: Version,
    /// Access.
    pub access: Access,
    /// Width in bits (64: a low and a high 32-bit word, low first).
    pub width: u32,
    /// Registers in the array (1: a single register).
    pub count: usize,
    /// Bytes between array elements.
    pub stride: usize,
}

/// Declares the register map once, as data: a `pub const` offset per
/// register, one [`Register`] row per version that has it, in
/// [`REGISTERS`](regs::REGISTERS), and the register's bit fields, if it has
/// any, as `const`s of [`super::bitfield::Bit`] and
/// [`super::bitfield::BitField`] in a module of their own, listed in
/// [`FIELDS`](regs::FIELDS). Syntax per register:
///
/// `NAME (Block, offset): [Version Access width count stride, ...]
/// fields module { FIELD: bit, FIELD: lo..=hi, ... };` (`fields` optional)
macro_rules! registers {
    (@field $(#[$fdoc:meta])* $field:ident $bit:literal) => {
        $(#[$fdoc])* pub const $field: super::Bit = super::Bit::new($bit);
    };
    (@field $(#[$fdoc:meta])* $field:ident $lo:literal $hi:literal) => {
        $(#[$fdoc])* pub const $field: super::BitField = super::BitField::new($lo, $hi);
    };
    ($(
        $(#[$doc:meta])*
        $name:ident ($block:ident, $off:literal):
            [$($v:ident $acc:ident $width:literal $count:literal $stride:literal),+ $(,)?]
            $(fields $fmod:ident {
                $($(#[$fdoc:meta])* $field:ident: $lo:literal $(..= $hi:literal)?),+ $(,)?
            })?;
    )*) => {
        $(
            $(#[$doc])* pub const $name: usize = $off;
            $(
                #[doc = concat!("The bit fields of [`", stringify!($name), "`].")]
                pub mod $fmod {
                    $(registers!(@field $(#[$fdoc])* $field $lo $($hi)?);)+
                }
            )?
        )*

        /// Every register of every version, one row per (register,
        /// version), in declaration order.
        pub const REGISTERS: &[super::Register] = &[$($(
            super::Register {
                name: stringify!($name),
                block: super::Block::$block,
                offset: $off,
                version: super::Version::$v,
                access: super::Access::$acc,
                width: $width,
                count: $count,
                stride: $stride,
            },
        )+)*];

        /// Every bit field: (register, field, lowest bit, highest bit), in
        /// declaration order.
        pub const FIELDS: &[(&str, &str, u32, u32)] = &[$($($(
            (stringify!($name), stringify!($field), $fmod::$field.lo(), $fmod::$field.hi()),
        )+)?)*];
    };
}

/// Register offsets and bits. Sub-block registers are offsets in the
/// sub-block's 4 KiB CSR block; `INTSTATUS`/`INTMASK` are in the top-level
/// block; `CSW_CSWCR` and `MCBADDRMR` in the CSW and MCB syscons. The
/// offsets and [`REGISTERS`](regs::REGISTERS) come from one declaration.
pub mod regs {
    use super::{
        super::bitfield::{Bit, BitField},
        Version,
    };

    /// Size of a sub-block's CSR block.
    pub const CSR_SIZE: usize = 0x1000;

    registers! {
        /// First event counter: v1/v2 32-bit, one register per counter;
        /// v3 64-bit, a low and a high word per counter.
        PMEVCNTR0 (Pmu, 0x000): [V1 Rw 32 1 4, V2 Rw 32 4 4, V3 Rw 64 4 8];
        /// First event type (select) register; one per counter, 4 bytes apart.
        PMEVTYPER0 (Pmu, 0x400): [V1 Rw 32 1 4, V2 Rw 32 4 4, V3 Rw 32 4 4]
            fields pmevtyper {
                /// The event select code.
                EVENT: 0..=7,
            };
        /// Agent mask for agents 0..31 (v1/v2). A set bit counts that agent.
        PMAMR0 (Pmu, 0xA00): [V1 Rw 32 1 4, V2 Rw 32 1 4];
        /// Agent mask for agents 32..63 (v1/v2, IOB only).
        PMAMR1 (Pmu, 0xA04): [V1 Rw 32 1 4, V2 Rw 32 1 4];
        /// Counter enable, bit per counter.
        PMCNTENSET (Pmu, 0xC00): [V1 W1s 32 1 4, V2 W1s 32 1 4, V3 W1s 32 1 4];
        /// Counter disable, bit per counter.
        PMCNTENCLR (Pmu, 0xC20): [V1 W1c 32 1 4, V2 W1c 32 1 4, V3 W1c 32 1 4];
        /// Overflow interrupt enable, bit per counter.
        PMINTENSET (Pmu, 0xC40): [V1 W1s 32 1 4, V2 W1s 32 1 4, V3 W1s 32 1 4];
        /// Overflow interrupt disable, bit per counter.
        PMINTENCLR (Pmu, 0xC60): [V1 W1c 32 1 4, V2 W1c 32 1 4, V3 W1c 32 1 4];
        /// v1/v2 overflow status (read; clear as [`super::OvsClear`] says).
        PMOVSR (Pmu, 0xC80): [V1 W0c 32 1 4, V2 W1c 32 1 4]
            fields pmovsr {
                /// The overflow status bits, PMOVSSET's too: four on every
                /// version, X-Gene 1's one-counter sub-blocks included
                /// (upstream's `PMU_OVERFLOW_MASK`). A set bit past the
                /// counters must be cleared too, or the sub-block's source
                /// stays asserted.
                OVERFLOW: 0..=3,
            };
        /// v3 overflow clear (write 1 to clear); same offset as v1/v2 PMOVSR.
        PMOVSCLR (Pmu, 0xC80): [V3 W1c 32 1 4];
        /// v3 overflow status (read; write 1 to set).
        PMOVSSET (Pmu, 0xCC0): [V3 W1s 32 1 4];
        /// Control register.
        PMCR (Pmu, 0xE04): [V1 Rw 32 1 4, V2 Rw 32 1 4, V3 Rw 32 1 4]
            fields pmcr {
                /// Global counter enable.
                E: 0,
                /// Reset all counters.
                P: 1,
            };
        /// Top-level interrupt status, one or more bits per sub-block type
        /// ([`Version::int_source_mask`]).
        INTSTATUS (Pcp, 0x000): [V1 Ro 32 1 4, V2 Ro 32 1 4, V3 Ro 32 1 4];
        /// Top-level interrupt mask; a set bit masks that source.
        INTMASK (Pcp, 0x004): [V1 Rw 32 1 4, V2 Rw 32 1 4, V3 Rw 32 1 4];
        /// CSW syscon: the CSW configuration register.
        CSW_CSWCR (Csw, 0x000): [V1 Ro 32 1 4, V2 Ro 32 1 4, V3 Ro 32 1 4]
            fields cswcr {
                /// Dual-MCB mode.
                DUALMCB: 0,
                /// MCB0 routing (v3).
                MCB0_ROUTING: 2..=3,
                /// MCB1 routing (v3).
                MCB1_ROUTING: 4..=5,
            };
        /// MCBA/MCBB syscon: the MCB address mode register.
        MCBADDRMR (Mcb, 0x000): [V1 Ro 32 1 4, V2 Ro 32 1 4]
            fields mcbaddrmr {
                /// Dual-MCU mode.
                DUALMCU: 2,
            };
    }

    /// INTMASK value that masks every source (all versions).
    pub const INTMASK_ALL: u32 = 0xFFFF_FFFF;
    /// The bits of a sub-block's overflow status register (PMOVSR, or
    /// PMOVSSET on v3): [`pmovsr::OVERFLOW`].
    pub const OVS_STATUS_MASK: u32 = pmovsr::OVERFLOW.mask();

    /// The row of register `name` on `v`, if `v` has it.
    pub fn find(name: &str, v: Version) -> Option<&'static super::Register> {
        REGISTERS.iter().find(|r| r.name == name && r.version == v)
    }

    /// `base + stride * idx`, saturated: an offset past `usize::MAX` (an
    /// index far past the counters) is `usize::MAX`, which no register
    /// window holds, so an access there is refused rather than aliased.
    const fn array_at(base: usize, stride: usize, idx: usize) -> usize {
        base.saturating_add(stride.saturating_mul(idx))
    }

    /// Offset of counter `idx` (its low word on v3, whose counters are a
    /// low and a high word, [`super::Layout::wide_counters`]).
    pub const fn counter_lo(v: Version, idx: usize) -> usize {
        if v.layout().wide_counters {
            array_at(PMEVCNTR0, 8, idx)
        } else {
            array_at(PMEVCNTR0, 4, idx)
        }
    }

    /// Offset of the high word of counter `idx` (v3), `None` for 32-bit
    /// counters.
    pub const fn counter_hi(v: Version, idx: usize) -> Option<usize> {
        if v.layout().wide_counters {
            Some(array_at(PMEVCNTR0, 8, idx).saturating_add(4))
        } else {
            None
        }
    }

    /// Offset of the event type register of counter `idx` (all versions).
    pub const fn evtyper(idx: usize) -> usize {
        array_at(PMEVTYPER0, 4, idx)
    }
}
