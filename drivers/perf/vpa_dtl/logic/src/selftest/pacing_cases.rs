// SPDX-License-Identifier: GPL-2.0

//! The shared cases of the polling period (`pacer`).

use super::super::{pacer, ring};
use super::{check, Failure};

/// The polling period: adaptive first period, back-off when quiet, steady
/// rates, a burst, bounds; the fixed period never moves.
pub fn pacing() -> Result<(), Failure> {
    use pacer::{Mode, Pacer};
    use ring::{LARGE_RING_ENTRIES as L, RING_ENTRIES as R};
    const MS: u64 = 1_000_000;
    // Polls `n` times with entries arriving evenly at `per_ms` a ms.
    fn steady(p: &mut Pacer, per_ms: u64, n: usize) -> u64 {
        for _ in 0..n {
            p.next(per_ms * p.current_ns() / MS);
        }
        p.current_ns()
    }
    check(
        Pacer::new(MS, Mode::Adaptive, R).current_ns() == MS,
        "starts at 1 ms",
    )?;
    check(
        Pacer::new(32 * MS, Mode::Adaptive, R).current_ns() == 2 * MS,
        "starts at a sixteenth",
    )?;
    let mut p = Pacer::new(MS, Mode::Adaptive, R);
    check(steady(&mut p, 0, 10) == 16 * MS, "idle: 16 periods")?;
    check(p.next(85) == 8 * MS, "a full ring halves it")?;
    check(
        steady(&mut Pacer::new(MS, Mode::Adaptive, R), 1, 10) == 16 * MS,
        "1/ms: 16 ms",
    )?;
    check(
        steady(&mut Pacer::new(MS, Mode::Adaptive, R), 3, 10) == 8 * MS,
        "3/ms: 8 ms",
    )?;
    check(
        steady(&mut Pacer::new(MS, Mode::Adaptive, R), 10, 10) == 4 * MS,
        "10/ms: 4 ms (40 a poll)",
    )?;
    check(
        steady(&mut Pacer::new(MS, Mode::Adaptive, R), 20, 10) == 2 * MS,
        "20/ms: 2 ms (40 a poll)",
    )?;
    check(
        steady(&mut Pacer::new(MS, Mode::Adaptive, R), 30, 10) == MS,
        "30/ms: 1 ms",
    )?;
    check(
        steady(&mut Pacer::new(MS, Mode::Adaptive, R), 500, 10) == MS,
        "500/ms: 1 ms",
    )?;
    check(
        steady(&mut Pacer::new(10 * MS, Mode::Adaptive, R), 60, 10) == MS,
        "60/ms at 10 ms: 1 ms",
    )?;
    check(
        steady(&mut Pacer::new(MS, Mode::Adaptive, L), 45, 10) == 8 * MS,
        "45/ms in a large ring: 8 ms (360 a poll)",
    )?;
    check(
        steady(&mut Pacer::new(MS, Mode::Adaptive, L), 500, 10) == MS,
        "500/ms in a large ring: 1 ms",
    )?;
    let kvm = Pacer::new(MS, Mode::Adaptive, L).bursts_up_to(400);
    check(
        kvm.max_ns() == 3_412_500,
        "bursts of 400/ms: 1365 entries in 3.4 ms",
    )?;
    let mut idle = kvm;
    check(
        steady(&mut idle, 0, 10) == 3_412_500,
        "idle under bursts of 400/ms: 3.4 ms",
    )?;
    check(
        Pacer::new(MS, Mode::Adaptive, R).bursts_up_to(400).max_ns() == MS,
        "a small ring under bursts: never below 1 ms",
    )?;
    check(
        Pacer::new(8 * MS, Mode::Fixed, L)
            .bursts_up_to(400)
            .max_ns()
            == 8 * MS,
        "fixed: the event's period",
    )?;
    let mut p = Pacer::new(3 * MS, Mode::Adaptive, R);
    for found in [0, 1, 10, 11, 41, 42, 85, u64::MAX] {
        let n = p.next(found);
        check((p.min_ns()..=p.max_ns()).contains(&n), "bounds")?;
    }
    // Lazy waits: only at the longest period after a quiet poll.
    let mut p = Pacer::new(MS, Mode::Adaptive, R);
    p.next(0);
    check(!p.lazy(), "not lazy below the longest period")?;
    check(steady(&mut p, 0, 10) == 16 * MS && p.lazy(), "idle: lazy")?;
    check(p.lazy_deadline_ns().is_none(), "no entry: no deadline")?;
    p.next(1);
    check(
        p.lazy() && p.lazy_deadline_ns().is_none(),
        "one entry: no deadline",
    )?;
    p.next(2);
    check(
        p.lazy() && p.lazy_deadline_ns() == Some(4 * 16 * MS),
        "two entries: a deadline of 4 periods",
    )?;
    p.next(p.quiet() + 1);
    check(!p.lazy(), "a poll above quiet: not lazy")?;
    p.next(0);
    check(p.lazy(), "quiet again at the longest: lazy")?;
    p.next(R);
    let mut held = 0;
    while !p.lazy() && held < 2 * pacer::LAZY_HOLD {
        p.next(0);
        held += 1;
    }
    check(
        held == pacer::LAZY_HOLD,
        "a full ring holds lazy waits off for LAZY_HOLD polls",
    )?;
    let mut p = Pacer::new(MS, Mode::Adaptive, R).lazy_waits(false);
    steady(&mut p, 0, 10);
    check(!p.lazy(), "lazy=0: never lazy")?;
    let mut p = kvm;
    steady(&mut p, 0, 10);
    check(!p.lazy(), "bursts: never lazy")?;
    let mut p = Pacer::new(MS, Mode::Fixed, R);
    steady(&mut p, 0, 10);
    check(!p.lazy(), "fixed: never lazy")?;
    let mut p = Pacer::new(8 * MS, Mode::Fixed, R);
    check(p.current_ns() == 8 * MS, "fixed: starts at the period")?;
    for found in [0, 10, 42, 85, u64::MAX] {
        check(p.next(found) == 8 * MS, "fixed: stays at the period")?;
    }
    Ok(())
}
