// SPDX-License-Identifier: GPL-2.0
// An event reference handed to another thread: its guarantees (this CPU,
// interrupts off, perf's lock held) hold only in the callback.
// EXPECT: error[E0277]: `UnsafeCell<MaybeUninit<rpmu::bindings::perf_event>>` cannot be shared between threads safely

use crate::rpmu::perf::{Event, PmuDriver};

fn needs_send<S: Send>(_s: S) {}

/// What a driver's `read` might try.
pub fn misuse<T: PmuDriver>(ev: &Event<T>) {
    needs_send(ev);
}
