// SPDX-License-Identifier: GPL-2.0
// The AUX area's data used after the transaction is committed: the commit
// may drop the last reference to the area, freeing the data.
// EXPECT: error[E0505]: cannot move out of `out` because it is borrowed

use crate::rpmu::perf::{Event, PmuDriver};

/// Reads the AUX data after committing.
pub fn misuse<T: PmuDriver<AuxData = u64>>(ev: &Event<T>) -> u64 {
    let Some(out) = ev.aux_output_begin() else {
        return 0;
    };
    let d = out.data();
    out.commit();
    *d
}
