// SPDX-License-Identifier: GPL-2.0
// The event's count updated from `setup_aux`, which perf runs in process
// context on any CPU, concurrently with the scheduling callbacks that own
// the count.
// EXPECT: error[E0599]: no method named `count_add` found for reference `&Event<T, Process>`

use crate::rpmu::perf::{Event, PmuDriver, Process};

/// What a driver's `setup_aux` might try.
pub fn misuse<T: PmuDriver>(ev: &Event<T, Process>) {
    ev.count_add(1);
}
