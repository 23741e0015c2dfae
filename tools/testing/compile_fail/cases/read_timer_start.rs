// SPDX-License-Identifier: GPL-2.0
// The event's timer started from `read`, which perf may call in NMI
// context (`perf_event_read_local()`, from BPF): `hrtimer_start()` takes the
// timer base's lock and is not NMI-safe.
// EXPECT: error[E0599]: no method named `timer_start` found for reference `&Event<T, Reading>`

use crate::rpmu::perf::{Event, PmuDriver, Reading};
use kernel::time::Delta;

/// What a driver's `read` might try.
pub fn misuse<T: PmuDriver>(ev: &Event<T, Reading>) {
    ev.timer_start(Delta::from_millis(1));
}
