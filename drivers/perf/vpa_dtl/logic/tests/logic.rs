// SPDX-License-Identifier: GPL-2.0
//! Host tests: the shared table, then properties over random inputs.

use proptest::prelude::*;
use vpa_dtl_logic::{aux_plan, pacer, record, ring, selftest};

#[test]
fn shared_table() {
    assert_eq!(selftest::ring_plan(), Ok(()));
    assert_eq!(selftest::ring_torn(), Ok(()));
    assert_eq!(selftest::entry_checks(), Ok(()));
    assert_eq!(selftest::ring_runs(), Ok(()));
    assert_eq!(selftest::aux(), Ok(()));
    assert_eq!(selftest::records(), Ok(()));
    assert_eq!(selftest::validation(), Ok(()));
    assert_eq!(selftest::pacing(), Ok(()));
}

/// A model of the hypervisor and the reader: the reader never reports an
/// entry twice, never skips one without counting it lost, and only copies
/// entries that were intact when it looked.
fn simulate(ring: u64, bursts: &[(u64, u64)]) {
    let readable = ring::readable(ring, false);
    let mut head = 0u64; // published by the "hypervisor"
    let mut next = 0u64; // reader's next unread
    let mut captured = 0u64;
    let mut lost = 0u64;
    let mut last_captured: Option<u64> = None;
    for &(burst, during_copy) in bursts {
        head += burst;
        let span = ring::plan(next, head, readable).expect("head never goes backwards");
        assert!(span.count <= readable);
        assert_eq!(span.first + span.count, head);
        // The hypervisor keeps writing while the reader copies.
        let head_after = head + during_copy;
        let torn = ring::torn(&span, head_after, readable);
        let kept_first = span.first + torn;
        // Every kept entry was intact: its slot was not rewritten.
        assert!(kept_first + readable >= head_after || span.count == torn);
        if span.count > torn {
            if let Some(prev) = last_captured {
                assert!(kept_first > prev, "in order, never twice");
            }
            last_captured = Some(head - 1);
        }
        captured += span.count - torn;
        lost += span.lost + torn;
        next = head;
        head = head_after;
    }
    // Everything published up to the last poll is accounted for exactly.
    assert_eq!(captured + lost, next);
}

proptest! {
    #[test]
    fn ring_accounting_is_exact(bursts in prop::collection::vec((0u64..300, 0u64..120), 1..60)) {
        simulate(ring::RING_ENTRIES, &bursts);
    }

    #[test]
    fn large_ring_accounting_is_exact(bursts in prop::collection::vec((0u64..4000, 0u64..1500), 1..60)) {
        simulate(ring::LARGE_RING_ENTRIES, &bursts);
    }

    #[test]
    fn runs_cover_the_span(
        first in 0u64..1_000_000,
        large: bool,
        count in 0u64..=ring::LARGE_RING_ENTRIES,
    ) {
        let ring = if large { ring::LARGE_RING_ENTRIES } else { ring::RING_ENTRIES };
        let count = count.min(ring);
        let r = ring::runs(first, count, ring);
        prop_assert_eq!((r[0].1 + r[1].1) as u64, count);
        prop_assert!(r[0].0 + r[0].1 <= ring as usize);
        prop_assert!(r[1].1 == 0 || r[0].0 + r[0].1 == ring as usize);
        prop_assert_eq!(r[0].0 as u64, first % ring);
    }

    #[test]
    fn aux_plan_fits_and_accounts(space in 0usize..100_000, pending in 0u64..10_000) {
        let p = aux_plan::plan(space, pending);
        prop_assert!(p.bytes() < space.max(1), "leaves a byte free");
        prop_assert_eq!(p.entries + p.dropped, pending);
        // A header exactly when entries follow it: never alone.
        prop_assert_eq!(p.header, p.entries > 0);
        // Nothing dropped while one more entry (with the header, if none
        // was written) still fits.
        if p.dropped > 0 {
            let need = if p.entries == 0 { 2 * ring::ENTRY_SIZE } else { ring::ENTRY_SIZE };
            prop_assert!(space.saturating_sub(1 + p.bytes()) < need);
        }
    }

    #[test]
    fn aux_plan_continued_fits_and_accounts(space in 0usize..100_000, pending in 0u64..10_000) {
        let p = aux_plan::plan_continued(space, pending);
        prop_assert!(p.bytes() < space.max(1), "leaves a byte free");
        prop_assert!(!p.header, "a held transaction has its header");
        prop_assert_eq!(p.entries + p.dropped, pending);
        if p.dropped > 0 {
            prop_assert!(space.saturating_sub(1 + p.bytes()) < ring::ENTRY_SIZE);
        }
    }

    #[test]
    fn aux_hold_leaves_room_for_the_next_poll(
        live: bool, loss: bool, found in 0u64..2000, ring in 1u64..2000,
        space in 0usize..1_000_000, past_wakeup: bool, polls in 0u32..40,
    ) {
        let h = aux_plan::Hold { live, loss, found, quiet: ring / 8, ring, space, past_wakeup, polls };
        if aux_plan::keep_open(&h) {
            // The next poll's entries all fit in what is left (with the
            // byte kept free), so holding never truncates.
            prop_assert_eq!(aux_plan::plan_continued(space, ring).dropped, 0);
            prop_assert!(live && !loss && !past_wakeup && found > ring / 8);
            prop_assert!(polls < aux_plan::HOLD_POLLS);
        }
    }

    #[test]
    fn entry_round_trip(a: u8, b: u8, c: u16, d: u32, e: u32, f: u32, g: u64, h: u64, i: u64, j: u64) {
        let x = record::DtlEntry { dispatch_reason: a, preempt_reason: b, processor_id: c,
            enqueue_to_dispatch_time: d, ready_to_enqueue_time: e, waiting_to_ready_time: f,
            timebase: g, fault_addr: h, srr0: i, srr1: j };
        prop_assert_eq!(record::DtlEntry::from_be_bytes(&x.to_be_bytes()), x);
    }

    #[test]
    fn boot_tb_error_is_bounded(boot in 0u64..1u64 << 50, up_ns in 0u64..1u64 << 45, win in 0u64..10_000) {
        let freq = 512_000_000u64;
        let ticks = (up_ns as u128 * freq as u128 / 1_000_000_000) as u64;
        let before = boot + ticks;
        let (est, err) = record::boot_tb_from(before, up_ns, before + win, freq);
        prop_assert!(est.abs_diff(boot) <= err);
    }

    /// Readings as the kernel's sched_clock makes them (the timebase scaled
    /// and floored) at random points of random windows: the intersected
    /// estimate always contains the true boot timebase, and is no wider
    /// than the best single reading.
    #[test]
    fn boot_tb_intersection_contains_the_truth(
        boot in 0u64..1u64 << 50,
        reads in prop::collection::vec((0u64..1u64 << 36, 0u64..2_000, 0u64..2_000), 1..12),
        freq in prop::sample::select(vec![512_000_000u64, 500_000_000, 1_000_000_000, 33_333_333]),
    ) {
        let sched = |t: u64| ((t - boot) as u128 * 1_000_000_000 / freq as u128) as u64;
        let mut i = 0;
        let (est, err) = record::estimate_boot_tb(|| {
            let (start, at, win) = reads[i % reads.len()];
            i += 1;
            let before = boot + start;
            (before, sched(before + at.min(win)), before + win)
        }, freq, reads.len());
        prop_assert!(est.abs_diff(boot) <= err, "est {} err {} boot {}", est, err, boot);
        let best = reads.iter().map(|&(_, _, w)| w / 2 + 1).min().unwrap();
        prop_assert!(err <= best + 2);
    }
}

proptest! {
    /// Whatever the polls find, the period stays within its bounds; a poll
    /// that found half a ring never lengthens it, and one that lengthens it
    /// found at most a quarter, so the next finds at most half at the same
    /// rate.
    #[test]
    fn pacer_bounded(
        base in 1u64..100_000_000,
        adaptive: bool,
        large: bool,
        polls in prop::collection::vec(0u64..10_000, 1..50),
    ) {
        let mode = if adaptive { pacer::Mode::Adaptive } else { pacer::Mode::Fixed };
        let ring = if large { ring::LARGE_RING_ENTRIES } else { ring::RING_ENTRIES };
        let mut p = pacer::Pacer::new(base, mode, ring);
        for found in polls {
            let before = p.current_ns();
            let next = p.next(found);
            prop_assert!(next >= p.min_ns() && next <= p.max_ns());
            if found >= p.busy() {
                prop_assert!(next <= before);
            }
            if next > before {
                prop_assert!(found * next / before <= ring / 2);
            }
        }
    }
}

proptest! {
    /// The pass over a poll's entries against a model: the fresh entries
    /// are the longest run in timebase order (equal timebases only between
    /// different entries), and exactly those of kinds not dropped are
    /// stored, in order, at the front; in place from any entry on, or from
    /// another source.
    #[test]
    fn take_matches_the_model(
        tbs in prop::collection::vec((0u64..40, 0u8..8), 0..20),
        from in 0usize..20,
        floor in 0u64..40,
        drop_kinds in 0u8..8,
        in_place: bool,
    ) {
        use vpa_dtl_logic::entries;
        let mut src = vec![0u8; tbs.len() * ring::ENTRY_SIZE];
        for (i, &(tb, reason)) in tbs.iter().enumerate() {
            let e = record::DtlEntry { preempt_reason: reason, timebase: tb, ..Default::default() };
            src[i * 48..i * 48 + 48].copy_from_slice(&e.to_be_bytes());
        }
        let from = from.min(tbs.len());
        let none = [0u64; entries::WORDS];
        let n = tbs.len() - from;
        let mut dst = src.clone();
        let p = entries::take(&mut dst[..], from, n, floor, &none, drop_kinds);
        // Checked where they lie (as in the ring), not in the copy.
        if !in_place {
            let run = entries::fresh_run(
                n,
                |i| entries::timebase(&src[..], from + i),
                |i| match i {
                    0 => entries::load(&src[..], from) == none,
                    _ => entries::load(&src[..], from + i) == entries::load(&src[..], from + i - 1),
                },
                floor,
            );
            prop_assert_eq!(run, (p.fresh, p.last_tb));
        }
        // The model.
        let mut fresh = 0;
        let mut prev: Option<(u64, u8)> = None;
        let mut last = floor;
        for &(tb, reason) in &tbs[from..] {
            if tb == 0 || tb < last || (tb == last && prev == Some((tb, reason))) {
                break;
            }
            fresh += 1;
            last = tb;
            prev = Some((tb, reason));
        }
        let kept: Vec<(u64, u8)> = tbs[from..from + fresh]
            .iter()
            .copied()
            .filter(|&(_, r)| !entries::kind(r).is_some_and(|k| k & drop_kinds != 0))
            .collect();
        prop_assert_eq!((p.fresh, p.kept, p.last_tb), (fresh, kept.len(), last));
        if fresh > 0 {
            prop_assert_eq!(p.last, entries::load(&src[..], from + fresh - 1));
        }
        for (i, &(tb, r)) in kept.iter().enumerate() {
            prop_assert_eq!(entries::timebase(&dst[..], i), tb);
            prop_assert_eq!(entries::reason(&dst[..], i), r);
        }
    }
}

proptest! {
    /// Checking entries where they lie, as the direct path checks the ring
    /// (`fresh_run`), and in a copy, as the scratch path does (`take`), find
    /// the same fresh run.
    #[test]
    fn fresh_run_matches_take(tbs in prop::collection::vec((0u64..40, 0u8..3), 0..20), floor in 0u64..40) {
        use vpa_dtl_logic::entries;
        let mut src = vec![0u8; tbs.len() * ring::ENTRY_SIZE];
        for (i, &(tb, reason)) in tbs.iter().enumerate() {
            let e = record::DtlEntry { preempt_reason: reason, timebase: tb, ..Default::default() };
            src[i * 48..i * 48 + 48].copy_from_slice(&e.to_be_bytes());
        }
        let none = [0u64; entries::WORDS];
        // The scratch path: a copy, checked and compacted in place.
        let mut dst = src.clone();
        let p = entries::take(&mut dst[..], 0, tbs.len(), floor, &none, 0);
        let run = entries::fresh_run(
            tbs.len(),
            |i| entries::timebase(&src[..], i),
            |i| if i == 0 { entries::load(&src[..], 0) == none } else { entries::load(&src[..], i) == entries::load(&src[..], i - 1) },
            floor,
        );
        prop_assert_eq!(run, (p.fresh, p.last_tb));
    }
}
