// SPDX-License-Identifier: GPL-2.0

//! Index math for the hypervisor's Dispatch Trace Log ring.
//!
//! The hypervisor writes entry number `i` (counting from registration) into
//! slot `i % ring` of a ring of `ring` entries (85 in 4 KiB, 1365 in 64 KiB)
//! and then publishes `i + 1` in the lppaca's `dtl_idx`. It writes a
//! virtual processor's log when it dispatches it, so while the reader runs
//! on that processor no write is in progress: a reader that saw `head` may
//! take all `ring` newest entries ([`readable`]), and after
//! copying them reads `dtl_idx` again; entries overwritten meanwhile (the
//! reader was preempted and dispatched again) are the oldest ones, and
//! [`torn`] tells how many. This is also the rule of the kernel's own
//! same-CPU readers (`scan_dispatch_log`). A reader that could race a write
//! (another CPU's log) must also check the oldest slot (see the driver's
//! poll). Anything older that was not read is lost (overrun), and counted.

// The DTL's geometry, as `rpmu::pseries::dtl` defines it: one definition for
// the host build of this crate and for the kernel's (where an out-of-tree
// module loads the file twice, as two modules with the same constants).
#[allow(clippy::duplicate_mod)]
#[path = "../../../../../rust/rpmu/pseries/dtl/geometry.rs"]
pub mod geometry;

/// Size of one DTL entry in bytes (`struct dtl_entry`).
pub const ENTRY_SIZE: usize = geometry::DTL_ENTRY_BYTES;

/// 8-byte words in an entry.
pub const ENTRY_WORDS: usize = geometry::DTL_ENTRY_WORDS;

/// Entries in a standard (4 KiB) ring: 85.
pub const RING_ENTRIES: u64 = geometry::DTL_ENTRIES as u64;

/// Entries in a large (64 KiB) ring: 1365.
pub const LARGE_RING_ENTRIES: u64 = geometry::DTL_LARGE_ENTRIES as u64;

/// Entries a reader can take after reading `dtl_idx` from a ring of `ring`
/// entries: on the logged CPU the whole ring; when the log may be written
/// while it reads (`concurrent`, a writer on another CPU), one fewer: the
/// slot of the entry being written, which is not published yet, holds the
/// oldest one and may be half overwritten.
pub fn readable(ring: u64, concurrent: bool) -> u64 {
    if concurrent {
        ring.saturating_sub(1)
    } else {
        ring
    }
}

/// What one poll of the ring can take.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Span {
    /// Absolute index of the first entry to copy.
    pub first: u64,
    /// Entries to copy, oldest first.
    pub count: u64,
    /// Entries published since the last poll that the hypervisor has already
    /// overwritten: lost.
    pub lost: u64,
}

/// Plans a poll for a reader whose next unread entry is `next`, given the
/// published index `head`, taking at most `readable` entries (see
/// [`readable`]).
///
/// Returns `None` if `head < next`: the index went backwards, which happens
/// only if the buffer was registered anew behind the reader's back; the
/// caller resynchronises to `head`.
pub fn plan(next: u64, head: u64, readable: u64) -> Option<Span> {
    let avail = head.checked_sub(next)?;
    Some(match avail.checked_sub(readable) {
        // More than a reader can take: the newest `readable`, the rest lost.
        // `head >= avail > readable`: the wrapping index never wraps here.
        Some(lost) if lost > 0 => Span {
            first: head.wrapping_sub(readable),
            count: readable,
            lost,
        },
        _ => Span {
            first: next,
            count: avail,
            lost: 0,
        },
    })
}

/// After copying `span`, the reader saw `head_after` published: returns how
/// many of the span's oldest entries may have been overwritten during the
/// copy and must be discarded (and counted lost), `readable` as for [`plan`].
pub fn torn(span: &Span, head_after: u64, readable: u64) -> u64 {
    let oldest_safe = head_after.saturating_sub(readable);
    oldest_safe.saturating_sub(span.first).min(span.count)
}

/// The slots of a ring of `ring` entries holding `count` entries from
/// absolute index `first`, as at most two runs `(slot, len)` (the second is
/// empty unless the span wraps). `count` is at most `ring` (a [`plan`]ned
/// span); a larger one is not checked here (no panic in the poll): its
/// second run is then longer than the ring, and the copy of it is refused
/// by the ring's own bounds. An empty ring has no slots: `[(0, 0), (0, 0)]`.
pub fn runs(first: u64, count: u64, ring: u64) -> [(usize, usize); 2] {
    let Some(start) = first.checked_rem(ring) else {
        return [(0, 0), (0, 0)];
    };
    let (start, count) = (start as usize, count as usize);
    // `start < ring` and `first_len <= count`: neither saturates.
    let first_len = count.min((ring as usize).saturating_sub(start));
    [(start, first_len), (0, count.saturating_sub(first_len))]
}
