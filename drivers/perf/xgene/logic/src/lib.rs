// SPDX-License-Identifier: GPL-2.0

//! Kernel-independent logic of the X-Gene SoC uncore PMUs (L3C, IOB,
//! IOB-slow, MCB, MC): the register layout of each version, the event
//! tables (generated from drivers/perf/xgene/events/*.json), discovery of
//! the present sub-blocks, firmware identifiers, `perf_event_attr`
//! validation, and counter arithmetic.
//!
//! These modules are `no_std` and free of kernel types: the kernel module
//! includes the same files (`#[path = ...] mod ...`), and `cargo test` runs
//! them on the host, with property tests, before KUnit runs the shared table
//! of cases ([`selftest`]) again inside the guest. Modules refer to each
//! other only through `super::`, so they work under any parent module.
//!
//! [`events`] includes `$RPMU_GEN_DIR/xgene_events_generated.rs`, written by
//! `scripts/xgene_events.py rust <file>`: build.rs does it for cargo, the
//! module's Kbuild for the kernel.

#![no_std]

pub mod acpi;
pub mod config;
pub mod counter;
pub mod discover;
pub mod events;
pub mod hw;
pub mod selftest;
