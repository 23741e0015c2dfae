// SPDX-License-Identifier: GPL-2.0
// A reserved AUX window written after its transaction was held: the next
// callback may continue the transaction and hand out the same bytes again,
// or the abstraction end it at `stop` with those bytes uncounted.
// EXPECT: error[E0505]: cannot move out of `out` because it is borrowed

use crate::rpmu::perf::{Event, PmuDriver};

/// Holds the transaction, then writes through its window.
pub fn misuse<T: PmuDriver>(ev: &Event<T>) {
    let Some(mut out) = ev.aux_output_begin() else {
        return;
    };
    let Some(mut w) = out.reserve(8) else {
        return;
    };
    out.hold();
    w.write_words(0, &[1u64]);
}
