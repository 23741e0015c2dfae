// SPDX-License-Identifier: GPL-2.0

//! Kernel-independent logic of the `vpa_dtl` PMU.
//!
//! These modules are `no_std` and free of kernel types: the kernel module
//! includes this crate as a module (`#[path = "logic/src/lib.rs"] pub mod
//! logic;`), and `cargo test` runs it on the host, with property tests,
//! before KUnit (`vpa_dtl_kunit.ko`) runs the shared table of cases
//! (`selftest`) again inside the guest. Modules refer to each other only
//! through `super::`, so they work under any parent module.
//!
//! `selftest` is test code: a kernel build (`MODULE`) compiles it only for
//! test modules (`rpmu_testing`), never into the driver.

#![cfg_attr(not(MODULE), no_std)]
// This code runs in perf callbacks and the DTL poll's hrtimer callback, often
// with interrupts off, where a panic BUGs the kernel: so no overflow-checked
// arithmetic (nor `/` or `%` by a divisor that may be zero), no indexing, no
// unwrap/expect/panic/unreachable. Shifts by a run-time amount,
// `copy_from_slice` and `debug_assert!` are not linted and are avoided by hand
// (`checked_shl`, iterators). Division by a non-zero constant cannot panic and
// is allowed: hence no `clippy::integer_division_remainder_used`, which flags
// every `/` and `%`. `selftest` (test code) opts out.
#![deny(clippy::arithmetic_side_effects, clippy::indexing_slicing)]
#![deny(clippy::unwrap_used, clippy::expect_used)]
#![deny(clippy::panic, clippy::unreachable)]

pub mod aux_plan;
pub mod entries;
pub mod pacer;
pub mod record;
pub mod ring;
#[cfg(any(not(MODULE), rpmu_testing))]
pub mod selftest;
pub mod validate;
