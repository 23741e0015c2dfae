// SPDX-License-Identifier: GPL-2.0
//! Host tests of the logic: discovery over every register combination, then
//! properties over random inputs (counters, allocator, config validation).
//! Expected values are computed from NOTES.md's rules as written there, not
//! by the functions under test. The event tables are checked in tables.rs.

use proptest::prelude::*;
use std::collections::BTreeSet;
use xgene_logic::{
    bitfield::{Bit, BitField},
    config::{self, ConfigError},
    counter::{self, Allocator},
    discover::{self, ActiveMasks, McbUnit},
    hw::{PmuType, Version},
};

const ALL_V: [Version; 3] = [Version::V1, Version::V2, Version::V3];
const ALL_T: [PmuType; 5] = [
    PmuType::L3c,
    PmuType::Iob,
    PmuType::IobSlow,
    PmuType::Mcb,
    PmuType::Mc,
];

// ---------------------------------------------------------------------
// Discovery over every combination of the bits that matter, with noise in
// the bits that must not.

fn mask_of(bits: impl IntoIterator<Item = u32>) -> u32 {
    bits.into_iter().fold(0, |m, b| m | 1 << b)
}

/// NOTES.md section 6, v1/v2, as sets of instances.
fn expect_v1v2(dual_mcb: bool, mcba_dual_mcu: bool, mcbb_dual_mcu: bool) -> ActiveMasks {
    let (mcbs, mcs): (Vec<u32>, Vec<u32>) = if dual_mcb {
        // MC0 and MC2 always; all four when MCB B is in dual-MCU mode.
        (
            vec![0, 1],
            if mcbb_dual_mcu {
                vec![0, 1, 2, 3]
            } else {
                vec![0, 2]
            },
        )
    } else {
        (vec![0], if mcba_dual_mcu { vec![0, 1] } else { vec![0] })
    };
    ActiveMasks {
        l3c: mask_of([0]),
        mcb: mask_of(mcbs),
        mc: mask_of(mcs),
    }
}

/// NOTES.md section 6, v3, as sets of instances.
fn expect_v3(dual_mcb: bool, r0: u32, r1: u32) -> ActiveMasks {
    let per = |r: u32| match r {
        2 => 4,
        1 => 2,
        _ => 1,
    };
    if dual_mcb {
        // MCs 0.. on MCB0 and 4.. on MCB1, as many as both routings agree on.
        let n = if r0 == r1 { per(r0) } else { 1 };
        ActiveMasks {
            l3c: mask_of(0..8),
            mcb: mask_of(0..2),
            mc: mask_of((0..n).chain(4..4 + n)),
        }
    } else {
        ActiveMasks {
            l3c: mask_of(0..4),
            mcb: mask_of([0]),
            mc: mask_of(0..per(r0)),
        }
    }
}

const NOISE: [u32; 4] = [0, 0xFFFF_FFC0, 0x8000_0040, 0x5555_5540];

/// v1/v2 discovery as the driver runs it: CSWCR, then the MCBADDRMR of the
/// one MCB it names.
fn read_v1v2(csw: u32, mcba: u32, mcbb: u32) -> ActiveMasks {
    let addrmr = match discover::v1v2_mcb(csw) {
        McbUnit::A => mcba,
        McbUnit::B => mcbb,
    };
    discover::v1v2(csw, Some(addrmr))
}

#[test]
fn discovery_v1v2_every_combination() {
    for low in 0..64u32 {
        for noise in NOISE {
            let csw = low | noise;
            // Only the MCB in use is read: MCB B exactly in dual-MCB mode.
            let want_unit = if low & 1 != 0 { McbUnit::B } else { McbUnit::A };
            assert_eq!(discover::v1v2_mcb(csw), want_unit, "{csw:#x}");
            for a in [0u32, 4] {
                for b in [0u32, 4] {
                    // Other MCBADDRMR bits do not matter.
                    let (ma, mb) = (a | (noise & !4), b | (!noise & !4));
                    let want = expect_v1v2(csw & 1 != 0, a != 0, b != 0);
                    assert_eq!(read_v1v2(csw, ma, mb), want, "{csw:#x} {ma:#x} {mb:#x}");
                }
            }
        }
    }
}

#[test]
fn discovery_v1v2_without_mcbaddrmr() {
    // A failed MCB read keeps what CSWCR says: the MCBs, and the MCs every
    // configuration with that CSWCR has (a subset of each of them).
    for csw in 0..64u32 {
        let m = discover::v1v2(csw, None);
        for r in [0u32, 4] {
            let full = discover::v1v2(csw, Some(r));
            assert_eq!((m.l3c, m.mcb), (full.l3c, full.mcb), "{csw:#x}");
            assert_eq!(m.mc & !full.mc, 0, "{csw:#x} {r:#x}");
        }
        assert_eq!(m.mc, if csw & 1 != 0 { 0x5 } else { 0x1 }, "{csw:#x}");
    }
}

#[test]
fn discovery_v3_every_combination() {
    for low in 0..64u32 {
        for noise in NOISE {
            let csw = low | noise;
            let want = expect_v3(low & 1 != 0, (low >> 2) & 3, (low >> 4) & 3);
            assert_eq!(discover::v3(csw), want, "{csw:#x}");
        }
    }
}

#[test]
fn discovery_limits() {
    // At most 2 MCBs, 4 MCs (v1/v2) or 8 (v3), 1 L3C (v1/v2) or 8 (v3).
    for csw in 0..64 {
        for a in [0, 4] {
            for b in [0, 4] {
                let m = read_v1v2(csw, a, b);
                assert!(m.l3c == 1 && m.mcb <= 3 && m.mc <= 0xF && m.mc & 1 == 1);
            }
        }
        let m = discover::v3(csw);
        assert!(m.l3c <= 0xFF && m.mcb <= 3 && m.mc <= 0xFF && m.mc & 1 == 1);
        // The fallback is a subset of every discovered configuration.
        for m in [m, read_v1v2(csw, 0, 0), discover::v1v2(csw, None)] {
            let f = discover::FALLBACK;
            assert!(f.l3c & !m.l3c == 0 && f.mcb & !m.mcb == 0 && f.mc & !m.mc == 0);
        }
    }
}

proptest! {
    #[test]
    fn is_active_matches_the_masks(l3c: u32, mcb: u32, mc: u32, bit in 0u32..40) {
        let m = ActiveMasks { l3c, mcb, mc };
        let has = |mask: u32| bit < 32 && mask >> bit & 1 == 1;
        prop_assert_eq!(m.is_active(PmuType::L3c, bit), has(l3c));
        prop_assert_eq!(m.is_active(PmuType::Mcb, bit), has(mcb));
        prop_assert_eq!(m.is_active(PmuType::Mc, bit), has(mc));
        prop_assert_eq!(m.is_active(PmuType::Iob, bit), bit < 32);
        prop_assert_eq!(m.is_active(PmuType::IobSlow, bit), bit < 32);
    }
}

// ---------------------------------------------------------------------
// Counters.

proptest! {
    #[test]
    fn delta_32_is_exact_below_one_wrap(prev: u32, n in 0u64..(1 << 32)) {
        let now = (u64::from(prev) + n) & 0xFFFF_FFFF;
        prop_assert_eq!(counter::delta(u64::from(prev), now, 0xFFFF_FFFF), n);
    }

    #[test]
    fn delta_64_is_exact(prev: u64, n: u64) {
        prop_assert_eq!(counter::delta(prev, prev.wrapping_add(n), u64::MAX), n);
    }

    /// A counter started at start_value, read (folded) at least every 2^31
    /// events as the overflow interrupt guarantees on v1/v2, and re-armed
    /// after each overflow: the sum of deltas is the number of events.
    #[test]
    fn counting_with_overflows_is_exact(
        v in prop::sample::select(ALL_V.to_vec()),
        steps in prop::collection::vec((0u64..=(1 << 31), any::<bool>()), 1..50),
    ) {
        let l = v.layout();
        let mut hw = counter::start_value(v);
        let mut prev = hw;
        let mut total = 0u64;
        let mut counted = 0u64;
        for (n, irq) in steps {
            let before = hw;
            hw = hw.wrapping_add(n) & l.counter_mask;
            total += n;
            let wrapped = hw < before;
            counted += counter::delta(prev, hw, l.counter_mask);
            prev = hw;
            if wrapped || irq {
                // The interrupt handler re-arms the counter.
                hw = counter::start_value(v);
                prev = hw;
            }
        }
        prop_assert_eq!(counted, total);
    }
}

#[derive(Debug, Clone)]
enum Op {
    Alloc,
    Free(usize),
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        prop_oneof![Just(Op::Alloc), (0usize..36).prop_map(Op::Free)],
        0..100,
    )
}

proptest! {
    #[test]
    fn allocator_matches_a_set(n in 0usize..36, ops in ops()) {
        let mut a = Allocator::new(n);
        let cap = n.min(32);
        let mut model = BTreeSet::new();
        for op in ops {
            match op {
                Op::Alloc => {
                    let want = (0..cap).find(|i| !model.contains(i));
                    prop_assert_eq!(a.alloc(), want);
                    if let Some(i) = want {
                        model.insert(i);
                    }
                }
                Op::Free(i) => {
                    a.free(i);
                    model.remove(&i);
                }
            }
            let bits = model.iter().fold(0u32, |m, &i| m | 1 << i);
            prop_assert_eq!(a.used(), bits);
            prop_assert!(model.len() <= cap);
        }
    }

    #[test]
    fn group_fits_counts_counters(n in 0usize..10) {
        prop_assert_eq!(counter::group_fits(Version::V1, n), n <= 1);
        prop_assert_eq!(counter::group_fits(Version::V2, n), n <= 4);
        prop_assert_eq!(counter::group_fits(Version::V3, n), n <= 4);
    }
}

// ---------------------------------------------------------------------
// Config validation, against the policy written out per type and version:
// (config bits accepted, config1 bits accepted or None for no filter).

fn policy(t: PmuType, v: Version) -> (u64, Option<u64>) {
    use PmuType::*;
    let v3 = v == Version::V3;
    match (t, v3) {
        (L3c, false) => (0xFF, Some(0x3FF)),
        (Iob, false) => (0xFF, Some(u64::MAX)),
        (IobSlow, false) => (0, None),
        (Mcb, false) => (0x3F, Some(0x3FF)),
        (Mc, false) => (0xFF, None),
        // v3: every event field is at least 8 bits wide; 8 are used.
        (_, true) => (0xFF, None),
    }
}

fn interesting() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(0u64),
        0u64..0x100,
        (0u32..64).prop_map(|b| 1u64 << b),
        // "every agent but these", the upstream documentation's idiom
        (0u64..0x400).prop_map(|lo| !0x3ffu64 | lo),
        any::<u64>(),
    ]
}

proptest! {
    #[test]
    fn decode_follows_the_policy(
        t in prop::sample::select(ALL_T.to_vec()),
        v in prop::sample::select(ALL_V.to_vec()),
        config in interesting(),
        config1 in interesting(),
    ) {
        let (ev_ok, agent_ok) = policy(t, v);
        let got = config::decode(t, v, config, config1);
        if ev_ok == 0 || config & !ev_ok != 0 {
            prop_assert_eq!(got, Err(ConfigError::EventBits));
            return Ok(());
        }
        match agent_ok {
            None if config1 != 0 => {
                prop_assert_eq!(got, Err(ConfigError::NoAgentFilter));
                return Ok(());
            }
            Some(m) if config1 & !m != 0 && config1 & !m != !m => {
                prop_assert_eq!(got, Err(ConfigError::AgentBits));
                return Ok(());
            }
            _ => {}
        }
        let p = got.unwrap();
        prop_assert_eq!(u64::from(p.evtype), config);
        // PMAMR1 only for IOB; no masks at all on v3.
        prop_assert_eq!(p.amr1.is_some(), t == PmuType::Iob && v != Version::V3);
        prop_assert_eq!(p.amr0.is_some(), v != Version::V3);
        // The hardware counts agent i when its PMAMR bit is 1; the user's
        // config1 bit i set excludes it.
        for i in 0..64u32 {
            if i >= 32 && t != PmuType::Iob {
                // Agents past PMAMR0 exist only on the IOB.
                continue;
            }
            let hw_counts = match (i, p.amr0, p.amr1) {
                (0..=31, Some(m), _) => m >> i & 1 == 1,
                (32.., _, Some(m)) => m >> (i - 32) & 1 == 1,
                // No register written: nothing filters (v3; agents past
                // PMAMR0 on non-IOB types do not exist).
                _ => true,
            };
            prop_assert_eq!(hw_counts, config1 >> i & 1 == 0, "agent {}", i);
        }
    }
}

// ---------------------------------------------------------------------
// Register bit fields, against a bit-by-bit model.

proptest! {
    #[test]
    fn bit_fields_follow_their_bits(reg: u32, value: u32, lo in 0u32..40, hi in 0u32..40) {
        let f = BitField::new(lo, hi);
        let bits: Vec<u32> = (lo..=hi).filter(|&b| b < 32).collect();
        let mask = if lo > hi || hi > 31 { 0 } else { mask_of(bits.iter().copied()) };
        prop_assert_eq!(f.mask(), mask);
        let want_get = if mask == 0 { 0 } else { (reg & mask) >> lo };
        prop_assert_eq!(f.get(reg), want_get);
        let set = f.set(reg, value);
        prop_assert_eq!(set & !mask, reg & !mask);
        if mask != 0 {
            prop_assert_eq!(f.get(set), value & (mask >> lo));
        }
        let b = Bit::new(lo);
        let bmask = if lo < 32 { 1 << lo } else { 0 };
        prop_assert_eq!(b.mask(), bmask);
        prop_assert_eq!(b.get(reg), reg & bmask != 0);
        prop_assert_eq!(b.set(reg, true), reg | bmask);
        prop_assert_eq!(b.set(reg, false), reg & !bmask);
    }
}
