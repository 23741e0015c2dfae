// SPDX-License-Identifier: GPL-2.0

//! The driver's register table (`hw::regs::REGISTERS`) against the
//! simulator's own (tools/testing/xgene_sim/regs.rs, written separately from
//! the upstream C driver): row by row, per version. A difference fails the
//! test unless it is listed in [`DELIBERATE`] with its reason.

use xgene_logic::hw::{regs, Access, Block, Version};

#[path = "../../../../../tools/testing/xgene_sim/regs.rs"]
mod sim;

/// The bit fields the simulator declares too.
#[test]
fn fields_agree() {
    assert_eq!(regs::pmcr::E.mask(), sim::PMCR_E);
    assert_eq!(regs::pmcr::P.mask(), sim::PMCR_P);
    assert_eq!(regs::cswcr::DUALMCB.mask(), sim::CSWCR_DUALMCB);
}

/// Every bit field is well formed, inside its register, and apart from the
/// register's other fields.
#[test]
fn fields_are_well_formed() {
    for &(reg, field, lo, hi) in regs::FIELDS {
        assert!(lo <= hi && hi < 32, "{reg}.{field}: bits {lo}..={hi}");
        let width = regs::REGISTERS
            .iter()
            .find(|r| r.name == reg)
            .map(|r| r.width);
        assert_eq!(width, Some(32), "{reg}.{field}: no 32-bit register");
        for &(reg2, field2, lo2, hi2) in regs::FIELDS {
            if reg2 == reg && field2 != field {
                assert!(hi < lo2 || hi2 < lo, "{reg}.{field} overlaps {field2}");
            }
        }
    }
    assert_eq!(regs::FIELDS.len(), 8);
}

/// One register of one version, in a form both tables map to.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Row {
    window: &'static str,
    name: &'static str,
    version: u8,
    offset: usize,
    access: &'static str,
    bits: u32,
    count: usize,
    stride: usize,
}

/// Differences known and accepted: (name, version, what, why).
const DELIBERATE: &[(&str, u8, &str, &str)] = &[(
    "PMOVSR",
    1,
    "access",
    "X-Gene 1 clears PMOVSR by writing 0 (driver: w0c); the model keeps what is \
     written (plain), which is the same for the driver's only store, 0",
)];

fn driver_rows() -> Vec<Row> {
    regs::REGISTERS
        .iter()
        .map(|r| Row {
            window: match r.block {
                Block::Pmu => "pmu",
                Block::Pcp => "pcp",
                Block::Csw => "csw",
                Block::Mcb => "mcb",
            },
            name: r.name,
            version: match r.version {
                Version::V1 => 1,
                Version::V2 => 2,
                Version::V3 => 3,
            },
            offset: r.offset,
            access: match r.access {
                Access::Rw => "rw",
                Access::Ro => "ro",
                Access::W1s => "w1s",
                Access::W1c => "w1c",
                Access::W0c => "w0c",
            },
            bits: r.width,
            count: r.count,
            stride: r.stride,
        })
        .collect()
}

fn sim_rows() -> Vec<Row> {
    let mut rows = Vec::new();
    for r in sim::REGISTERS {
        for (bit, version) in [(sim::V1, 1), (sim::V2, 2), (sim::V3, 3)] {
            if r.versions & bit != 0 {
                rows.push(Row {
                    window: r.window,
                    name: r.name,
                    version,
                    offset: r.offset,
                    access: r.access,
                    bits: r.bits,
                    count: r.count,
                    stride: r.stride,
                });
            }
        }
    }
    rows
}

fn key(r: &Row) -> (&'static str, &'static str, u8) {
    (r.window, r.name, r.version)
}

#[test]
fn no_duplicate_rows() {
    for rows in [driver_rows(), sim_rows()] {
        let mut keys: Vec<_> = rows.iter().map(key).collect();
        keys.sort();
        let n = keys.len();
        keys.dedup();
        assert_eq!(keys.len(), n, "a (window, register, version) appears twice");
    }
}

#[test]
fn driver_and_simulator_tables_agree() {
    let mut drv = driver_rows();
    let mut sim = sim_rows();
    drv.sort();
    sim.sort();
    let mut diffs = Vec::new();
    for d in &drv {
        match sim.iter().find(|s| key(s) == key(d)) {
            None => diffs.push(format!("{} v{}: only in the driver", d.name, d.version)),
            Some(s) => {
                let fields = [
                    ("offset", d.offset != s.offset),
                    ("access", d.access != s.access),
                    ("bits", d.bits != s.bits),
                    ("count", d.count != s.count),
                    ("stride", d.stride != s.stride),
                ];
                for (what, differs) in fields {
                    let known = DELIBERATE
                        .iter()
                        .any(|&(n, v, w, _)| n == d.name && v == d.version && w == what);
                    if differs != known {
                        diffs.push(format!(
                            "{} v{}: {what} {} (driver {d:?}, simulator {s:?})",
                            d.name,
                            d.version,
                            if differs {
                                "differs"
                            } else {
                                "listed as different but agrees"
                            }
                        ));
                    }
                }
            }
        }
    }
    for s in &sim {
        if !drv.iter().any(|d| key(d) == key(s)) {
            diffs.push(format!("{} v{}: only in the simulator", s.name, s.version));
        }
    }
    assert!(
        diffs.is_empty(),
        "register tables differ:\n{}",
        diffs.join("\n")
    );
}

#[test]
fn named_offsets_are_the_table() {
    for (name, off) in [
        ("PMEVCNTR0", regs::PMEVCNTR0),
        ("PMEVTYPER0", regs::PMEVTYPER0),
        ("PMAMR0", regs::PMAMR0),
        ("PMAMR1", regs::PMAMR1),
        ("PMCNTENSET", regs::PMCNTENSET),
        ("PMCNTENCLR", regs::PMCNTENCLR),
        ("PMINTENSET", regs::PMINTENSET),
        ("PMINTENCLR", regs::PMINTENCLR),
        ("PMOVSR", regs::PMOVSR),
        ("PMOVSCLR", regs::PMOVSCLR),
        ("PMOVSSET", regs::PMOVSSET),
        ("PMCR", regs::PMCR),
        ("INTSTATUS", regs::INTSTATUS),
        ("INTMASK", regs::INTMASK),
    ] {
        let rows: Vec<_> = regs::REGISTERS.iter().filter(|r| r.name == name).collect();
        assert!(!rows.is_empty(), "{name}");
        assert!(rows.iter().all(|r| r.offset == off), "{name}");
    }
    // Every counter and type register of a version fits in its CSR block.
    for r in regs::REGISTERS {
        let end = r.offset + (r.count - 1) * r.stride + r.width as usize / 8;
        assert!(end <= regs::CSR_SIZE, "{} v{:?}", r.name, r.version);
    }
    assert_eq!(regs::find("PMOVSSET", Version::V2), None);
    assert_eq!(
        regs::find("PMEVCNTR0", Version::V3).map(|r| (r.width, r.stride)),
        Some((64, 8))
    );
}
