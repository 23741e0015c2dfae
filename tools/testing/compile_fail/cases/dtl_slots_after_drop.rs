// SPDX-License-Identifier: GPL-2.0
// A run of DTL slots kept after its buffer is dropped: dropping an own
// buffer frees the ring the words point into.
// EXPECT: error[E0505]: cannot move out of `buf` because it is borrowed

use crate::rpmu::{io::SharedWords, pseries::dtl::DtlBuffer};

/// Keeps the slots past the buffer.
pub fn misuse(buf: DtlBuffer) -> usize {
    let Some(s): Option<SharedWords<'_>> = buf.view().slot_words(0, 1) else {
        return 0;
    };
    drop(buf);
    s.len()
}
