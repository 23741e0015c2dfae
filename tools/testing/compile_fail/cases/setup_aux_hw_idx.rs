// SPDX-License-Identifier: GPL-2.0
// The hardware counter index written from `setup_aux`, racing with `add`
// and `del` on the event's CPU.
// EXPECT: error[E0599]: no method named `set_hw_idx` found for reference `&Event<T, Process>`

use crate::rpmu::perf::{Event, PmuDriver, Process};

/// What a driver's `setup_aux` might try.
pub fn misuse<T: PmuDriver>(ev: &Event<T, Process>) {
    ev.set_hw_idx(None);
}
