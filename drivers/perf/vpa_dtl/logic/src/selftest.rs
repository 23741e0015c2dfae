// SPDX-License-Identifier: GPL-2.0

//! Table-driven cases shared by `cargo test` on the host and KUnit in the
//! guest, so that the arithmetic the module runs is checked where it runs.
//! Each function returns the first failing case.

// Test code, built only for `cargo test` and the KUnit module: the case
// tables index and compute on fixed values. The crate root denies these
// lints for the driver's code; this opts out, submodules included.
#![allow(clippy::arithmetic_side_effects, clippy::indexing_slicing)]
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::panic, clippy::unreachable)]

use super::{aux_plan, record, ring, validate};

mod entry_cases;
mod pacing_cases;
pub use entry_cases::entry_checks;
pub use pacing_cases::pacing;

/// A failed case: what was checked.
pub type Failure = &'static str;

fn check(ok: bool, what: Failure) -> Result<(), Failure> {
    if ok {
        Ok(())
    } else {
        Err(what)
    }
}

/// Ring planning: empty, partial, exactly readable, lapped, far lapped,
/// backwards.
pub fn ring_plan() -> Result<(), Failure> {
    use ring::{plan, Span};
    const READABLE: u64 = ring::RING_ENTRIES;
    check(
        plan(0, 0, READABLE)
            == Some(Span {
                first: 0,
                count: 0,
                lost: 0,
            }),
        "empty ring",
    )?;
    check(
        plan(10, 15, READABLE)
            == Some(Span {
                first: 10,
                count: 5,
                lost: 0,
            }),
        "five new",
    )?;
    check(
        plan(0, READABLE, READABLE)
            == Some(Span {
                first: 0,
                count: 85,
                lost: 0,
            }),
        "85 new: the whole ring readable",
    )?;
    check(
        plan(0, 86, READABLE)
            == Some(Span {
                first: 1,
                count: 85,
                lost: 1,
            }),
        "86 new: the oldest overwritten",
    )?;
    check(
        plan(0, 100, READABLE)
            == Some(Span {
                first: 15,
                count: 85,
                lost: 15,
            }),
        "100 new: 15 lost",
    )?;
    check(
        plan(1000, 1_000_000, READABLE)
            == Some(Span {
                first: 999_915,
                count: 85,
                lost: 998_915,
            }),
        "far lapped",
    )?;
    check(plan(50, 49, READABLE).is_none(), "index went backwards")?;
    Ok(())
}

/// Entries torn during a copy.
pub fn ring_torn() -> Result<(), Failure> {
    use ring::{torn, Span};
    let s = Span {
        first: 15,
        count: 85,
        lost: 15,
    };
    check(
        torn(&s, 100, ring::RING_ENTRIES) == 0,
        "no progress during copy",
    )?;
    check(
        torn(&s, 101, ring::RING_ENTRIES) == 1,
        "one more published: oldest torn",
    )?;
    check(torn(&s, 150, ring::RING_ENTRIES) == 50, "50 more published")?;
    check(
        torn(&s, 10_000, ring::RING_ENTRIES) == 85,
        "lapped during copy: all torn",
    )?;
    let small = Span {
        first: 0,
        count: 3,
        lost: 0,
    };
    check(
        torn(&small, 85, ring::RING_ENTRIES) == 0,
        "short span, head far behind the lap",
    )?;
    check(
        torn(&small, 87, ring::RING_ENTRIES) == 2,
        "short span lapped by two",
    )?;
    check(
        torn(&small, 86, ring::readable(ring::RING_ENTRIES, true)) == 2,
        "a concurrent writer: one slot less",
    )?;
    Ok(())
}

/// Slot runs with and without wraparound.
pub fn ring_runs() -> Result<(), Failure> {
    use ring::{runs, LARGE_RING_ENTRIES as L, RING_ENTRIES as R};
    check(runs(0, 5, R) == [(0, 5), (0, 0)], "no wrap")?;
    check(runs(80, 10, R) == [(80, 5), (0, 5)], "wrap at 85")?;
    check(
        runs(85, 85, R) == [(0, 85), (0, 0)],
        "second lap start: the whole ring",
    )?;
    check(
        runs(170 + 84, 84, R) == [(84, 1), (0, 83)],
        "start at last slot",
    )?;
    check(runs(7, 0, R) == [(7, 0), (0, 0)], "empty")?;
    check(
        runs(80, 10, L) == [(80, 10), (0, 0)],
        "no wrap at 85 in 1365",
    )?;
    check(runs(1360, 10, L) == [(1360, 5), (0, 5)], "wrap at 1365")?;
    check(
        runs(3 * 1365 + 1364, 1365, L) == [(1364, 1), (0, 1364)],
        "the whole large ring from its last slot",
    )?;
    check(runs(5, 5, 0) == [(0, 0), (0, 0)], "no ring: no slots")?;
    Ok(())
}

/// AUX space accounting.
pub fn aux() -> Result<(), Failure> {
    use aux_plan::{keep_open, plan, plan_continued, AuxPlan, Hold, HOLD_POLLS};
    let p = |h, e, d| AuxPlan {
        header: h,
        entries: e,
        dropped: d,
    };
    check(
        plan(4095, 10) == p(true, 10, 0),
        "room for all, header first",
    )?;
    check(
        plan(4095, 100) == p(true, 84, 16),
        "4095 bytes hold the header and 84 entries",
    )?;
    check(
        plan(96, 1) == p(false, 0, 1),
        "header and one entry exactly: keep the last byte",
    )?;
    check(
        plan(97, 1) == p(true, 1, 0),
        "header, one entry and one byte",
    )?;
    check(plan(49, 3) == p(false, 0, 3), "never a header alone")?;
    check(plan(20, 3) == p(false, 0, 3), "no room at all")?;
    check(plan(0, 0) == p(false, 0, 0), "nothing to do")?;
    check(p(true, 2, 0).bytes() == 144, "bytes")?;
    check(
        plan_continued(4095, 100) == p(false, 85, 15),
        "a held transaction: 4095 bytes hold 85 entries, no header",
    )?;
    check(
        plan_continued(48, 1) == p(false, 0, 1),
        "a held transaction keeps its last byte",
    )?;
    let busy = Hold {
        live: true,
        loss: false,
        found: 40,
        quiet: 10,
        ring: 85,
        space: 1 << 20,
        past_wakeup: false,
        polls: 1,
    };
    check(keep_open(&busy), "a busy poll holds the transaction")?;
    for (h, what) in [
        (
            Hold {
                live: false,
                ..busy
            },
            "the last poll ends it",
        ),
        (Hold { loss: true, ..busy }, "a loss ends it"),
        (Hold { found: 10, ..busy }, "a quiet poll ends it"),
        (
            Hold {
                space: 86 * 48,
                ..busy
            },
            "too little room for a ring ends it",
        ),
        (
            Hold {
                past_wakeup: true,
                ..busy
            },
            "the wakeup watermark ends it",
        ),
        (
            Hold {
                polls: HOLD_POLLS,
                ..busy
            },
            "its age ends it",
        ),
    ] {
        check(!keep_open(&h), what)?;
    }
    check(
        keep_open(&Hold {
            space: 86 * 48 + 1,
            ..busy
        }),
        "room for a ring and the free byte: held",
    )?;
    Ok(())
}

/// Record layouts.
pub fn records() -> Result<(), Failure> {
    let e = record::DtlEntry {
        dispatch_reason: 3,
        preempt_reason: 2,
        processor_id: 0x1234,
        enqueue_to_dispatch_time: 0xdead_beef,
        ready_to_enqueue_time: 7,
        waiting_to_ready_time: 8,
        timebase: 0x0102_0304_0506_0708,
        fault_addr: 9,
        srr0: 0xc000_0000_0000_1000,
        srr1: 11,
    };
    let b = e.to_be_bytes();
    check(b[2] == 0x12 && b[3] == 0x34, "processor_id is big-endian")?;
    check(
        b[16] == 0x01 && b[23] == 0x08,
        "timebase is big-endian at offset 16",
    )?;
    check(record::DtlEntry::from_be_bytes(&b) == e, "round trip")?;
    let h = record::header(0x1122, 512_000_000);
    check(h[0..8] == 0x1122u64.to_ne_bytes(), "header boot_tb")?;
    check(h[8..16] == 512_000_000u64.to_ne_bytes(), "header tb_freq")?;
    check(
        h[16..48].iter().all(|&x| x == 0),
        "header timebase and padding are zero",
    )?;
    check(
        record::valid_config(1) && record::valid_config(7),
        "valid configs",
    )?;
    check(
        !record::valid_config(0) && !record::valid_config(3) && !record::valid_config(0x101),
        "invalid configs",
    )?;
    // 1 s of uptime at 512 MHz, read within a 100-tick window.
    let (boot, err) = record::boot_tb_from(
        1_000_512_000_000,
        1_000_000_000,
        1_000_512_000_100,
        512_000_000,
    );
    check(boot == 1_000_000_000_050 && err == 51, "boot_tb estimate")?;
    // Two readings whose clock was read early and late in a 100-tick window:
    // the intersection of their intervals pins boot_tb within a few ticks.
    let boot = 7_000_000u64;
    let ns_at = |t: u64| (t - boot) * 125 / 64; // sched_clock at 512 MHz
    let readings = [(1_000_000u64, 2u64), (3_000_000, 98)];
    let mut i = 0;
    let (est, err) = record::estimate_boot_tb(
        || {
            let (start, off) = readings[i % 2];
            i += 1;
            let before = boot + start;
            (before, ns_at(before + off), before + 100)
        },
        512_000_000,
        2,
    );
    check(
        est.abs_diff(boot) <= err && err <= 5,
        "boot_tb from intersected readings",
    )?;
    check(
        record::ns_to_ticks(1_500_000_000, 512_000_000) == 768_000_000,
        "ns to ticks",
    )?;
    check(
        record::ns_to_ticks(u64::MAX, 512_000_000) == 9_444_732_965_739_290_426,
        "ns to ticks, no overflow",
    )?;
    Ok(())
}

/// All of the above.
pub fn all() -> Result<(), Failure> {
    ring_plan()?;
    entry_checks()?;
    ring_torn()?;
    ring_runs()?;
    aux()?;
    records()?;
    validation()?;
    pacing()
}

/// Event validation table: each refusal, and the order they are checked in.
pub fn validation() -> Result<(), Failure> {
    use validate::{check as v, period_ns, Refusal, Request};
    let ok = Request {
        config: 1,
        sampling: true,
        branch_stack: false,
        per_task: false,
        has_cpu: true,
        perfmon: true,
        kinds_unlogged: false,
    };
    check(v(&ok).is_ok(), "dtl_cede sampling on a CPU")?;
    let kvm = Request {
        kinds_unlogged: true,
        ..ok
    };
    for c in [1u64, 2, 3, 4, 5, 6] {
        let r = Request { config: c, ..kvm };
        let want = if matches!(c, 1 | 2 | 4) {
            Refusal::KindUnlogged
        } else {
            Refusal::BadConfig
        };
        check(v(&r) == Err(want), "KVM: one kind refused")?;
    }
    check(
        v(&Request { config: 7, ..kvm }).is_ok(),
        "KVM: dtl_all accepted",
    )?;
    for c in [2u64, 4, 7] {
        check(
            v(&Request { config: c, ..ok }).is_ok(),
            "other valid configs",
        )?;
    }
    for c in [0u64, 3, 5, 6, 8, 0xff, 0x101, u64::MAX] {
        check(
            v(&Request { config: c, ..ok }) == Err(Refusal::BadConfig),
            "invalid config",
        )?;
    }
    check(
        v(&Request {
            sampling: false,
            ..ok
        }) == Err(Refusal::Counting),
        "counting",
    )?;
    check(
        v(&Request {
            branch_stack: true,
            ..ok
        }) == Err(Refusal::BranchStack),
        "branch stack",
    )?;
    check(
        v(&Request {
            per_task: true,
            ..ok
        }) == Err(Refusal::PerTask),
        "per task",
    )?;
    check(
        v(&Request {
            has_cpu: false,
            per_task: true,
            ..ok
        }) == Err(Refusal::PerTask),
        "any cpu",
    )?;
    check(
        v(&Request {
            perfmon: false,
            config: 3,
            ..ok
        }) == Err(Refusal::NotPerfmon),
        "privilege first",
    )?;
    check(period_ns(1_000_000, false) == 1_000_000, "1 ms period")?;
    check(period_ns(10, false) == 1_000_000, "clamped to 1 ms")?;
    check(period_ns(100, true) == 10_000_000, "100 Hz")?;
    check(period_ns(1_000_000, true) == 1_000_000, "1 MHz clamped")?;
    Ok(())
}
