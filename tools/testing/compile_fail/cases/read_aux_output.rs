// SPDX-License-Identifier: GPL-2.0
// An AUX transaction opened from `read`, which may run nested inside another
// callback of the event that has one open already (perf refuses nested
// transactions with a WARN).
// EXPECT: error[E0599]: no method named `aux_output_begin` found for reference `&Event<T, Reading>`

use crate::rpmu::perf::{Event, PmuDriver, Reading};

/// What a driver's `read` might try.
pub fn misuse<T: PmuDriver>(ev: &Event<T, Reading>) {
    let _ = ev.aux_output_begin();
}
