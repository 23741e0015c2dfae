// SPDX-License-Identifier: GPL-2.0
// Events migrated from a perf callback (atomic context; perf's context
// mutexes would be taken with its raw lock held) or between two CPUs of the
// driver's choosing, possibly the same one (a self-deadlock).
// EXPECT: error[E0308]: mismatched types

use crate::rpmu::{
    cpu::CpuId,
    perf::{PmuDriver, Registration},
};

/// What a driver's `read` might try.
pub fn misuse<T: PmuDriver>(reg: &Registration<T>, cpu: CpuId) {
    reg.migrate_context(cpu, cpu);
}
