// SPDX-License-Identifier: GPL-2.0
// The event's timer started unpinned: it could then run on another CPU,
// concurrently with the scheduling callbacks whose state it shares. The
// abstraction pins it to the event's CPU; there is no other way to start it.
// EXPECT: error[E0061]: this method takes 1 argument but 2 arguments were supplied

use crate::rpmu::perf::{Event, PmuDriver};
use kernel::time::Delta;

/// What a driver's `start` might try.
pub fn misuse<T: PmuDriver>(ev: &Event<T>) {
    ev.timer_start(Delta::from_millis(1), false);
}
