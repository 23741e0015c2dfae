// SPDX-License-Identifier: GPL-2.0
// The event's lost samples updated from `setup_aux`, which perf runs in
// process context on any CPU: only the callbacks on the event's CPU
// report what it lost.
// EXPECT: error[E0599]: the method `lost_samples_add` exists for reference `&Event<T, Process>`, but its trait bounds were not satisfied

use crate::rpmu::perf::{Event, PmuDriver, Process};

/// What a driver's `setup_aux` might try.
pub fn misuse<T: PmuDriver>(ev: &Event<T, Process>) {
    ev.lost_samples_add(1);
}
