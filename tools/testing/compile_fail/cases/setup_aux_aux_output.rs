// SPDX-License-Identifier: GPL-2.0
// An AUX transaction opened from `setup_aux`: perf_aux_output_begin must
// run on the event's CPU with the event scheduled.
// EXPECT: error[E0599]: no method named `aux_output_begin` found for reference `&Event<T, Process>`

use crate::rpmu::perf::{Event, PmuDriver, Process};

/// What a driver's `setup_aux` might try.
pub fn misuse<T: PmuDriver>(ev: &Event<T, Process>) {
    let _ = ev.aux_output_begin();
}
