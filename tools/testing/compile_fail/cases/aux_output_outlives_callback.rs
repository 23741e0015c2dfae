// SPDX-License-Identifier: GPL-2.0
// An AUX transaction kept past the callback that has it: only `hold` keeps
// one open, in the event, where the abstraction ends it at `stop`; a driver
// that kept the `AuxOutput` itself would write to an area perf may have
// freed after `stop`.
// EXPECT: error: lifetime may not live long enough

use crate::rpmu::perf::{AuxOutput, Event, PmuDriver};

/// Returns the transaction to keep it beyond the callback.
pub fn misuse<T: PmuDriver>(ev: &Event<T>) -> Option<AuxOutput<'static, T>> {
    ev.aux_output_begin()
}
