// SPDX-License-Identifier: GPL-2.0

//! The simulator's register map, written independently of the driver's
//! (drivers/perf/xgene/logic/src/hw.rs) from the upstream C driver
//! (drivers/perf/xgene_pmu.c: the `PMU_*`, `PCPPMU_*`, `CSW_*` and `MCB*`
//! defines and the accessors that use them) and
//! Documentation/admin-guide/perf/xgene-pmu.rst.
//!
//! Plain Rust with no kernel dependency: `model.rs` uses the offsets, and a
//! host test (drivers/perf/xgene/logic/tests/registers.rs) loads this file
//! with `#[path]` and compares the table row by row with the driver's, so
//! any difference between the two is visible and listed on purpose.

/// Version bits of [`Reg::versions`].
pub const V1: u8 = 1 << 0;
/// X-Gene 2.
pub const V2: u8 = 1 << 1;
/// X-Gene 3.
pub const V3: u8 = 1 << 2;

/// One register (or register array) of the silicon.
#[derive(Clone, Copy, Debug)]
pub struct Reg {
    /// The C driver's name without `PMU_`/`PCPPMU_` and `_REG`.
    pub name: &'static str,
    /// `"pmu"` (a sub-block CSR window), `"pcp"` (top level), `"csw"`,
    /// `"mcb"` (the discovery syscons).
    pub window: &'static str,
    /// Byte offset of the (first) register.
    pub offset: usize,
    /// Versions that have it, with this layout (`V1 | V2 | V3` bits).
    pub versions: u8,
    /// `"rw"`, `"ro"`, `"w1s"`, `"w1c"`, or `"plain"` (stores as written).
    pub access: &'static str,
    /// Bits (64: low word then high word).
    pub bits: u32,
    /// Registers in the array and the bytes between them.
    pub count: usize,
    /// Bytes between array elements.
    pub stride: usize,
}

// Sub-block (child PMU) registers.
/// PMU_PMEVCNTR0 (counter `n` at `4n`; v3 low word at `8n`, high at `8n + 4`).
pub const PMEVCNTR0: usize = 0x000;
/// PMU_PMEVTYPER0 (type of counter `n` at `0x400 + 4n`).
pub const PMEVTYPER0: usize = 0x400;
/// PMU_PMAMR0: agents 0..31.
pub const PMAMR0: usize = 0xA00;
/// PMU_PMAMR1: agents 32..63 (IOB).
pub const PMAMR1: usize = 0xA04;
/// PMU_PMCNTENSET.
pub const PMCNTENSET: usize = 0xC00;
/// PMU_PMCNTENCLR.
pub const PMCNTENCLR: usize = 0xC20;
/// PMU_PMINTENSET.
pub const PMINTENSET: usize = 0xC40;
/// PMU_PMINTENCLR.
pub const PMINTENCLR: usize = 0xC60;
/// PMU_PMOVSR (v1/v2 status); v3 PMU_PMOVSCLR at the same offset.
pub const PMOVSR: usize = 0xC80;
/// v3 PMU_PMOVSCLR.
pub const PMOVSCLR: usize = 0xC80;
/// v3 PMU_PMOVSSET.
pub const PMOVSSET: usize = 0xCC0;
/// PMU_PMCR.
pub const PMCR: usize = 0xE04;
/// PMU_PMCR_E: counting enable.
pub const PMCR_E: u32 = 1 << 0;
/// PMU_PMCR_P: reset the counters.
pub const PMCR_P: u32 = 1 << 1;

// Top-level (PCP PMU) registers.
/// PCPPMU_INTSTATUS_REG.
pub const INTSTATUS: usize = 0x000;
/// PCPPMU_INTMASK_REG.
pub const INTMASK: usize = 0x004;

// Discovery syscons.
/// CSW_CSWCR.
pub const CSW_CSWCR: usize = 0x000;
/// MCBADDRMR.
pub const MCBADDRMR: usize = 0x000;
/// CSW_CSWCR_DUALMCB_MASK: both MCBs in use (else MCB A only).
pub const CSWCR_DUALMCB: u32 = 1 << 0;

const ALL: u8 = V1 | V2 | V3;

/// The register map, one row per layout.
#[rustfmt::skip]
pub const REGISTERS: &[Reg] = &[
    Reg { name: "PMEVCNTR0", window: "pmu", offset: PMEVCNTR0, versions: V1, access: "rw", bits: 32, count: 1, stride: 4 },
    Reg { name: "PMEVCNTR0", window: "pmu", offset: PMEVCNTR0, versions: V2, access: "rw", bits: 32, count: 4, stride: 4 },
    Reg { name: "PMEVCNTR0", window: "pmu", offset: PMEVCNTR0, versions: V3, access: "rw", bits: 64, count: 4, stride: 8 },
    Reg { name: "PMEVTYPER0", window: "pmu", offset: PMEVTYPER0, versions: V1, access: "rw", bits: 32, count: 1, stride: 4 },
    Reg { name: "PMEVTYPER0", window: "pmu", offset: PMEVTYPER0, versions: V2 | V3, access: "rw", bits: 32, count: 4, stride: 4 },
    Reg { name: "PMAMR0", window: "pmu", offset: PMAMR0, versions: V1 | V2, access: "rw", bits: 32, count: 1, stride: 4 },
    Reg { name: "PMAMR1", window: "pmu", offset: PMAMR1, versions: V1 | V2, access: "rw", bits: 32, count: 1, stride: 4 },
    Reg { name: "PMCNTENSET", window: "pmu", offset: PMCNTENSET, versions: ALL, access: "w1s", bits: 32, count: 1, stride: 4 },
    Reg { name: "PMCNTENCLR", window: "pmu", offset: PMCNTENCLR, versions: ALL, access: "w1c", bits: 32, count: 1, stride: 4 },
    Reg { name: "PMINTENSET", window: "pmu", offset: PMINTENSET, versions: ALL, access: "w1s", bits: 32, count: 1, stride: 4 },
    Reg { name: "PMINTENCLR", window: "pmu", offset: PMINTENCLR, versions: ALL, access: "w1c", bits: 32, count: 1, stride: 4 },
    // X-Gene 1's PMOVSR is modelled as a plain register (see README.md).
    Reg { name: "PMOVSR", window: "pmu", offset: PMOVSR, versions: V1, access: "plain", bits: 32, count: 1, stride: 4 },
    Reg { name: "PMOVSR", window: "pmu", offset: PMOVSR, versions: V2, access: "w1c", bits: 32, count: 1, stride: 4 },
    Reg { name: "PMOVSCLR", window: "pmu", offset: PMOVSCLR, versions: V3, access: "w1c", bits: 32, count: 1, stride: 4 },
    Reg { name: "PMOVSSET", window: "pmu", offset: PMOVSSET, versions: V3, access: "w1s", bits: 32, count: 1, stride: 4 },
    Reg { name: "PMCR", window: "pmu", offset: PMCR, versions: ALL, access: "rw", bits: 32, count: 1, stride: 4 },
    Reg { name: "INTSTATUS", window: "pcp", offset: INTSTATUS, versions: ALL, access: "ro", bits: 32, count: 1, stride: 4 },
    Reg { name: "INTMASK", window: "pcp", offset: INTMASK, versions: ALL, access: "rw", bits: 32, count: 1, stride: 4 },
    Reg { name: "CSW_CSWCR", window: "csw", offset: CSW_CSWCR, versions: ALL, access: "ro", bits: 32, count: 1, stride: 4 },
    // The C driver reads MCBADDRMR on X-Gene 1 and 2 only (v3 routes by CSWCR).
    Reg { name: "MCBADDRMR", window: "mcb", offset: MCBADDRMR, versions: V1 | V2, access: "ro", bits: 32, count: 1, stride: 4 },
];
