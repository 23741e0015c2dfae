// SPDX-License-Identifier: GPL-2.0

//! Kernel-independent logic of the X-Gene SoC uncore PMUs (L3C, IOB,
//! IOB-slow, MCB, MC): the register layout of each version, the event
//! tables (generated from drivers/perf/xgene/events/*.json), discovery of
//! the present sub-blocks, firmware identifiers, `perf_event_attr`
//! validation, and counter arithmetic.
//!
//! Each fact is written once, as data: the firmware identifiers in [`ids`]
//! and [`blocks`], whose description of each sub-block type
//! ([`blocks::BLOCK_TYPES`]) also gives its events, formats and interrupt
//! bits; what differs between versions in [`hw::Layout`]; the registers in
//! [`hw::regs`].
//!
//! These modules are `no_std` and free of kernel types: the kernel modules
//! include this crate as a module (`#[path = "logic/src/lib.rs"] pub mod
//! logic;`), and `cargo test` runs it on the host, with property tests,
//! before KUnit (`xgene_pmu_kunit.ko`) runs the shared table of cases
//! (`selftest`) again inside the guest. Modules refer to each other only
//! through `super::`, so they work under any parent module.
//!
//! `selftest` is test code: a kernel build (`MODULE`) compiles it only for
//! test modules (`rpmu_testing`), never into the driver.
//!
//! [`events`] includes `$RPMU_GEN_DIR/xgene_events_generated.rs`, written by
//! `scripts/xgene_events.py rust <file>`: build.rs does it for cargo, the
//! module's Kbuild for the kernel.

#![cfg_attr(not(MODULE), no_std)]
// This code runs in perf callbacks and the overflow IRQ handler, often with
// interrupts off, where a panic BUGs the kernel: so no overflow-checked
// arithmetic (nor `/` or `%` by a divisor that may be zero), no indexing, no
// unwrap/expect/panic/unreachable. Shifts by a run-time amount,
// `copy_from_slice` and `debug_assert!` are not linted and are avoided by hand
// (`checked_shl`, iterators). Division by a non-zero constant cannot panic and
// is allowed: hence no `clippy::integer_division_remainder_used`, which flags
// every `/` and `%`. `selftest` (test code) opts out.
#![deny(clippy::arithmetic_side_effects, clippy::indexing_slicing)]
#![deny(clippy::unwrap_used, clippy::expect_used)]
#![deny(clippy::panic, clippy::unreachable)]

pub mod bitfield;
pub mod blocks;
pub mod config;
pub mod counter;
pub mod discover;
pub mod events;
pub mod hw;
pub mod ids;
#[cfg(any(not(MODULE), rpmu_testing))]
pub mod selftest;
