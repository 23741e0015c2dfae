// SPDX-License-Identifier: GPL-2.0

//! `perf script` output of a `vpa_dtl` capture, as
//! tools/perf/util/powerpc-vpadtl.c and builtin-script.c print it: two lines
//! per vpa-dtl sample.
//!
//! ```text
//!  swapper  0 [001]  3.667818:  vpa-dtl: timebase: 9814970217 dispatch_reason:system_reset, preempt_reason:H_CEDE,
//! enqueue_to_dispatch_time:4113, ready_to_enqueue_time:2148,waiting_to_ready_time:12, processor_id: 1 c0000000001c389c synchronize_srcu+0x2cc ([kernel.kallsyms])
//! ```
//!
//! Lines of other events are skipped. Used by the capture checker
//! (tools/testing/dtl_check) and the report tool (tools/dtl_report).

mod error;
mod names;
mod parse;

pub use error::{ParseError, ParseErrorKind};
pub use names::{DISPATCH, PREEMPT};
pub use parse::{parse_script, parse_time, Decoded};
