// SPDX-License-Identifier: GPL-2.0

//! perf's names for the reason codes of a DTL entry
//! (`dispatch_reasons[]` and `preempt_reasons[]` in
//! tools/perf/util/powerpc-vpadtl.c).

/// perf's names for `dispatch_reason` values.
pub const DISPATCH: [&str; 11] = [
    "external_interrupt",
    "firmware_internal_event",
    "H_PROD",
    "decrementer_interrupt",
    "system_reset",
    "firmware_internal_event",
    "conferred_cycles",
    "time_slice",
    "virtual_memory_page_fault",
    "expropriated_adjunct",
    "priv_doorbell",
];

/// perf's names for `preempt_reason` values.
pub const PREEMPT: [&str; 10] = [
    "unused",
    "firmware_internal_event",
    "H_CEDE",
    "H_CONFER",
    "time_slice",
    "migration_hibernation_page_fault",
    "virtual_memory_page_fault",
    "H_CONFER_ADJUNCT",
    "hcall_adjunct",
    "HDEC_adjunct",
];
