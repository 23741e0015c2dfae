// SPDX-License-Identifier: GPL-2.0
// A PMU in the software context: perf runs its `event_init` without the
// group leader's context lock, so walking the group there would race.
// EXPECT: error[E0599]: no variant or associated item named `Software` found for enum `TaskContext`

use crate::rpmu::perf::TaskContext;

/// What a driver's `TASK_CONTEXT` might say.
pub const CX: TaskContext = TaskContext::Software;
