// SPDX-License-Identifier: GPL-2.0

//! Tests of the simulator's generator (`dtl_sim/gen.rs`), which the kernel
//! module cannot run.

use crate::gen;
use crate::script::DISPATCH;

#[test]
fn generator_is_stable() {
    // Pins the generator: a change would silently desynchronise the
    // simulator module from a checker built at another commit.
    let f = gen::fields(7, 0, 0, 0, 1);
    assert_eq!(f.kind, gen::KIND_CEDE);
    assert_eq!(f.waiting_to_ready_time, 0);
    assert_eq!(DISPATCH[f.dispatch_reason as usize], "system_reset");
    assert_eq!(f.enqueue_to_dispatch_time, 2912);
    assert_eq!(f.ready_to_enqueue_time, 3172);
    assert_eq!(gen::steal_ticks(&f), 6084);
    assert_eq!(f.srr0, 0xc000_0000_001c_389c);
    assert_eq!(f.srr1, 10_275_868_765_350_013_958);
}

#[test]
fn kinds_follow_the_mask() {
    for seq in 0..500 {
        for mask in 1..8u8 {
            let f = gen::fields(3, 1, 1, seq, mask);
            assert!(f.kind & mask != 0);
            assert_eq!(f.fault_addr != 0, f.kind == gen::KIND_FAULT);
        }
    }
}

#[test]
fn sequence_number_in_waiting_to_ready_time() {
    for seq in [0, 1, 12, 0x7fff_ffff, 0x8000_0005] {
        let f = gen::fields(3, 0, 0, seq, 2);
        assert_eq!(u64::from(f.waiting_to_ready_time), seq & 0x7fff_ffff);
        let img = gen::image(&f, 0x1122_3344_5566_7788);
        assert_eq!(img[12..16], f.waiting_to_ready_time.to_be_bytes());
        assert_eq!(img[16..24], 0x1122_3344_5566_7788u64.to_be_bytes());
    }
}

#[test]
fn steal_fields_are_small_and_varied() {
    let (mut total, mut distinct) = (0u64, std::collections::BTreeSet::new());
    for seq in 0..10_000 {
        let f = gen::fields(11, 1, 1, seq, 7);
        assert!(f.enqueue_to_dispatch_time < gen::STEAL_FIELD_LIMIT);
        assert!(f.ready_to_enqueue_time < gen::STEAL_FIELD_LIMIT);
        assert_eq!(
            gen::steal_ticks(&f),
            u64::from(f.enqueue_to_dispatch_time) + u64::from(f.ready_to_enqueue_time)
        );
        total += gen::steal_ticks(&f);
        distinct.insert(f.enqueue_to_dispatch_time);
    }
    // Uniform draws: about 5120 ticks per entry on average (two halves).
    let mean = total / 10_000;
    assert!((4900..5340).contains(&mean), "mean steal {mean}");
    assert!(distinct.len() > 4000);
}
