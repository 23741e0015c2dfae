// SPDX-License-Identifier: GPL-2.0

//! The shared cases of the entry checks (`entries`).

use super::super::entries;
use super::super::{record, ring};
use super::{check, Failure};

/// Entry checks: freshness, kinds, filtering.
pub fn entry_checks() -> Result<(), Failure> {
    let entry = |reason: u8, tb: u64| {
        record::DtlEntry {
            preempt_reason: reason,
            timebase: tb,
            ..Default::default()
        }
        .to_be_bytes()
    };
    let mut b = [0u8; 5 * ring::ENTRY_SIZE];
    let tbs = [100u64, 100, 150, 120, 200];
    let reasons = [2u8, 4, 6, 2, 9];
    for (i, (&tb, &r)) in tbs.iter().zip(reasons.iter()).enumerate() {
        b[i * 48..i * 48 + 48].copy_from_slice(&entry(r, tb));
    }
    let b = &b[..];
    check(entries::timebase(b, 1) == 100, "timebase")?;
    check(entries::reason(b, 2) == 6, "preempt reason")?;
    let none = [0u64; entries::WORDS];
    // One in-place pass over a copy of `src`, from entry `from` to `end`.
    let pass =
        |src: &[u8], from: usize, end: usize, floor: u64, prev: &entries::Words, drop: u8| {
            let mut c = [0u8; 6 * ring::ENTRY_SIZE];
            c[..src.len()].copy_from_slice(src);
            let p = entries::take(&mut c[..], from, end - from, floor, prev, drop);
            (p, c)
        };
    let (p, _) = pass(b, 0, 5, 50, &none, 0);
    check(
        (p.fresh, p.kept, p.last_tb, p.last) == (3, 3, 150, entries::load(b, 2)),
        "fresh up to the first older entry",
    )?;
    check(
        pass(b, 0, 5, 101, &none, 0).0.fresh == 0 && pass(b, 0, 5, 101, &none, 0).0.last_tb == 101,
        "nothing before the floor",
    )?;
    let (p, c) = pass(b, 2, 5, 101, &none, 0);
    check(
        (p.fresh, p.last_tb) == (1, 150) && entries::timebase(&c[..], 0) == 150,
        "from an entry on, stored at the front",
    )?;
    check(
        pass(&[0u8; 48], 0, 1, 0, &none, 0).0.fresh == 0,
        "a zero timebase is never fresh",
    )?;
    check(
        pass(&entry(2, 1 << 63), 0, 1, 0, &none, 0).0.fresh == 0,
        "a negative timebase is never fresh",
    )?;
    let p = pass(b, 0, 1, 100, &entries::load(b, 0), 0).0;
    check(
        p.fresh == 0 && p.last == entries::load(b, 0),
        "the entry taken last, again: stale",
    )?;
    check(
        pass(b, 1, 2, 100, &entries::load(b, 0), 0).0.fresh == 1,
        "another entry with the same timebase: fresh",
    )?;
    let mut r = [0u8; 6 * ring::ENTRY_SIZE];
    r[..5 * 48].copy_from_slice(b);
    r[5 * 48..].copy_from_slice(&b[4 * 48..]);
    let p = pass(&r, 4, 6, 100, &none, 0).0;
    check(
        (p.fresh, p.last_tb) == (1, 200),
        "the previous entry repeated in the next slot: stale",
    )?;
    let mut short = [0u8; ring::ENTRY_SIZE];
    short.copy_from_slice(&b[2 * 48..3 * 48]);
    let p = entries::take(&mut short[..], 0, 2, 0, &none, 0);
    check(
        (p.fresh, p.kept, p.last_tb) == (1, 1, 150) && short[..] == b[2 * 48..3 * 48],
        "an entry beyond the buffer reads as zero and ends the pass",
    )?;
    // tbs 100, 100, 150, 120, 200: from the third entry on, the oldest
    // (150) is newer than the next (120), as when a writer has filled the
    // oldest slot with its next entry before publishing it.
    check(
        entries::oldest_lapped(b, 2, 5),
        "an oldest entry newer than the next: lapped",
    )?;
    check(
        !entries::oldest_lapped(b, 0, 5) && !entries::oldest_lapped(b, 3, 5),
        "in order (or equal): not lapped",
    )?;
    check(
        !entries::oldest_lapped(b, 4, 5) && !entries::oldest_lapped(b, 2, 3),
        "fewer than two entries: not lapped",
    )?;
    let mut z = [0u8; 2 * ring::ENTRY_SIZE];
    z[..48].copy_from_slice(&entry(2, 300));
    check(
        !entries::oldest_lapped(&z[..], 0, 2),
        "a never-written (zero) slot next: not lapped",
    )?;
    check(
        entries::kind(2) == Some(record::DTL_CEDE)
            && entries::kind(3) == Some(record::DTL_CEDE)
            && entries::kind(4) == Some(record::DTL_PREEMPT)
            && entries::kind(6) == Some(record::DTL_FAULT)
            && entries::kind(1).is_none()
            && entries::kind(9).is_none(),
        "kinds",
    )?;
    let (p, c) = pass(b, 0, 3, 50, &none, 0);
    check(
        p.kept == 3 && c[..3 * 48] == b[..3 * 48],
        "nothing to drop, nothing moved",
    )?;
    let mut u = [0u8; 5 * ring::ENTRY_SIZE];
    for (i, (&tb, &r)) in [100u64, 120, 150, 160, 200]
        .iter()
        .zip(reasons.iter())
        .enumerate()
    {
        u[i * 48..i * 48 + 48].copy_from_slice(&entry(r, tb));
    }
    let (p, c) = pass(&u, 0, 5, 50, &none, record::DTL_PREEMPT);
    check(
        (p.fresh, p.kept, p.last_tb) == (5, 4, 200),
        "drop the time-slice entry, still fresh",
    )?;
    check(
        entries::timebase(&c[..], 1) == 150 && entries::timebase(&c[..], 3) == 200,
        "the others kept in order, unknown kinds too",
    )?;
    let mut w = [0u8; ring::ENTRY_SIZE];
    entries::store(&mut w[..], 0, &entries::load(b, 3));
    check(w[..] == b[3 * 48..4 * 48], "load and store round trip")?;
    check(
        entries::load(b, 5) == none && entries::load(b, 9) == none && entries::timebase(b, 9) == 0,
        "out of range: zeroes",
    )?;
    Ok(())
}
