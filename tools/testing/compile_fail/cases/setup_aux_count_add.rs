// SPDX-License-Identifier: GPL-2.0
// The event's count updated from `setup_aux`, which perf runs in process
// context on any CPU, concurrently with the scheduling callbacks that own
// the count.
// EXPECT: error[E0599]: the method `count_add` exists for reference `&Event<T, Process>`, but its trait bounds were not satisfied

use crate::rpmu::perf::{Event, PmuDriver, Process};

/// What a driver's `setup_aux` might try.
pub fn misuse<T: PmuDriver>(ev: &Event<T, Process>) {
    ev.count_add(1);
}
