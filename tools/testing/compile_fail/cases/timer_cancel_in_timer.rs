// SPDX-License-Identifier: GPL-2.0
// The event's timer cancelled from its own callback: hrtimer_cancel would
// wait for the callback that calls it. The abstraction owns the cancel.
// EXPECT: error[E0599]: no method named `timer_cancel` found for reference `&Event<T>`

use crate::rpmu::perf::{Event, PmuDriver, TimerRestart};

/// What a driver's `timer` might try.
pub fn misuse<T: PmuDriver>(ev: &Event<T>) -> TimerRestart {
    ev.timer_cancel();
    TimerRestart::Stop
}
