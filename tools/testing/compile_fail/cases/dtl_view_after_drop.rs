// SPDX-License-Identifier: GPL-2.0
// A view of a DTL ring kept after its buffer is dropped: dropping an own
// buffer frees the ring the view reads.
// EXPECT: error[E0505]: cannot move out of `buf` because it is borrowed

use crate::rpmu::pseries::dtl::{DtlBuffer, RingView};

/// Keeps the view past the buffer.
pub fn misuse(buf: DtlBuffer) -> Option<[u64; 6]> {
    let v: RingView<'_> = buf.view();
    drop(buf);
    v.load_slot(0)
}
