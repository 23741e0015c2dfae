// SPDX-License-Identifier: GPL-2.0
// The hardware state written from `check_period`, which perf calls from
// the PERF_EVENT_IOC_PERIOD ioctl: process context, any CPU, without the
// context lock the scheduling callbacks hold.
// EXPECT: error[E0599]: no method named `set_hw_state` found for reference `&Event<T, Process>`

use crate::rpmu::perf::{Event, HwState, PmuDriver, Process};

/// What a driver's `check_period` might try.
pub fn misuse<T: PmuDriver>(ev: &Event<T, Process>) {
    ev.set_hw_state(HwState::RUNNING);
}
