// SPDX-License-Identifier: GPL-2.0

//! Percentiles against hand-worked ranks and against the definition;
//! grouping on entries built by hand.

use super::*;

#[test]
fn nearest_rank_by_hand() {
    // N = 10: p50 is rank 5, p99 is rank ceil(9.9) = 10.
    let v: Vec<u32> = (1..=10).map(|i| i * 10).collect();
    assert_eq!(percentile(&v, 50), Some(50));
    assert_eq!(percentile(&v, 99), Some(100));
    assert_eq!(percentile(&v, 100), Some(100));
    assert_eq!(percentile(&v, 1), Some(10));
    // N = 3: p50 is rank ceil(1.5) = 2.
    assert_eq!(percentile(&[7, 8, 9], 50), Some(8));
    // N = 4: p50 is rank 2 (no averaging of ranks 2 and 3).
    assert_eq!(percentile(&[1, 2, 30, 40], 50), Some(2));
    // N = 1.
    assert_eq!(percentile(&[5], 50), Some(5));
    assert_eq!(percentile(&[5], 99), Some(5));
    // N = 200: p99 is rank 198.
    let v: Vec<u32> = (0..200).collect();
    assert_eq!(percentile(&v, 99), Some(197));
    assert_eq!(percentile(&[], 50), None);
}

/// The definition: the smallest value with at least p% of the values at or
/// below it.
fn by_definition(v: &[u32], p: u32) -> u32 {
    let n = v.len() as u64;
    *v.iter()
        .filter(|&&x| v.iter().filter(|&&y| y <= x).count() as u64 * 100 >= u64::from(p) * n)
        .min()
        .unwrap()
}

#[test]
fn nearest_rank_matches_the_definition() {
    // Pseudo-random data with repeats, several sizes.
    let mut x = 12345u64;
    for n in 1..=120usize {
        let mut v: Vec<u32> = (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((x >> 33) % 50) as u32
            })
            .collect();
        v.sort_unstable();
        for p in [1, 25, 50, 90, 99, 100] {
            assert_eq!(percentile(&v, p), Some(by_definition(&v, p)), "n {n} p {p}");
        }
    }
}

fn entry(cpu: u32, time_ns: u64, dispatch: &str, preempt: &str, enqueue: u32) -> Decoded {
    Decoded {
        cpu,
        time_ns,
        time_res_ns: 1,
        timebase: 0,
        dispatch: dispatch.into(),
        preempt: preempt.into(),
        enqueue,
        ready: 0,
        seq: 0,
        processor_id: cpu as u16,
        ip: 0,
    }
}

#[test]
fn groups_per_cpu_with_counts_most_frequent_first() {
    let d = [
        entry(3, 500, "H_PROD", "H_CEDE", 40),
        entry(1, 200, "time_slice", "H_CEDE", 10),
        entry(3, 900, "H_PROD", "time_slice", 20),
        entry(3, 100, "system_reset", "H_CEDE", 30),
        entry(1, 300, "H_PROD", "H_CEDE", 0),
    ];
    let s = summarise(&d);
    assert_eq!(s.span_ns, 800);
    assert_eq!(s.cpus.iter().map(|c| c.0).collect::<Vec<_>>(), [1, 3]);
    let c3 = &s.cpus[1].1;
    assert_eq!(c3.entries, 3);
    assert_eq!(c3.enqueue, [20, 30, 40]);
    assert_eq!(
        c3.dispatch,
        [("H_PROD".to_string(), 2), ("system_reset".to_string(), 1)]
    );
    assert_eq!(
        c3.preempt,
        [("H_CEDE".to_string(), 2), ("time_slice".to_string(), 1)]
    );
    assert_eq!(
        c3.latency(),
        Some(Latency {
            p50: 30,
            p99: 40,
            max: 40
        })
    );
    // Ties in name order.
    let c1 = &s.cpus[0].1;
    assert_eq!(
        c1.dispatch,
        [("H_PROD".to_string(), 1), ("time_slice".to_string(), 1)]
    );
    assert_eq!(s.all.entries, 5);
    assert_eq!(s.all.dispatch[0], ("H_PROD".to_string(), 3));
    assert_eq!(
        s.all.preempt,
        [("H_CEDE".to_string(), 4), ("time_slice".to_string(), 1)]
    );
    assert_eq!(s.all.enqueue, [0, 10, 20, 30, 40]);
}

#[test]
fn ticks_in_microseconds() {
    assert_eq!(ticks_to_us(512, 512_000_000), 1.0);
    assert_eq!(ticks_to_us(1280, 512_000_000), 2.5);
    assert_eq!(ticks_to_us(1000, 1_000_000_000), 1.0);
}
