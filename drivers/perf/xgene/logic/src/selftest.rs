// SPDX-License-Identifier: GPL-2.0

//! Table-driven cases shared by `cargo test` on the host and KUnit in the
//! guest, so that the logic the module runs is checked where it runs.
//! Expected values come from NOTES.md, written out here, not computed by
//! the functions under test.

// Test code, built only for `cargo test` and the KUnit module: the case
// tables index and compute on fixed values. The crate root denies these
// lints for the driver's code; this opts out, submodules included.
#![allow(clippy::arithmetic_side_effects, clippy::indexing_slicing)]
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::panic, clippy::unreachable)]

use super::{
    config::{self, ConfigError, Programming},
    counter::{self, Allocator},
    discover::{self, ActiveMasks},
    events::{self, Field, Word},
    hw::{regs, OvsClear, PmuType, Version},
    ids,
};

/// One case: what it checks, and the check.
pub struct Case {
    /// Printed when the case fails.
    pub what: &'static str,
    /// True if the case passes.
    pub check: fn() -> bool,
}

const fn case(what: &'static str, check: fn() -> bool) -> Case {
    Case { what, check }
}

use PmuType::{Iob, IobSlow, L3c, Mc, Mcb};
use Version::{V1, V2, V3};

fn prog(evtype: u32, amr0: Option<u32>, amr1: Option<u32>) -> Result<Programming, ConfigError> {
    Ok(Programming { evtype, amr0, amr1 })
}

fn masks(l3c: u32, mcb: u32, mc: u32) -> ActiveMasks {
    ActiveMasks { l3c, mcb, mc }
}

/// Every case, in order.
pub static CASES: &[Case] = &[
    // hw
    case("type prefixes", || {
        L3c.prefix() == "l3c"
            && Iob.prefix() == "iob"
            && IobSlow.prefix() == "iob_slow"
            && Mcb.prefix() == "mcb"
            && Mc.prefix() == "mc"
    }),
    case("IOB-slow exists on v3 only", || {
        !IobSlow.exists_on(V1)
            && !IobSlow.exists_on(V2)
            && IobSlow.exists_on(V3)
            && L3c.exists_on(V1)
    }),
    case("v1 layout: one 32-bit counter, clear by writing 0", || {
        let l = V1.layout();
        l.counters == 1
            && l.counter_mask == 0xFFFF_FFFF
            && l.ovs_status == 0xC80
            && l.ovs_clear == 0xC80
            && l.ovs_clear_kind == OvsClear::WriteZero
            && l.has_agent_masks
            && !l.wide_counters
            && l.status_bits() == 0x1
    }),
    case("v2 layout: four 32-bit counters, W1C PMOVSR", || {
        let l = V2.layout();
        l.counters == 4
            && l.counter_mask == 0xFFFF_FFFF
            && l.ovs_status == 0xC80
            && l.ovs_clear == 0xC80
            && l.ovs_clear_kind == OvsClear::WriteStatus
            && l.has_agent_masks
            && !l.wide_counters
            && l.status_bits() == 0xF
    }),
    case("v3 layout: four 64-bit counters, PMOVSSET/PMOVSCLR", || {
        let l = V3.layout();
        l.counters == 4
            && l.counter_mask == u64::MAX
            && l.ovs_status == 0xCC0
            && l.ovs_clear == 0xC80
            && l.ovs_clear_kind == OvsClear::WriteStatusToClr
            && !l.has_agent_masks
            && l.wide_counters
            && l.status_bits() == 0xF
    }),
    case("INTMASK unmask values", || {
        V1.layout().intmask_unmask == 0xFFFF_FFF0
            && V2.layout().intmask_unmask == 0xFFFF_FFF0
            && V3.layout().intmask_unmask == 0xFF00_CC00
    }),
    case("v1/v2 interrupt sources: MC 0, MCB 1, L3C 2, IOB 3", || {
        [V1, V2].iter().all(|&v| {
            v.int_source_mask(Mc) == 1
                && v.int_source_mask(Mcb) == 2
                && v.int_source_mask(L3c) == 4
                && v.int_source_mask(Iob) == 8
                && v.int_source_mask(IobSlow) == 8
        })
    }),
    case("v3 interrupt sources", || {
        V3.int_source_mask(Mc) == 0xFF
            && V3.int_source_mask(Mcb) == 0x300
            && V3.int_source_mask(L3c) == 0xFF_0000
            && V3.int_source_mask(Iob) == 0x3000
            && V3.int_source_mask(IobSlow) == 0x3000
    }),
    case("unmask = complement of all sources", || {
        Version::ALL.iter().all(|&v| {
            let all = PmuType::ALL
                .iter()
                .fold(0, |m, &t| m | v.int_source_mask(t));
            v.layout().intmask_unmask == !all
        })
    }),
    case("sub-block register offsets", || {
        regs::PMEVTYPER0 == 0x400
            && regs::PMAMR0 == 0xA00
            && regs::PMAMR1 == 0xA04
            && regs::PMCNTENSET == 0xC00
            && regs::PMCNTENCLR == 0xC20
            && regs::PMINTENSET == 0xC40
            && regs::PMINTENCLR == 0xC60
            && regs::PMOVSR == 0xC80
            && regs::PMOVSCLR == 0xC80
            && regs::PMOVSSET == 0xCC0
            && regs::PMCR == 0xE04
            && regs::pmcr::E.mask() == 1
            && regs::pmcr::P.mask() == 2
            && regs::OVS_STATUS_MASK == 0xF
    }),
    case("top-level and syscon offsets", || {
        regs::INTSTATUS == 0
            && regs::INTMASK == 4
            && regs::INTMASK_ALL == 0xFFFF_FFFF
            && regs::CSW_CSWCR == 0
            && regs::MCBADDRMR == 0
            && regs::cswcr::DUALMCB.mask() == 1
            && regs::cswcr::MCB0_ROUTING.mask() == 0xC
            && regs::cswcr::MCB1_ROUTING.mask() == 0x30
            && regs::mcbaddrmr::DUALMCU.mask() == 4
    }),
    case("v1/v2 counters: 32-bit registers 4 bytes apart", || {
        regs::counter_lo(V2, 0) == 0
            && regs::counter_lo(V2, 3) == 0xC
            && regs::counter_lo(V1, 0) == 0
            && regs::counter_hi(V1, 0).is_none()
            && regs::counter_hi(V2, 3).is_none()
    }),
    case("v3 counters: low/high word pairs 8 bytes apart", || {
        regs::counter_lo(V3, 0) == 0
            && regs::counter_hi(V3, 0) == Some(4)
            && regs::counter_lo(V3, 3) == 0x18
            && regs::counter_hi(V3, 3) == Some(0x1C)
    }),
    case("event type registers", || {
        regs::evtyper(0) == 0x400 && regs::evtyper(3) == 0x40C
    }),
    // events
    case("v1/v2 formats", || {
        let f = |t, i: usize| events::formats(t, V2).get(i).map(|f| (f.name, f.spec));
        f(L3c, 0) == Some(("l3c_eventid", "config:0-7"))
            && f(L3c, 1) == Some(("l3c_agentid", "config1:0-9"))
            && f(Iob, 0) == Some(("iob_eventid", "config:0-7"))
            && f(Iob, 1) == Some(("iob_agentid", "config1:0-63"))
            && f(Mcb, 0) == Some(("mcb_eventid", "config:0-5"))
            && f(Mcb, 1) == Some(("mcb_agentid", "config1:0-9"))
            && f(Mc, 0) == Some(("mc_eventid", "config:0-28"))
            && events::formats(Mc, V2).len() == 1
            && events::formats(IobSlow, V1).is_empty()
            && events::formats(IobSlow, V2).is_empty()
            && events::formats(L3c, V1) == events::formats(L3c, V2)
    }),
    case("v3 formats", || {
        let f = |t| {
            let fs = events::formats(t, V3);
            (fs.len() == 1).then(|| (fs[0].name, fs[0].spec))
        };
        f(L3c) == Some(("l3c_eventid", "config:0-39"))
            && f(Iob) == Some(("iob_eventid", "config:0-47"))
            && f(IobSlow) == Some(("iob_slow_eventid", "config:0-16"))
            && f(Mcb) == Some(("mcb_eventid", "config:0-35"))
            && f(Mc) == Some(("mc_eventid", "config:0-44"))
    }),
    case("format spec parsing", || {
        let fld = |word, lo, hi| Some(Field { word, lo, hi });
        events::parse_spec("config:0-7") == fld(Word::Config, 0, 7)
            && events::parse_spec("config1:0-63") == fld(Word::Config1, 0, 63)
            && events::parse_spec("config:5") == fld(Word::Config, 5, 5)
            && events::parse_spec("config2:0-7").is_none()
            && events::parse_spec("config:7-0").is_none()
            && events::parse_spec("config:0-64").is_none()
            && events::parse_spec("config:0-").is_none()
            && events::parse_spec("config:a-b").is_none()
            && Field {
                word: Word::Config1,
                lo: 0,
                hi: 63,
            }
            .mask()
                == u64::MAX
            && Field {
                word: Word::Config,
                lo: 4,
                hi: 5,
            }
            .mask()
                == 0x30
    }),
    case("every advertised format parses", || {
        Version::ALL.iter().all(|&v| {
            PmuType::ALL.iter().all(|&t| {
                events::formats(t, v)
                    .iter()
                    .all(|f| events::parse_spec(f.spec).is_some())
            })
        })
    }),
    case("event counts per table", || {
        let n = |t, v| events::events(t, v).len();
        n(L3c, V1) == 14
            && n(Iob, V1) == 13
            && n(Mcb, V1) == 6
            && n(Mc, V1) == 29
            && n(IobSlow, V1) == 0
            && n(L3c, V3) == 39
            && n(Iob, V3) == 39
            && n(IobSlow, V3) == 9
            && n(Mcb, V3) == 36
            && n(Mc, V3) == 45
            && events::events(Mc, V1) == events::events(Mc, V2)
    }),
    case("known events", || {
        events::code_of(L3c, V2, "read-miss") == Some(0x03)
            && events::code_of(L3c, V2, "bank-fifo-full") == Some(0x0b)
            && events::code_of(Mcb, V1, "csw-write-request") == Some(0x03)
            && events::code_of(Iob, V3, "pa-wr-back-cancelled-on-SS") == Some(0x1b)
            && events::code_of(IobSlow, V3, "ba-free-list-empty") == Some(0x10)
            && events::code_of(Mc, V3, "tmaw-tracker-full") == Some(0x2c)
            && events::name_of(L3c, V3, 0) == Some("cycle-count")
            && events::code_of(L3c, V3, "no-such-event").is_none()
            && events::code_of(IobSlow, V2, "cycle-count").is_none()
    }),
    case("tables sorted by code, names and codes unique", || {
        Version::ALL.iter().all(|&v| {
            PmuType::ALL.iter().all(|&t| {
                let evs = events::events(t, v);
                evs.windows(2).all(|w| w[0].code < w[1].code)
                    && evs
                        .iter()
                        .enumerate()
                        .all(|(i, a)| evs[i + 1..].iter().all(|b| a.name != b.name))
            })
        })
    }),
    case("every listed event passes validation unchanged", || {
        Version::ALL.iter().all(|&v| {
            PmuType::ALL.iter().all(|&t| {
                events::events(t, v).iter().all(|e| {
                    config::decode(t, v, u64::from(e.code), 0)
                        .is_ok_and(|p| p.evtype == u32::from(e.code))
                })
            })
        })
    }),
    // discover
    case("v1/v2 single MCB reads MCB A only", || {
        discover::v1v2_mcb(0) == discover::McbUnit::A
            && discover::v1v2(0, Some(0)) == masks(1, 1, 1)
            && discover::v1v2(0, Some(4)) == masks(1, 1, 3)
            && discover::v1v2(0, None) == masks(1, 1, 1)
    }),
    case("v1/v2 dual MCB reads MCB B only", || {
        discover::v1v2_mcb(1) == discover::McbUnit::B
            && discover::v1v2(1, Some(0)) == masks(1, 3, 5)
            && discover::v1v2(1, Some(4)) == masks(1, 3, 0xF)
            && discover::v1v2(1, None) == masks(1, 3, 5)
    }),
    case("v1/v2 ignore other bits", || {
        discover::v1v2_mcb(0xFFFF_FFFE) == discover::McbUnit::A
            && discover::v1v2(0xFFFF_FFFE, Some(0xFFFF_FFFB)) == masks(1, 1, 1)
    }),
    case("v3 single MCB by MCB0 routing", || {
        discover::v3(0) == masks(0xF, 1, 1)
            && discover::v3(1 << 2) == masks(0xF, 1, 3)
            && discover::v3(2 << 2) == masks(0xF, 1, 0xF)
            && discover::v3(3 << 2) == masks(0xF, 1, 1)
            && discover::v3(2 << 4) == masks(0xF, 1, 1)
    }),
    case("v3 dual MCB by both routings", || {
        discover::v3(1 | 2 << 2 | 2 << 4) == masks(0xFF, 3, 0xFF)
            && discover::v3(1 | 1 << 2 | 1 << 4) == masks(0xFF, 3, 0x33)
            && discover::v3(1 | 2 << 2 | 1 << 4) == masks(0xFF, 3, 0x11)
            && discover::v3(1) == masks(0xFF, 3, 0x11)
            && discover::v3(1 | 3 << 2 | 3 << 4) == masks(0xFF, 3, 0x11)
    }),
    case("fallback keeps instance 0 of every type", || {
        discover::FALLBACK == masks(1, 1, 1)
    }),
    case(
        "active: masks per type, IOB always, index past 31 never",
        || {
            let m = masks(0x1, 0x3, 0x5);
            m.is_active(L3c, 0)
                && !m.is_active(L3c, 1)
                && m.is_active(Mcb, 1)
                && !m.is_active(Mcb, 2)
                && m.is_active(Mc, 2)
                && !m.is_active(Mc, 1)
                && m.is_active(Iob, 7)
                && m.is_active(IobSlow, 31)
                && !m.is_active(Iob, 32)
                && !masks(u32::MAX, u32::MAX, u32::MAX).is_active(Mc, 40)
                && masks(1 << 31, 0, 0).is_active(L3c, 31)
        },
    ),
    // ids
    case("top-level _HIDs", || {
        ids::top_version(c"APMC0D5B") == Some(V1)
            && ids::top_version(c"APMC0D5C") == Some(V2)
            && ids::top_version(c"APMC0D83") == Some(V3)
            && ids::top_version(c"APMC0D5D").is_none()
            && ids::top_version(c"apmc0d5b").is_none()
            && ids::top_version(c"").is_none()
    }),
    case("child _HIDs", || {
        ids::child_type(c"APMC0D5D") == Some(L3c)
            && ids::child_type(c"APMC0D5E") == Some(Iob)
            && ids::child_type(c"APMC0D5F") == Some(Mcb)
            && ids::child_type(c"APMC0D60") == Some(Mc)
            && ids::child_type(c"APMC0D84") == Some(L3c)
            && ids::child_type(c"APMC0D85") == Some(Iob)
            && ids::child_type(c"APMC0D86") == Some(IobSlow)
            && ids::child_type(c"APMC0D87") == Some(Mcb)
            && ids::child_type(c"APMC0D88") == Some(Mc)
            && ids::child_type(c"APMC0D83").is_none()
            && ids::child_type(c"APMC0D89").is_none()
    }),
    case("top-level resources", || {
        ids::TOP_RES_PCP == 0
            && ids::TOP_RES_CSW == 1
            && ids::TOP_RES_MCBA == 2
            && ids::TOP_RES_MCBB == 3
            && ids::top_resources_needed(V1) == 4
            && ids::top_resources_needed(V2) == 4
            && ids::top_resources_needed(V3) == 2
            && discover::McbUnit::A.acpi_resource() == 2
            && discover::McbUnit::B.acpi_resource() == 3
            && discover::McbUnit::A.dt_syscon() == c"regmap-mcba"
            && discover::McbUnit::B.dt_syscon() == c"regmap-mcbb"
    }),
    case("DT compatibles", || {
        ids::dt_top_version(c"apm,xgene-pmu") == Some(V1)
            && ids::dt_top_version(c"apm,xgene-pmu-v2") == Some(V2)
            && ids::dt_top_version(c"apm,xgene-pmu-v3").is_none()
            && ids::dt_child_type(|c| c == c"apm,xgene-pmu-l3c") == Some(L3c)
            && ids::dt_child_type(|c| c == c"apm,xgene-pmu-iob") == Some(Iob)
            && ids::dt_child_type(|c| c == c"apm,xgene-pmu-mcb") == Some(Mcb)
            && ids::dt_child_type(|c| c == c"apm,xgene-pmu-mc") == Some(Mc)
            && ids::dt_child_type(|c| c == c"apm,xgene-pmu-iob-slow").is_none()
    }),
    // config
    case("v1/v2 L3C: event, agents excluded by config1", || {
        config::decode(L3c, V2, 0x03, 0) == prog(3, Some(u32::MAX), None)
            && config::decode(L3c, V2, 0x03, 0x1) == prog(3, Some(0xFFFF_FFFE), None)
            && config::decode(L3c, V1, 0xFF, 0x3FF) == prog(0xFF, Some(0xFFFF_FC00), None)
            && config::decode(L3c, V2, 0x100, 0) == Err(ConfigError::EventBits)
            && config::decode(L3c, V2, 0, 0x400) == Err(ConfigError::AgentBits)
            && config::decode(L3c, V2, 3, 0xFFFF_FFFF_FFFF_FFFE) == prog(3, Some(0x0000_0001), None)
            && config::decode(L3c, V2, 3, 0xFFFF_FFFF_FFFF_FC00 | 0x3F7)
                == prog(3, Some(0x0000_0008), None)
    }),
    case("v1/v2 IOB: 64 agents over PMAMR0 and PMAMR1", || {
        config::decode(Iob, V2, 0x16, 0) == prog(0x16, Some(u32::MAX), Some(u32::MAX))
            && config::decode(Iob, V2, 1, 0x8000_0000_0000_0001)
                == prog(1, Some(0xFFFF_FFFE), Some(0x7FFF_FFFF))
            && config::decode(Iob, V2, 1, u64::MAX) == prog(1, Some(0), Some(0))
    }),
    case("v1/v2 MCB: 6-bit event field", || {
        config::decode(Mcb, V2, 0x3F, 0x200) == prog(0x3F, Some(0xFFFF_FDFF), None)
            && config::decode(Mcb, V2, 0x40, 0) == Err(ConfigError::EventBits)
            && config::decode(Mcb, V2, 0, 1 << 10) == Err(ConfigError::AgentBits)
    }),
    case("v1/v2 MC: 8 bits of config:0-28, no agent filter", || {
        config::decode(Mc, V2, 0x1C, 0) == prog(0x1C, Some(u32::MAX), None)
            && config::decode(Mc, V2, 0xFF, 0) == prog(0xFF, Some(u32::MAX), None)
            && config::decode(Mc, V2, 0x100, 0) == Err(ConfigError::EventBits)
            && config::decode(Mc, V2, 1 << 28, 0) == Err(ConfigError::EventBits)
            && config::decode(Mc, V2, 0, 1) == Err(ConfigError::NoAgentFilter)
    }),
    case("v3: 8 of the advertised bits, no agent masks", || {
        config::decode(L3c, V3, 0x27, 0) == prog(0x27, None, None)
            && config::decode(L3c, V3, 0xFF, 0) == prog(0xFF, None, None)
            && config::decode(L3c, V3, 0x102, 0) == Err(ConfigError::EventBits)
            && config::decode(Iob, V3, 1 << 47, 0) == Err(ConfigError::EventBits)
            && config::decode(IobSlow, V3, 0x10, 0) == prog(0x10, None, None)
            && config::decode(IobSlow, V3, 1 << 16, 0) == Err(ConfigError::EventBits)
            && config::decode(Mc, V3, 0x2C, 0) == prog(0x2C, None, None)
            && config::decode(Mcb, V3, 0, 1) == Err(ConfigError::NoAgentFilter)
            && config::decode(Iob, V3, 0, u64::MAX) == Err(ConfigError::NoAgentFilter)
    }),
    case("event bits are checked before agent bits", || {
        config::decode(L3c, V2, 1 << 40, 1 << 40) == Err(ConfigError::EventBits)
            && config::decode(Mc, V3, 1 << 63, 1) == Err(ConfigError::EventBits)
    }),
    case("IOB-slow does not exist on v1/v2", || {
        config::decode(IobSlow, V1, 0, 0) == Err(ConfigError::EventBits)
            && config::decode(IobSlow, V2, 1, 0) == Err(ConfigError::EventBits)
    }),
    case("accepted masks", || {
        config::event_mask(Mcb, V1) == 0x3F
            && config::event_mask(Mc, V2) == 0xFF
            && config::event_mask(IobSlow, V3) == 0xFF
            && config::event_mask(IobSlow, V2) == 0
            && config::agent_mask(L3c, V2) == Some(0x3FF)
            && config::agent_mask(Iob, V1) == Some(u64::MAX)
            && config::agent_mask(Mc, V2).is_none()
            && config::agent_mask(L3c, V3).is_none()
    }),
    // counter
    case("32-bit delta across a wrap", || {
        counter::delta(0xFFFF_FFF0, 0x10, 0xFFFF_FFFF) == 0x20
            && counter::delta(1 << 31, 5, 0xFFFF_FFFF) == (1 << 31) + 5
            && counter::delta(7, 7, 0xFFFF_FFFF) == 0
    }),
    case("64-bit delta", || {
        counter::delta(0, u64::MAX, u64::MAX) == u64::MAX
            && counter::delta(u64::MAX, 1, u64::MAX) == 2
            && counter::delta(1 << 31, (1 << 31) + 100, u64::MAX) == 100
    }),
    case("start values", || {
        counter::start_value(V1) == 1 << 31
            && counter::start_value(V2) == 1 << 31
            && counter::start_value(V3) == 0
    }),
    case("group sizes", || {
        counter::group_fits(V1, 1)
            && !counter::group_fits(V1, 2)
            && counter::group_fits(V2, 4)
            && !counter::group_fits(V2, 5)
            && counter::group_fits(V3, 4)
            && !counter::group_fits(V3, 5)
    }),
    case("allocator: lowest free first, full, reuse", || {
        let mut a = Allocator::new(4);
        let first = [a.alloc(), a.alloc(), a.alloc(), a.alloc()];
        let full = a.alloc().is_none() && a.used() == 0xF;
        a.free(2);
        a.free(2);
        a.free(9);
        let after = a.used() == 0xB;
        let again = a.alloc() == Some(2);
        first == [Some(0), Some(1), Some(2), Some(3)] && full && after && again
    }),
    case("allocator: v1's single counter, none, clamp", || {
        let mut one = Allocator::new(V1.layout().counters);
        let mut none = Allocator::new(0);
        let mut big = Allocator::new(40);
        let mut n = 0;
        while big.alloc().is_some() {
            n += 1;
        }
        one.alloc() == Some(0)
            && one.alloc().is_none()
            && none.alloc().is_none()
            && n == 32
            && big.used() == u32::MAX
            && big.capacity() == 32
    }),
];

/// Runs every case; the number of cases, or the first failure.
pub fn run_all() -> Result<usize, &'static str> {
    for c in CASES {
        if !(c.check)() {
            return Err(c.what);
        }
    }
    Ok(CASES.len())
}
